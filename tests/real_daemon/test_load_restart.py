"""Harness sessions at once, and a real daemon killed and restarted under them.

The load bench's scenario (``bench/_load.py``, run at full size by
``bench/bench_load.py``), small: five lanes (Claude Code, Codex and a harness
nobody packaged as hook processes; pi and Hermes Agent through one adapter
server), five turns each with prompts, checkpoints, remembered facts, a
compaction and the session's end, while the real 0.145.8 daemon is killed
with SIGKILL half-way and started again on its port and data. What users
rely on: once the outbox has drained, the daemon's own API holds every
remembered fact, every compaction summary and every session's transcript
exactly once, and no harness waited past an event's deadline. No timing is
asserted beyond those deadlines, with a wide margin for a busy machine.

The kill comes wherever the lanes are, cutting sends in flight: a cut send
is in doubt and resent once it settles, and the later writes of its session
wait for it, so none of them overtakes it (a compaction summary resent
after its session's end would replace the stored transcript). A kill that
falls between the daemon storing a compaction summary and resetting the
session's transcript makes the sender send that summary again, stored
twice, rather than lose the turns after it: the test holds every duplicate
summary to one such resend in ``hooks.log``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import uuid
from pathlib import Path
from types import ModuleType

import pytest

from signet_sdk.testing.real_daemon import DaemonKit

VERSION = "0.145.8"
#: Added to every event's deadline before it counts as overrun: a hook process's
#: own start-up runs before its deadline timer, and two busy cores slow it down.
MARGIN = 5.0


def _scenario() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "bench" / "_load.py"
    spec = importlib.util.spec_from_file_location("signet_bench_load", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while defined
    spec.loader.exec_module(module)
    return module


def _version(kit: DaemonKit) -> str:
    if VERSION not in kit.versions():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the kit has no daemon {VERSION}", pytrace=False)
        pytest.skip(f"the real-daemon kit has no {VERSION}")
    return VERSION


def test_a_restarted_daemon_keeps_its_port_and_data(real_daemon_kit: DaemonKit) -> None:
    daemon = real_daemon_kit.start(_version(real_daemon_kit))
    try:
        fact = f"The {uuid.uuid4().hex[:8]} queue drains before every deploy."
        body = json.dumps({"content": fact}).encode()
        status, _ = daemon.request("POST", "/api/memory/remember", body)
        assert status == 200
        first_pid, run_dir = daemon.pid, daemon.run_dir

        daemon.kill()
        assert not daemon.alive()
        daemon.restart()

        assert daemon.pid != first_pid and daemon.alive()
        assert daemon.run_dir == run_dir
        status, body = daemon.request("GET", "/api/memories?limit=50")
        assert status == 200
        assert [m["content"] for m in json.loads(body)["memories"]] == [fact]
    finally:
        daemon.stop()
    assert not daemon.alive()
    assert not run_dir.exists()


def test_every_write_is_stored_once_through_a_daemon_crash(
    real_daemon_kit: DaemonKit, tmp_path: Path
) -> None:
    load = _scenario()
    daemon = real_daemon_kit.start(_version(real_daemon_kit))
    try:
        result = load.run_load(
            daemon,
            tmp_path,
            lanes=load.mix(5),
            turns=5,
            think=0.1,
            kill_at=0.5,
            quiet_kill=False,
            down=2.0,
            flush_seconds=120.0,
            drain_timeout=240.0,
            stall=10.0,
            extra_env={"SIGNET_OUTBOX_SETTLE_SECONDS": "3"},
        )
    finally:
        daemon.stop()

    assert result.problems == []
    # The crash came in the middle: events ran against a daemon that was down.
    outage = result.outage
    assert 0 < outage.turns_before < 25
    assert any(outage.killed_at <= t.started < outage.back_at for t in result.timed)
    # Everything queued was delivered; nothing was given up on.
    assert (result.pending, result.dead) == (0, [])
    counts = {c.kind: (c.expected, c.once, c.missing, c.duplicated) for c in result.counts}
    # A summary whose daemon was killed after storing it but before resetting the
    # session's transcript is sent again, and so stored twice: no other is.
    again = result.hooks_log.get(load.RESENT_AFTER_CUT, 0)
    for kind in ("compaction summary", "summary node"):
        expected, once, missing, duplicated = counts.pop(kind)
        assert (expected, once + len(duplicated), missing, len(duplicated)) == (5, 5, [], again)
    assert counts == {
        # Every turn of the 5 in each lane's transcript; Hermes keeps the 2 after its compaction.
        "turn in transcript": (22, 22, [], []),
        "session transcript": (5, 5, [], []),
        # The harness nobody packaged and Hermes remember on turns 1 and 4.
        "remember": (4, 4, [], []),
    }
    assert result.over_deadline(MARGIN) == []
    assert result.ok(MARGIN)  # the bench's verdict agrees
