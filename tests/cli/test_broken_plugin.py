"""One broken plugin never breaks the CLI: it is listed with its reason, the others work.

A distribution is faked on ``PYTHONPATH`` (a ``*.dist-info`` with an
``entry_points.txt``, as pip leaves it) whose plugin module fails to import,
or names an object that is not a plugin; every command then runs in a real
``signet-sdk`` process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = str(Path(sys.executable).parent / "signet-sdk")


def _fake_dist(root: Path, name: str, module: str, source: str, target: str) -> None:
    info = root / f"{name.replace('-', '_')}-0.0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.1\n")
    (info / "entry_points.txt").write_text(f"[signet_sdk.adapters]\n{module} = {target}\n")
    (root / f"{module.replace('-', '_')}_plugin.py").write_text(source)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "site"
    _fake_dist(
        site,
        "acme-broken",
        "acme",
        "raise ImportError('acme needs libfoo, which is not installed')\n",
        "acme_plugin:plugin",
    )
    _fake_dist(site, "zeta-odd", "zeta", "plugin = object()\n", "zeta_plugin:plugin")
    home = tmp_path / "home"
    home.mkdir()
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "PYTHONPATH": str(site),
        "SIGNET_DAEMON_URL": "http://127.0.0.1:9",
    }


def run(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, *args], env=env, input=stdin, capture_output=True, text=True, timeout=120
    )


def test_harnesses_lists_the_broken_ones_with_their_reason_and_exits_1(env: dict[str, str]) -> None:
    done = run(env, "harnesses")
    assert done.returncode == 1 and "Traceback" not in done.stderr + done.stdout
    assert (
        "acme  BROKEN: adapter 'acme' (acme_plugin:plugin) failed to load: acme needs libfoo"
        in (done.stdout)
    )
    assert (
        "zeta  BROKEN: adapter 'zeta' (zeta_plugin:plugin) is not a signet_sdk.plugin.HarnessPlugin"
        in (done.stdout)
    )
    assert "claude-code  signetai-adapter-claude-code" in done.stdout  # the others are listed
    rows = json.loads(run(env, "harnesses", "--json").stdout)
    assert {r["name"]: r.get("broken", "")[:20] for r in rows if "broken" in r} == {
        "acme": "adapter 'acme' (acme",
        "zeta": "adapter 'zeta' (zeta",
    }


def test_doctor_reports_each_broken_plugin_as_a_finding(env: dict[str, str]) -> None:
    done = run(env, "doctor", "--json")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    broken = [f for f in report if "broken plugin" in f["message"]]
    assert [f["message"].split(":")[0] for f in broken] == ["acme", "zeta"]
    assert all(f["ok"] is False and "reinstall or uninstall" in f["fix"] for f in broken)
    cc = [f for f in report if f["message"].startswith("claude-code:")]
    assert cc and cc[0]["ok"] is True


def test_every_other_harness_keeps_working(env: dict[str, str], tmp_path: Path) -> None:
    parity = run(env, "parity", "claude-code")
    assert parity.returncode == 0 and "parity: ok" in parity.stdout, parity.stdout + parity.stderr
    everything = run(env, "parity")
    assert everything.returncode == 0, everything.stdout[-2000:] + everything.stderr
    assert "skipping acme, a broken plugin" in everything.stderr
    project = tmp_path / "project"
    project.mkdir()
    installed = run(env, "install", "claude-code", "--project", str(project), "--dry-run")
    assert installed.returncode == 0 and "Traceback" not in installed.stderr
    hooked = run(env, "hook", "claude-code", "SessionStart", stdin='{"session_id": "s"}')
    assert (hooked.returncode, hooked.stderr) == (0, "")


def test_the_broken_one_itself_fails_with_one_line(env: dict[str, str]) -> None:
    parity = run(env, "parity", "acme")
    assert parity.returncode == 2
    assert parity.stderr.strip().splitlines() == [
        "signet-sdk parity: acme: broken plugin: adapter 'acme' (acme_plugin:plugin) failed to "
        "load: acme needs libfoo, which is not installed"
    ]
    install = run(env, "install", "acme")
    assert install.returncode == 2 and len(install.stderr.strip().splitlines()) == 1
    # A harness calling the broken plugin's hook gets nothing, never a traceback.
    hooked = run(env, "hook", "acme", "SessionStart", stdin="{}")
    assert (hooked.returncode, hooked.stdout, hooked.stderr) == (0, "", "")
