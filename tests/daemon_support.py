"""Waiting for a daemon started as a child process to take connections.

A child prints its banner before its server accepts; the tests that start
one (``signet-sdk dev-daemon``) poll ``/health`` until it answers.
"""

from __future__ import annotations

import time

import httpx


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
