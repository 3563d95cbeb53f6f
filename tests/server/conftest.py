"""Fixtures for the adapter server: a mock daemon, the app in-process, a private state dir."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from signet_sdk.server import RuntimeAdapterServer
from signet_sdk.testing.mock_daemon import MockDaemon

from .server_support import make_client


@pytest.fixture(autouse=True)
def private_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(os.environ):
        if key.startswith(("SIGNET_", "CLAUDE_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SIGNET_OUTBOX_FLUSH_SECONDS", "0")  # detached senders give up at once
    return tmp_path / "state"


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[MockDaemon, str]]:
    mock = MockDaemon(db_path=tmp_path / "daemon.sqlite3", version="0.109")  # prompt recall
    with mock.serve() as handle:
        yield mock, handle.url


@pytest.fixture
async def served(daemon: tuple[MockDaemon, str]) -> AsyncIterator[httpx.AsyncClient]:
    server = RuntimeAdapterServer(daemon[1], allowed_hosts=["127.0.0.1:3851"])
    async with make_client(server) as client:
        yield client
    await server.aclose()
