"""Fixtures for the agent tool tests: sync and async clients of the on-disk mock daemon."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from signet_sdk import AdapterClient, AsyncAdapterClient
from signet_sdk.testing.mock_daemon import MockDaemon


@pytest.fixture
def client(stored_daemon: tuple[MockDaemon, str]) -> Iterator[AdapterClient]:
    """A client of ``stored_daemon`` (a module may override that fixture, to seed it)."""
    with AdapterClient("agent-tools-test", stored_daemon[1]) as c:
        yield c


@pytest.fixture
async def async_client(stored_daemon: tuple[MockDaemon, str]) -> AsyncIterator[AsyncAdapterClient]:
    """The async client of ``stored_daemon``."""
    async with AsyncAdapterClient("agent-tools-test", stored_daemon[1]) as c:
        yield c
