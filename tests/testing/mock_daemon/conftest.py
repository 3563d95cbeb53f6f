"""Fixtures for the mock daemon tests: a daemon on a frozen clock and a client.

The clock starts at 2026-04-30T12:00:00Z and only moves when a test calls
``daemon.advance``, so every lifetime (4 h claims, 30 min tombstones) is
tested without sleeping and every timestamp is predictable. A test (or a
module's ``pytestmark``) passes further ``MockDaemon`` options with
``@pytest.mark.daemon(version="0.110")``; without one the daemon is 0.109 (the
mock's default is the newest release line, 0.145).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

T0 = 1_777_550_400.0  # 2026-04-30T12:00:00.000Z
T0_ISO = "2026-04-30T12:00:00.000Z"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "daemon(**options): MockDaemon options for the test")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def daemon(request: pytest.FixtureRequest) -> Iterator[MockDaemon]:
    options = request.node.get_closest_marker("daemon")
    # These tests pin TS 0.109's answers byte for byte; 0.145's are asked for by marker.
    kwargs = {"version": "0.109", **(options.kwargs if options else {})}
    d = MockDaemon(clock=lambda: T0, **kwargs)
    yield d
    d.close()


@pytest.fixture
async def client(daemon: MockDaemon) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=daemon)
    async with httpx.AsyncClient(transport=transport, base_url="http://daemon") as c:
        yield c


class Stager:
    """Writes transcript files (mode 0600) into a private dir under /tmp/signet."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory

    def __call__(self, name: str, text: str | bytes) -> str:
        path = self.dir / name
        data = text.encode("utf-8") if isinstance(text, str) else text
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return str(path)


@pytest.fixture
def stage() -> Iterator[Stager]:
    """Stage transcript files under /tmp/signet (cleaned up afterwards)."""
    root = Path("/tmp/signet")
    root.mkdir(mode=0o700, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="mock-daemon-", dir=root))
    os.chmod(path, 0o700)
    yield Stager(path)
    shutil.rmtree(path, ignore_errors=True)
