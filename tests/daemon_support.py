"""Helpers for tests that talk to a (mock) daemon.

Waiting for a daemon started as a child process to take connections: a
child prints its banner before its server accepts, so the tests that start
one (``signet-sdk dev-daemon``) poll ``/health`` until it answers, and stop
it with :func:`signet_sdk.testing.stop_process`. And reading back the one
memory a tool call stored.
"""

from __future__ import annotations

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


def only_memory_stored(daemon: MockDaemon, body: dict[str, object]) -> str:
    """The id of the one memory ``daemon`` was asked to remember, asked with exactly ``body``."""
    (remember,) = daemon.requests_to("/api/memory/remember")
    assert remember.json == body
    memory_id: str = remember.response_json["id"]
    return memory_id
