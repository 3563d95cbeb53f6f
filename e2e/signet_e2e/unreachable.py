"""Daemons that fail: one that is down, one that takes connections and never answers.

Every hook and runtime path must fail open against both: the harness's
turn goes on, the write waits in the outbox, and a silent daemon costs no
more than the hook's own deadline.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

from signet_sdk.testing import free_port

__all__ = ["SHORT_DEADLINES", "down_daemon_url", "silent_daemon"]

#: Every hook's deadline at 1 s: against a silent daemon a turn waits that long,
#: not the harness's own (much longer) hook timeouts.
SHORT_DEADLINES = {
    "SIGNET_SESSION_START_TIMEOUT": "1000",
    "SIGNET_PROMPT_SUBMIT_TIMEOUT": "1000",
    "SIGNET_FETCH_TIMEOUT": "1000",
}


def down_daemon_url() -> str:
    """A daemon URL on 127.0.0.1 where nothing listens: a daemon that is down."""
    return f"http://127.0.0.1:{free_port()}"


@contextmanager
def silent_daemon() -> Iterator[str]:
    """The URL of a socket on 127.0.0.1 that accepts connections and never answers them."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)  # connections complete in the backlog; nothing ever answers
        yield f"http://127.0.0.1:{silent.getsockname()[1]}"
