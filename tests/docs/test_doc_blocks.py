"""Every fenced python and bash block in the docs site and the README runs.

A documented snippet that no longer works is worse than none, so each block
is extracted and run as written against the mock daemon on a local socket
(and the fake model servers for the runtime's examples), in a throwaway HOME
and working folder. The conventions the docs follow:

* A block whose fence is preceded by ``<!-- not-run: <reason> -->`` is not
  run: a server that runs until stopped, or a real harness. The reason is
  required and such blocks are capped (:data:`MAX_NOT_RUN`), so they stay few.
* A python block that is only ``--8<-- "examples/<name>.py"`` includes a
  script from ``examples/``, which ``test_examples.py`` (under ``tests/``)
  runs; the test checks that it does.
* In bash blocks, ``pip install ...`` is resolved, not installed: pip builds
  each named project's metadata from the checkout (``--dry-run --no-deps``),
  so a path or extra that no longer exists fails here, while the real install
  lines are run into a fresh venv by ``tests/packaging/test_wheels.py``.
  Everything else in a bash block runs with the checkout's ``signet-sdk``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from signet_sdk.testing import MockDaemon
from signet_sdk.testing.fake_anthropic import FakeAnthropic
from signet_sdk.testing.fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SOURCES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
#: What the docs' working folder does not link from the checkout (nor any dot-folder:
#: a block's `--project .` writes `./.claude` and the like, which must stay in the sandbox).
LOCAL_ONLY = {"site", "build", "dist"}
#: Not-run blocks allowed across the docs and the README: a handful, each with its reason.
MAX_NOT_RUN = 8
RUN_LANGS = {"python": "python", "py": "python", "bash": "bash", "sh": "bash", "shell": "bash"}
FENCE = re.compile(r"^(?P<indent> *)(?P<ticks>`{3,})(?P<lang>[\w+-]*)[^\n]*$")
NOT_RUN = re.compile(r"^<!--\s*not-run:\s*(?P<reason>.*?)\s*-->$")
SNIPPET = re.compile(r'^--8<--\s+"(?P<path>[^"]+)"$')


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, its text, and why it is not run (if so)."""

    source: Path
    line: int
    lang: str
    text: str
    not_run: str | None

    @property
    def id(self) -> str:
        return f"{self.source.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, in order (nested fences are not used in the docs)."""
    found: list[Block] = []
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening or not opening["lang"]:
            i += 1
            continue
        ticks, indent = opening["ticks"], len(opening["indent"])
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != ticks:
            body.append(lines[j][indent:])
            j += 1
        assert j < len(lines), f"{path}:{i + 1}: fence never closed"
        before = next((lines[k].strip() for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        marker = NOT_RUN.match(before)
        reason = marker["reason"] if marker else None
        found.append(Block(path, i + 1, opening["lang"], "\n".join(body) + "\n", reason))
        i = j + 1
    return found


ALL = [b for source in SOURCES for b in blocks(source)]
RUNNABLE = [b for b in ALL if b.lang in RUN_LANGS and b.not_run is None]


def test_not_run_blocks_are_few_and_say_why() -> None:
    skipped = [b for b in ALL if b.not_run is not None]
    for block in skipped:
        assert block.not_run, f"{block.id}: a not-run block needs its reason"
        assert block.lang in RUN_LANGS, f"{block.id}: only python and bash blocks are ever run"
    assert len(skipped) <= MAX_NOT_RUN, [b.id for b in skipped]


def test_there_are_blocks_to_run() -> None:
    # The parser finding nothing would pass every parametrised case vacuously.
    assert len(RUNNABLE) >= 20, len(RUNNABLE)
    assert {RUN_LANGS[b.lang] for b in RUNNABLE} == {"python", "bash"}


def test_the_parser_sees_markers_and_fences(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n<!-- not-run: runs until stopped -->\n```bash\nsignet-sdk serve\n```\n\n"
        "```python\nprint(1)\n```\n\n```json\n{}\n```\n"
    )
    got = [(b.lang, b.text, b.not_run) for b in blocks(page)]
    assert got == [
        ("bash", "signet-sdk serve\n", "runs until stopped"),
        ("python", "print(1)\n", None),
        ("json", "{}\n", None),
    ]


@pytest.fixture(scope="module")
def services() -> Iterator[dict[str, str]]:
    """The mock daemon and the two fake model servers, on local sockets."""
    with MockDaemon(version="0.109").serve() as daemon, FakeOpenAI() as oai, FakeAnthropic() as ant:
        yield {
            "SIGNET_DAEMON_URL": daemon.url,
            "OPENAI_BASE_URL": oai.base_url,
            "OPENAI_API_KEY": "sk-docs-test",
            "ANTHROPIC_BASE_URL": ant.base_url,
            "ANTHROPIC_API_KEY": "sk-ant-docs-test",
        }


def sandbox(tmp_path: Path, services: dict[str, str]) -> tuple[Path, dict[str, str]]:
    """A working folder that looks like a checkout (linked, never written through) and its env."""
    work = tmp_path / "work"
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in LOCAL_ONLY and not entry.name.startswith("."):
            (work / entry.name).symlink_to(entry)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SIGNET_", "OPENAI_", "ANTHROPIC_", "CLAUDE_", "CODEX_", "XDG_"))
    }
    home = tmp_path / "home"
    home.mkdir()
    env.update(services)
    env.update(
        HOME=str(home),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(home / ".config"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PY=sys.executable,
        # A docs block's outbox sender must not outlive the test by a minute.
        SIGNET_OUTBOX_FLUSH_SECONDS="2",
    )
    return work, env


#: Shell functions the bash blocks run under (see the module docstring).
PRELUDE = """
pip() {
  if [ "$1" != install ]; then echo "docs test: only 'pip install' is supported" >&2; return 2; fi
  shift
  "$PY" -m pip install --dry-run --no-deps --no-index --no-build-isolation --quiet "$@"
}
"""


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.id)
def test_block_runs(block: Block, services: dict[str, str], tmp_path: Path) -> None:
    work, env = sandbox(tmp_path, services)
    text = block.text
    include = SNIPPET.match(text.strip())
    if include:
        target = include["path"]
        assert target.startswith("examples/"), f"{block.id}: include only from examples/"
        assert (ROOT / target).is_file(), f"{block.id}: {target} does not exist"
        runners = "".join(p.read_text() for p in (ROOT / "tests").rglob("test_examples.py"))
        assert f'"{Path(target).name}"' in runners, f"{target} is not run by test_examples.py"
        return
    assert "--8<--" not in text, f"{block.id}: a snippet include must be the whole block"
    if RUN_LANGS[block.lang] == "python":
        cmd = [sys.executable, "-c", text]
    else:
        cmd = ["bash", "-euo", "pipefail", "-c", PRELUDE + text]
    done = subprocess.run(
        cmd,
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, (
        f"{block.id} ({block.lang}) exited {done.returncode}\n--- block\n{text}"
        f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    )


def test_agent_reference_lists_every_public_name() -> None:
    # signet_sdk.agent computes its __all__, which the static reference cannot read,
    # so its page names the members; a name added to the runtime must be added there.
    import signet_sdk.agent

    page = (DOCS / "reference" / "agent.md").read_text()
    listed = re.findall(r"^ {8}- (\w+)$", page, flags=re.M)
    assert listed == list(signet_sdk.agent.__all__)


def test_the_adapter_guide_shows_the_scaffolds_translator() -> None:
    # The guide's translator is the one `signet-sdk new-adapter` writes, byte for byte.
    from signet_sdk.cli.scaffold import translator_source

    page = (DOCS / "writing-an-adapter.md").read_text()
    found = re.search(r"```python\n# signet_adapter_acme/_translate.py\n(.*?)```", page, re.S)
    assert found, "the adapter guide lost its translator"
    assert found.group(1) == translator_source("acme", "command-hook")


def test_readme_test_command_is_kept() -> None:
    # CI reads the README's first commands; the test command must stay this one.
    head = (ROOT / "README.md").read_text().split("\n## ", 1)[0]
    assert "python3 dev.py demo" in head
    assert "python3 dev.py check" in head


def test_shlex_reads_every_bash_block() -> None:
    # A quoting slip in a block that is not run would go unseen otherwise.
    for block in ALL:
        if block.lang in RUN_LANGS and RUN_LANGS[block.lang] == "bash":
            for line in block.text.splitlines():
                if line.strip() and not line.rstrip().endswith("\\"):
                    shlex.split(line, comments=True)


def test_the_build_hook_drops_sphinx_roles_and_keeps_the_name() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("sphinx_roles", DOCS / "hooks/sphinx_roles.py")
    assert spec and spec.loader
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    html = "<p>see :class:<code>Tool</code> and :func:<code>on</code>, not a:b:<code>c</code></p>"
    assert hook.on_page_content(html) == (
        "<p>see <code>Tool</code> and <code>on</code>, not a:b:<code>c</code></p>"
    )


def test_the_build_hook_lists_a_lazy_namespace_from_its_own_all() -> None:
    import importlib.util

    import signet_sdk
    import signet_sdk.plugin

    spec = importlib.util.spec_from_file_location("lazy_members", DOCS / "hooks/lazy_members.py")
    assert spec and spec.loader
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    for module in (signet_sdk, signet_sdk.plugin):
        page = f"# x\n\n::: {module.__name__}\n    options:\n      members: lazy\n\nmore\n"
        expanded = hook.on_page_markdown(page)
        listed = re.findall(r'^        - "(\w+)"$', expanded, re.M)
        assert sorted(listed) == sorted(n for n in module.__all__ if not n.startswith("_"))
        assert expanded.startswith(f"# x\n\n::: {module.__name__}\n    options:\n      members:\n")
        assert expanded.endswith("\nmore\n") and "lazy" not in expanded
    # Every reference page of a lazy namespace asks for it.
    for page in ("reference/signet_sdk.md", "reference/plugin.md"):
        assert "members: lazy" in (DOCS / page).read_text()


def test_the_griffe_extension_gives_a_record_the_signature_it_has_at_run_time() -> None:
    """A Record's ``__init__`` is its base's at run time; the reference shows the real one."""
    import griffe

    from signet_sdk.wire.config import ClientConfig, Timeouts

    extension = griffe.load_extensions(f"{DOCS / 'hooks/record_init.py'}:RecordInit")
    package = griffe.load("signet_sdk", search_paths=[str(DOCS.parent)], extensions=extension)
    for cls in (ClientConfig, Timeouts):
        documented = package[f"wire.config.{cls.__name__}"].members["__init__"].parameters
        names = [p.name for p in documented][1:]  # after self
        assert names == list(cls._fields), cls  # every field, in declaration order
        for parameter in documented:
            if parameter.name in cls._defaults:
                assert parameter.default is not None, (cls, parameter.name)
