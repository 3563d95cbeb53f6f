"""Fixtures for the runtime's tests: the mock daemon on a socket (``agent_env`` is shared)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from signet_sdk.testing.mock_daemon import MockDaemon


@pytest.fixture
def mock_daemon() -> Iterator[tuple[MockDaemon, str]]:
    """The mock daemon (0.145's answers) on a free 127.0.0.1 port: (daemon, url)."""
    daemon = MockDaemon()
    with daemon.serve() as handle:
        yield daemon, handle.url
    daemon.close()
