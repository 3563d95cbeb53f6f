"""Fixtures for the runtime's tests: a private state folder and a mock daemon on a socket."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from signet_sdk.testing.mock_daemon import MockDaemon


@pytest.fixture
def agent_env(tmp_path: Path) -> dict[str, str]:
    """The environment a session runs with: its own HOME and state folder, no SIGNET_*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    home = tmp_path / "home"
    home.mkdir()
    env.update(
        HOME=str(home),
        XDG_STATE_HOME=str(tmp_path / "state"),
        # A detached outbox sender started by a test gives up quickly.
        SIGNET_OUTBOX_FLUSH_SECONDS="2",
    )
    return env


@pytest.fixture
def mock_daemon() -> Iterator[tuple[MockDaemon, str]]:
    """The mock daemon (0.145's answers) on a free 127.0.0.1 port: (daemon, url)."""
    daemon = MockDaemon()
    with daemon.serve() as handle:
        yield daemon, handle.url
    daemon.close()
