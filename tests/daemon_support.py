"""Helpers for tests that talk to a (mock) daemon.

Waiting for a daemon started as a child process to take connections: a
child prints its banner before its server accepts, so the tests that start
one (``signet-sdk dev-daemon``) poll ``/health`` until it answers. Stopping
such a child the way a service manager would. And reading back the one
memory a tool call stored.
"""

from __future__ import annotations

import signal
import subprocess
import time

import httpx

from signet_sdk.testing.mock_daemon import MockDaemon


def wait_for_health(url: str, attempts: int = 200) -> None:
    """Poll ``url``'s ``/health`` every 20 ms until it answers, ``attempts`` times at most.

    Gives up silently: the test's next request then fails with the reason.
    """
    for _ in range(attempts):
        try:
            httpx.get(f"{url}/health", timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.02)


def stop_child(proc: subprocess.Popen[str], grace: float = 15) -> None:
    """SIGTERM ``proc`` and wait for it; SIGKILL it if it is still there after ``grace`` s.

    A clean shutdown is what the tests exercise; the kill only keeps a stuck
    child from outliving the test run.
    """
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


def only_memory_stored(daemon: MockDaemon, body: dict[str, object]) -> str:
    """The id of the one memory ``daemon`` was asked to remember, asked with exactly ``body``."""
    (remember,) = daemon.requests_to("/api/memory/remember")
    assert remember.json == body
    memory_id: str = remember.response_json["id"]
    return memory_id
