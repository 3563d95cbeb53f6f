"""Kill tests: nothing handed to the outbox is lost or stored twice, whoever dies.

1. The dev daemon (its own process, an SQLite file) is SIGKILLed and
   restarted again and again while 1,000 writes go through the outbox: half
   ``remember`` (which the daemon de-duplicates on ``sourceId``), half
   ``compaction_complete`` (which it does not: the sender's look-up must);
   every fifth answer also arrives after the sender gave up on it.
2. Hook processes are SIGKILLed at random points of a write, as a harness
   that times them out does.

Afterwards the outbox is flushed, and the daemon's database must hold each
write whose hand-off completed exactly once. Every process is started by
the test and stopped by its PID.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.hooks.outbox import Outbox
from signet_sdk.hooks.sender import outbox_sender
from signet_sdk.testing import free_port
from signet_sdk.wire.config import resolve_config

from ..fault_support import FaultProxy

SIGNET_SDK = str(Path(sys.executable).parent / "signet-sdk")


class DevDaemon:
    """``signet-sdk dev-daemon`` on a fixed port and database, killable and restartable."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [SIGNET_SDK, "dev-daemon", "--port", str(self.port), "--db", str(self.db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # "listening on ..." once it accepts
        assert b"listening on" in line, line

    def kill(self) -> None:
        if self.proc is not None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
            self.proc = None


@pytest.fixture
def dev_daemon(tmp_path: Path) -> Iterator[DevDaemon]:
    daemon = DevDaemon(tmp_path / "daemon.sqlite3")
    daemon.start()
    try:
        yield daemon
    finally:
        daemon.stop()
        daemon.kill()


def stored(db: Path) -> Counter[str]:
    """Each memory's text and how many rows hold it."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT content FROM memories WHERE is_deleted = 0").fetchall()
    return Counter(str(r[0]) for r in rows)


def write(i: int) -> tuple[str, dict[str, Any]]:
    if i % 2:
        return "remember", {"content": f"kill-test fact number {i}"}
    return "compaction_complete", {"sessionKey": f"kill-{i}", "summary": f"kill-test summary {i}"}


def flush_all(outbox: Outbox, url: str) -> None:
    send = outbox_sender(resolve_config(url, env={}))
    end = time.monotonic() + 60
    while outbox.pending() and time.monotonic() < end:
        outbox.flush(lambda e, b: send(e, b, timeout=5.0), deadline=time.monotonic() + 5)
    assert outbox.pending() == []


def test_daemon_killed_and_restarted_during_1000_writes(
    tmp_path: Path, dev_daemon: DevDaemon
) -> None:
    outbox = Outbox(tmp_path / "outbox", settle=0.3)
    send = outbox_sender(resolve_config(dev_daemon.url, max_retries=0, env={}))
    # Every fifth write goes through a proxy that holds the daemon's answer past the
    # send's timeout: the daemon stored it, the sender cannot know (a slow daemon).
    slow = FaultProxy(("127.0.0.1", dev_daemon.port), mode="slow", delay=0.5)
    send_slow = outbox_sender(resolve_config(slow.url, max_retries=0, env={}))
    handed_off: list[str] = []
    lock = threading.Lock()
    writers_done = threading.Event()
    rng = random.Random(1)

    def writer(numbers: range) -> None:
        for i in numbers:
            action, body = write(i)
            entry = outbox.put(action, body, harness="kill-test")
            with lock:
                handed_off.append(str(body.get("content") or body.get("summary")))
            via = send_slow if i % 5 == 0 else send
            outbox.deliver(entry.id, lambda e, b: via(e, b, timeout=0.3))  # noqa: B023
            time.sleep(0.02)  # a pace at which the daemon dies several times meanwhile

    kills = 0

    def killer() -> None:
        nonlocal kills
        while not writers_done.is_set():
            time.sleep(rng.uniform(0.05, 0.25))
            dev_daemon.kill()
            kills += 1
            time.sleep(rng.uniform(0.0, 0.1))
            dev_daemon.start()

    threads = [threading.Thread(target=writer, args=(range(k, 1000, 4),)) for k in range(4)]
    chaos = threading.Thread(target=killer)
    chaos.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writers_done.set()
    chaos.join()
    slow.close()
    in_doubt = [e for e in outbox.pending() if outbox.in_doubt_for(e) is not None]
    flush_all(outbox, dev_daemon.url)
    dev_daemon.stop()

    counts = stored(dev_daemon.db)
    assert kills >= 3 and in_doubt  # the daemon died mid-write, more than once
    assert len(handed_off) == 1000
    assert sorted(set(handed_off) - set(counts)) == []  # none lost
    assert {text: n for text, n in counts.items() if n > 1} == {}  # none twice
    assert sum(counts.values()) == 1000
    assert not (tmp_path / "outbox" / "dead").exists()


def test_hook_processes_killed_at_random_points(tmp_path: Path, dev_daemon: DevDaemon) -> None:
    state = tmp_path / "state"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(state),
        "SIGNET_DAEMON_URL": dev_daemon.url,
        "SIGNET_OUTBOX_FLUSH_SECONDS": "0",  # detached senders exit at once: we flush below
        "SIGNET_BREAKER_FAILURES": "0",
    }
    rng = random.Random(2)
    sent: list[str] = []
    for i in range(40):
        action, body = write(i)
        sent.append(str(body.get("content") or body.get("summary")))
        event = "remember" if action == "remember" else "compaction-complete"
        proc = subprocess.Popen(
            [SIGNET_SDK, "hook", "kill-test", event],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(body).encode())
        proc.stdin.close()
        time.sleep(rng.uniform(0.0, 0.25))
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    outbox = Outbox(state / "signet-sdk" / "outbox", settle=0.3)
    queued = []
    for entry_id in outbox.pending():
        record = json.loads((Path(outbox.root) / f"{entry_id}.json").read_text())
        queued.append(str(record["body"].get("content") or record["body"].get("summary")))
    before = stored(dev_daemon.db)
    flush_all(outbox, dev_daemon.url)
    dev_daemon.stop()

    counts = stored(dev_daemon.db)
    handed_off = set(queued) | set(before)  # in the outbox, or already taken
    assert handed_off <= set(counts)  # none lost
    assert set(counts) <= set(sent)
    assert {text: n for text, n in counts.items() if n > 1} == {}  # none twice
    assert len(handed_off) >= 10  # the kills did not all land before the hand-off
