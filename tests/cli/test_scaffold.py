"""``signet-sdk new-adapter``: what it writes, checked without installing it.

The installed round trip (pip install, harnesses, parity, the package's own
tests) runs in ``tests/packaging/test_wheels.py`` against the built wheels.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from signet_sdk.cli.scaffold import KINDS, scaffold, translator_source

ROOT = Path(__file__).resolve().parents[2]
CLI = str(Path(sys.executable).parent / "signet-sdk")


def test_the_docs_example_is_the_scaffolds_translator() -> None:
    page = (ROOT / "docs" / "writing-an-adapter.md").read_text()
    found = re.search(r"```python\n# signet_adapter_acme/_translate.py\n(.*?)```", page, re.S)
    assert found, "docs/writing-an-adapter.md lost its example"
    assert found.group(1) == translator_source("acme", "command-hook")


@pytest.mark.parametrize("kind", KINDS)
def test_the_package_it_writes(tmp_path: Path, kind: str) -> None:
    written = scaffold("acme", kind, tmp_path)
    rel = sorted(str(p.relative_to(tmp_path)) for p in written)
    assert "pyproject.toml" in rel and "signet_adapter_acme/py.typed" in rel
    vectors = [
        r for r in rel if r.startswith("signet_adapter_acme/vectors/") and r.endswith(".json")
    ]
    assert len(vectors) == 6
    pyproject = (tmp_path / "pyproject.toml").read_text()
    assert 'acme = "signet_adapter_acme:PLUGIN"' in pyproject
    assert re.search(r'"signetai-sdk>=\d+\.\d+,<\d+\.\d+"', pyproject)
    init = (tmp_path / "signet_adapter_acme" / "__init__.py").read_text()
    factory = "command_hooks" if kind == "command-hook" else "in_harness"
    made = f'HarnessPlugin.{factory}(Translator, description="Acme adapter", tools=None)'
    assert f"PLUGIN = {made}\n" in init  # no installer yet: no way to the memory tools
    source = (tmp_path / "signet_adapter_acme" / "_translate.py").read_text()
    assert len(source.splitlines()) < 100
    assert "def translator_for(env: Mapping[str, str]) -> Translator:" in source
    compile(source, "_translate.py", "exec")
    for path in vectors:
        vector = json.loads((tmp_path / path).read_text())
        assert vector["harness"] == "acme" and vector["event"]


def test_the_command_refuses_a_bad_name_and_a_full_folder(tmp_path: Path) -> None:
    bad = subprocess.run([CLI, "new-adapter", "Acme_Harness"], capture_output=True, text=True)
    assert bad.returncode == 2 and "not a harness name" in bad.stderr
    (tmp_path / "x").write_text("mine")
    full = subprocess.run(
        [CLI, "new-adapter", "acme", "--dir", str(tmp_path)], capture_output=True, text=True
    )
    assert full.returncode == 2 and "is not empty" in full.stderr
    assert (tmp_path / "x").read_text() == "mine"


def test_the_command_refuses_a_dir_that_is_a_file(tmp_path: Path) -> None:
    mine = tmp_path / "notes"
    mine.write_text("mine")
    done = subprocess.run(
        [CLI, "new-adapter", "acme", "--dir", str(mine)], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"signet-sdk new-adapter: --dir {mine} is a file, not a folder\n"
    below = subprocess.run(
        [CLI, "new-adapter", "acme", "--dir", str(mine / "sub")], capture_output=True, text=True
    )
    assert (below.returncode, below.stdout) == (1, "")
    assert below.stderr == f"signet-sdk new-adapter: cannot write {mine / 'sub'}: Not a directory\n"
    assert mine.read_text() == "mine"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("generic", "'signet-sdk parity' uses it for the generic client's column"),
        ("runtime", "'signet-sdk parity' uses it for the reference runtime's column"),
        (
            "claude-code",
            "an installed package already provides that harness, and a second one "
            "would make both fail to load",
        ),
    ],
)
def test_the_command_refuses_a_name_parity_or_a_plugin_already_uses(
    tmp_path: Path, name: str, why: str
) -> None:
    done = subprocess.run(
        [CLI, "new-adapter", name, "--dir", str(tmp_path / "out")], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"signet-sdk new-adapter: {name!r} is taken: {why}; pick another name\n"
    assert not (tmp_path / "out").exists()
