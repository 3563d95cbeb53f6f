"""``signet-sdk doctor`` with a daemon newer than the tested ones, and with a degraded one.

A newer release is used, not refused: doctor says which versions the SDK is
tested against (0.109.15 and 0.145.8) and that a newer one runs on the
strength of those runs and of replayed answers, not proven. A ``degraded``
health (upstream's /health when the workspace is missing or incomplete, or the
database check failed: NicholaiVogel/signetai
platform/daemon/src/routes/health.ts@0ac824ae) is a warning with the daemon's
reasons, not an error: the exit code stays 0.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from signet_sdk.testing import ScriptedDaemon

from .test_answers import ANSWERS

SIGNET_SDK = str(Path(sys.executable).parent / "signet-sdk")


def doctor(
    env: dict[str, str], health: dict[str, Any], *args: str
) -> subprocess.CompletedProcess[str]:
    with ScriptedDaemon() as daemon:
        daemon.HEALTH = health  # what every GET answers: /health and /api/sessions
        return subprocess.run(
            [SIGNET_SDK, "doctor", *args],
            capture_output=True,
            text=True,
            env={**env, "SIGNET_DAEMON_URL": daemon.url},
            timeout=60,
        )


def daemon_findings(report: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in report if f["area"] == "daemon"]


def test_a_newer_degraded_daemon_gives_two_warnings_and_exit_zero(home: dict[str, str]) -> None:
    done = doctor(home, ANSWERS["health"].body, "--json")
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    reach, version, degraded = daemon_findings(report)
    assert reach["ok"] and not reach["warning"]
    assert reach["message"].endswith(", Signet 0.207.1")
    assert version == {
        "area": "daemon",
        "ok": True,
        "warning": True,
        "message": "Signet 0.207.1: newer than 0.145.8, the newest tested (tested: 0.109.15, "
        "0.145.8); used on the strength of those runs and of replays of newer daemons' answers "
        "taken from upstream's source, not proven against 0.207.1 itself",
        "fix": "",
    }
    assert degraded["ok"] and degraded["warning"]
    assert degraded["message"] == (
        "the daemon says it is degraded (workspace incomplete at /home/dev/.agents: "
        "AGENTS.md is missing); it still serves, but what depends on the failing part may be "
        "missing"
    )
    assert all(f["ok"] for f in report), [f for f in report if not f["ok"]]


def test_the_text_report_marks_warnings(home: dict[str, str]) -> None:
    done = doctor(home, ANSWERS["health"].body)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0].startswith("ok   daemon   reachable at ")
    assert lines[1].startswith("WARN daemon   Signet 0.207.1: newer than 0.145.8")
    assert lines[2].startswith("WARN daemon   the daemon says it is degraded (")
    assert lines[3] == "               -> see the daemon's log, and 'workspace' and " + (
        "'databaseIntegrity' in its /health"
    )
    assert not any(line.startswith("FIX") for line in lines)


def test_a_tested_healthy_daemon_gives_no_warning(home: dict[str, str]) -> None:
    done = doctor(home, {"status": "healthy", "version": "0.145.8"}, "--json")
    assert done.returncode == 0
    reach, version = daemon_findings(json.loads(done.stdout))[:2]
    assert not reach["warning"] and not version["warning"]
    assert version["message"] == "Signet 0.145.8: supported (tested: 0.109.15, 0.145.8)"


def test_a_degraded_database_names_the_daemons_guidance(home: dict[str, str]) -> None:
    health = {
        "status": "degraded",
        "version": "0.145.8",
        "databaseIntegrity": {
            "state": "corrupt",
            "repairGuidance": "stop the daemon, back up the database, and run the repair flow",
        },
    }
    done = doctor(home, health, "--json")
    assert done.returncode == 0
    degraded = daemon_findings(json.loads(done.stdout))[2]
    assert degraded["warning"] and degraded["message"].startswith(
        "the daemon says it is degraded (database integrity corrupt: stop the daemon, back up "
        "the database, and run the repair flow)"
    )
