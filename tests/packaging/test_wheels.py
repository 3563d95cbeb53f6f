"""As users get it: the README's install lines, then the built wheels, in a fresh venv.

The venv is made the way the README says: each ``pip install`` line of its
Install section runs as written, from a copy of the checkout (the
distributions are not on PyPI yet), so an edit that breaks an install line
fails here. The adapters those lines do not name come from the wheels built
here, installed as ``pip install "signetai-sdk[all]"`` will be. No editable
install and no checkout on ``sys.path``: the commands run from a temp
directory with the venv's own ``signet-sdk``. Dependencies come from the
package index (pip's cache makes a rerun quick).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from signet_sdk.testing import free_port, stop_process

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = sorted(p.parent for p in (ROOT / "adapters").glob("*/pyproject.toml"))
#: What the checkout's copy leaves out: history, environments, build output, caches.
NOT_COPIED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "site",
    "build",
    "dist",
    "node_modules",
    "__pycache__",
    ".*_cache",
    "*.egg-info",
)


def readme_install_lines() -> list[list[str]]:
    """The README's Install block, one argv per line, comments dropped."""
    readme = (ROOT / "README.md").read_text()
    assert "\n## Install\n" in readme, "README lost its Install section"
    section = readme.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "README's Install section has no bash block"
    lines = [shlex.split(line, comments=True) for line in block.group(1).splitlines()]
    return [line for line in lines if line]


def test_readme_install_lines_install_from_the_checkout() -> None:
    lines = readme_install_lines()
    assert lines and all(line[:2] == ["pip", "install"] for line in lines), lines
    assert ["pip", "install", "."] in lines
    for line in lines:
        for target in line[2:]:
            assert not target.startswith("-"), f"an install line with options: {line}"
            path = target.split("[", 1)[0]
            assert (ROOT / path / "pyproject.toml").is_file(), f"{target}: not a project here"


def _project(path: Path) -> dict[str, object]:
    import tomllib

    with open(path / "pyproject.toml", "rb") as fh:
        project: dict[str, object] = tomllib.load(fh)["project"]
    return project


def _plugin_names(adapter: Path) -> list[str]:
    points = _project(adapter)["entry-points"]
    assert isinstance(points, dict)
    return sorted(points["signet_sdk.adapters"])


def test_every_adapter_has_its_extra_and_is_in_all() -> None:
    extras = _project(ROOT)["optional-dependencies"]
    assert isinstance(extras, dict)
    for adapter in ADAPTERS:
        name = _project(adapter)["name"]
        assert isinstance(name, str)
        for plugin in _plugin_names(adapter):
            wanted = [r for r in extras.get(adapter.name, []) if r.startswith(name)]
            assert wanted, f"no extra {adapter.name!r} installing {name} (plugin {plugin})"
        assert any(r.startswith(name) for r in extras["all"]), f"{name} missing from 'all'"


def test_every_adapter_package_is_typed() -> None:
    for adapter in ADAPTERS:
        packages = list(adapter.glob("signet_adapter_*/__init__.py"))
        assert packages, adapter
        for init in packages:
            assert (init.parent / "py.typed").is_file(), f"{init.parent} lacks py.typed"


class Venv:
    def __init__(self, path: Path, work: Path) -> None:
        self.path = path
        self.work = work
        self.bin = path / "bin"

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SIGNET_", "CLAUDE_", "PYTHON", "VIRTUAL_ENV"))
        }
        env.update(
            HOME=str(self.work / "home"),
            XDG_STATE_HOME=str(self.work / "state"),
            XDG_DATA_HOME=str(self.work / "data"),
            PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '')}",
        )
        env.update(extra)
        return env

    def run(
        self, *args: str, stdin: str = "", timeout: float = 180, **env: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "signet-sdk"), *args],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=self.work,
            env=self.env(**env),
            timeout=timeout,
        )


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    root = tmp_path_factory.mktemp("wheels")
    dist = root / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(dist),
            str(ROOT),
            *map(str, ADAPTERS),
        ],
        check=True,
        timeout=300,
    )
    wheels = sorted(p.name.split("-")[0] for p in dist.glob("*.whl"))
    expected = [str(_project(a)["name"]).replace("-", "_") for a in ADAPTERS]
    assert wheels == sorted([*expected, "signetai_sdk"])
    path = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=120)
    pip = [str(path / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    checkout = root / "checkout"
    shutil.copytree(ROOT, checkout, ignore=NOT_COPIED, symlinks=True)
    for line in readme_install_lines():
        done = subprocess.run(
            [*pip, *line[2:]], cwd=checkout, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"README: {shlex.join(line)}\n{done.stderr[-3000:]}"
    subprocess.run([*pip, "--find-links", str(dist), "signetai-sdk[all]"], check=True, timeout=600)
    work = root / "work"
    (work / "home").mkdir(parents=True)
    return Venv(path, work)


@pytest.fixture(scope="module")
def dev_daemon(venv: Venv) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            str(venv.bin / "signet-sdk"),
            "dev-daemon",
            "--port",
            str(port),
            "--db",
            str(venv.work / "dev.sqlite3"),
            # 0.109 recalls for every prompt (0.145 only for a named entity), which
            # the prompt test below relies on to see context come back.
            "--daemon-version",
            "0.109",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=venv.work,
        env=venv.env(),
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f"listening on http://127.0.0.1:{port}" in line, line + proc.stderr.read()
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(proc)


def test_installed_from_site_packages(venv: Venv) -> None:
    code = (
        "import signet_sdk, signet_adapter_claude_code as c; print(signet_sdk.__file__, c.__file__)"
    )
    done = subprocess.run(
        [str(venv.bin / "python"), "-c", code],
        capture_output=True,
        text=True,
        cwd=venv.work,
        env=venv.env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert all("site-packages" in p for p in done.stdout.split()), done.stdout


def test_help_and_version(venv: Venv) -> None:
    done = venv.run("--help")
    assert done.returncode == 0 and "harnesses" in done.stdout
    for command in ("demo", "dev-daemon", "parity", "harnesses", "hook", "install", "uninstall"):
        sub = venv.run(command, "--help")
        assert sub.returncode == 0, (command, sub.stderr)
        assert "usage:" in sub.stdout, command
    assert venv.run("version").stdout.startswith("signet-sdk 0.")


def test_harnesses_lists_every_adapter(venv: Venv) -> None:
    done = venv.run("harnesses", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["name"]: r for r in json.loads(done.stdout)}
    for adapter in ADAPTERS:
        for plugin in _plugin_names(adapter):
            row = rows[plugin]
            assert row["distribution"] == _project(adapter)["name"]
            assert row["installer"] is True and row["vectors"] > 0


def test_parity(venv: Venv) -> None:
    done = venv.run("parity")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert done.stdout.rstrip().endswith("parity: ok")
    bad = venv.run("parity", "no-such-harness")
    assert bad.returncode == 2 and "claude-code" in bad.stderr


def test_demo(venv: Venv) -> None:
    done = venv.run("demo", timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "demo: ok" in done.stdout


def test_hook_against_the_dev_daemon(venv: Venv, dev_daemon: str) -> None:
    payload = {
        "session_id": "wheel-1",
        "cwd": str(venv.work),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "how do we deploy billing?",
    }
    started = time.monotonic()
    done = venv.run(
        "hook",
        "claude-code",
        "UserPromptSubmit",
        stdin=json.dumps(payload),
        SIGNET_DAEMON_URL=dev_daemon,
    )
    assert done.returncode == 0 and done.stderr == ""
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit" and out["additionalContext"]
    assert time.monotonic() - started < 10


def test_install_and_uninstall(venv: Venv) -> None:
    settings = venv.work / "settings.json"
    settings.write_text('{"theme": "dark"}\n')
    done = venv.run("install", "claude-code", "--settings", str(settings))
    assert done.returncode == 0, done.stderr
    hooks = json.loads(settings.read_text())["hooks"]
    command = hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert command == f"{venv.bin / 'signet-sdk'} hook claude-code UserPromptSubmit"
    done = venv.run("uninstall", "claude-code", "--settings", str(settings))
    assert done.returncode == 0, done.stderr
    assert json.loads(settings.read_text()) == {"theme": "dark"}


# Last in this module: it installs a new harness into the shared venv.
@pytest.mark.parametrize("kind", ["command-hook", "plugin"])
def test_a_new_adapter_installs_is_listed_passes_parity_and_its_own_tests(
    venv: Venv, kind: str
) -> None:
    name = "acme-hook" if kind == "command-hook" else "acme-plug"
    target = venv.work / name
    done = venv.run("new-adapter", name, "--kind", kind, "--dir", str(target))
    assert done.returncode == 0, done.stderr
    module = "signet_adapter_" + name.replace("-", "_")
    translator = (target / module / "_translate.py").read_text()
    assert len(translator.splitlines()) < 100
    imported = {line.split()[1] for line in translator.splitlines() if line.startswith("from ")}
    assert imported == {"__future__", "collections.abc", "typing", "signet_sdk.plugin"}
    pip = [str(venv.bin / "python"), "-m", "pip", "install", "--quiet", f"{target}[test]"]
    installed = subprocess.run(pip, capture_output=True, text=True, timeout=600, env=venv.env())
    assert installed.returncode == 0, installed.stderr[-2000:]
    listed = venv.run("harnesses")
    assert listed.returncode == 0 and f"{name}  signet-adapter-{name} 0.1.0" in listed.stdout
    parity = venv.run("parity", name)
    assert parity.returncode == 0, parity.stdout[-3000:]
    assert "parity: ok" in parity.stdout and "MISSING" not in parity.stdout
    own = subprocess.run(
        [str(venv.bin / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(target)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=target,
        env=venv.env(),
    )
    assert own.returncode == 0, own.stdout[-3000:]
    assert "8 passed" in own.stdout  # 6 vectors, the parity column, one more
