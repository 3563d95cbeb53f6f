"""Installing the SDK changes no other project's pytest run; one line opts in.

The SDK's pytest plugin (``signet_vector``, ``scripted_daemon``, the
real-daemon fixtures and a ``pytest_generate_tests`` hook) used to load into
every pytest run of any environment the SDK was installed in. It is opt-in
now: an unrelated project in the same environment sees none of it, and a
project whose ``conftest.py`` names it (as the scaffold's does) gets it all.
The project's own end-to-end kit is not in the published package either.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from signet_sdk.cli.scaffold import scaffold

#: What the plugin adds to a run that loads it.
FIXTURES = ("scripted_daemon", "real_daemon", "real_daemon_kit")
PLUGIN = "signet_sdk.testing.pytest_plugin"


def _pytest(project: Path, *args: str) -> str:
    """``pytest`` in ``project`` (its own rootdir), as this environment's Python runs it."""
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    return proc.stdout


def test_an_unrelated_project_sees_no_signet_fixture_or_plugin(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    assert 1 + 1 == 2\n")
    fixtures = _pytest(tmp_path, "--fixtures")
    assert "tmp_path" in fixtures  # the listing is there ...
    for name in FIXTURES:  # ... and none of the SDK's is in it
        assert name not in fixtures
    config = _pytest(tmp_path, "--trace-config", "-q")
    assert "1 passed" in config
    assert "signet" not in config
    groups = importlib.metadata.entry_points(group="pytest11")
    assert [e.value for e in groups if e.value.startswith("signet")] == []


def test_one_conftest_line_enables_it(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(f"pytest_plugins = [{PLUGIN!r}]\n")
    (tmp_path / "test_plain.py").write_text("def test_plain(scripted_daemon):\n    pass\n")
    fixtures = _pytest(tmp_path, "--fixtures")
    for name in FIXTURES:
        assert name in fixtures
    assert "1 passed" in _pytest(tmp_path, "-q")


def test_the_scaffold_writes_that_line(tmp_path: Path) -> None:
    written = scaffold("acme", "command-hook", tmp_path)
    assert tmp_path / "tests" / "conftest.py" in written
    conftest = (tmp_path / "tests" / "conftest.py").read_text(encoding="utf-8")
    assert f"pytest_plugins = [{PLUGIN!r}]".replace("'", '"') in conftest


def test_the_end_to_end_kit_is_not_in_the_sdk_package() -> None:
    for gone in ("e2e_world", "real_harness", "npm"):
        assert importlib.util.find_spec(f"signet_sdk.testing.{gone}") is None
    import signet_sdk.testing

    assert "harness_world" not in signet_sdk.testing.__all__
    assert "npm_binary" not in dir(signet_sdk.testing)
