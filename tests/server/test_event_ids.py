"""``X-Signet-Event-Id``: one native event, one id, from a shim's transport to the outbox.

The server stores an event's writes under ids made from the header (so the hook
process a shim falls back to, given the same id, finds them), answers 422
naming the header for an id of another shape, and runs an id it has already run
as a repeat: a client that lost the answer and sent the event again stores
nothing twice. Both ways into the app are checked: ``.asgi`` (the fast path
``signet-sdk serve`` runs) and ``.fastapi`` (the documented route, for a
mounted app).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from signet_sdk.server import RuntimeAdapterServer
from signet_sdk.testing.mock_daemon import MockDaemon

pytestmark = pytest.mark.anyio

EVENT_ID = "01795000000000000000-0123456789abcdef"
COMPACTED = {
    "messageCount": 2,
    "compactedCount": 2,
    "summary": "## Decisions\nAtlas deploys go through make ship.",
    "ctx": {"agentId": "main", "sessionKey": "agent:main:ids", "sessionId": "ids-1"},
    "carry": {"started": True},
}
ROUTE = "/v1/openclaw/events/after_compaction"


def _client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:3851", timeout=30
    )


def _apps(server: RuntimeAdapterServer) -> dict[str, Any]:
    return {"asgi": server.asgi, "fastapi": server.fastapi}


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("way", ["asgi", "fastapi"])
async def test_an_events_writes_are_stored_under_its_id(private_state: Path, way: str) -> None:
    server = RuntimeAdapterServer(f"http://127.0.0.1:{_closed_port()}", max_retries=0)
    async with _client(_apps(server)[way]) as client:
        answer = await client.post(ROUTE, json=COMPACTED, headers={"X-Signet-Event-Id": EVENT_ID})
    await server.aclose()
    assert answer.status_code == 200
    assert answer.json()["pending"] == [f"{EVENT_ID}-compaction_complete"]
    outbox = private_state / "signet-sdk" / "outbox"
    assert [p.name for p in outbox.glob("*.json")] == [f"{EVENT_ID}-compaction_complete.json"]


@pytest.mark.parametrize("way", ["asgi", "fastapi"])
@pytest.mark.parametrize("bad", ["", "17", "01795000000000000000-../../x", "x" * 40])
async def test_an_event_id_of_another_shape_is_422_naming_the_header(
    private_state: Path, way: str, bad: str
) -> None:
    server = RuntimeAdapterServer(f"http://127.0.0.1:{_closed_port()}", max_retries=0)
    async with _client(_apps(server)[way]) as client:
        answer = await client.post(ROUTE, json=COMPACTED, headers={"X-Signet-Event-Id": bad})
    await server.aclose()
    assert answer.status_code == 422
    assert answer.json() == {
        "error": "x-signet-event-id: must be <unix time in ns, 20 digits>-<8 to 64 letters "
        "or digits>",
        "field": "x-signet-event-id",
    }
    assert not (private_state / "signet-sdk" / "outbox").exists()  # nothing was run


async def test_an_event_sent_again_with_its_id_is_stored_once(
    private_state: Path, daemon: tuple[MockDaemon, str]
) -> None:
    mock, url = daemon
    server = RuntimeAdapterServer(url)
    outbox = private_state / "signet-sdk" / "outbox"
    headers = {"X-Signet-Event-Id": EVENT_ID}
    async with _client(server.asgi) as client:
        first = await client.post(ROUTE, json=COMPACTED, headers=headers)
        end = time.monotonic() + 10  # the detached write is delivered in the background
        while list(outbox.glob("*.json")) and time.monotonic() < end:
            await _sleep(0.02)
        assert mock.requests_to("/api/hooks/compaction-complete")
        again = await client.post(ROUTE, json=COMPACTED, headers=headers)
        other = await client.post(
            ROUTE, json=COMPACTED, headers={"X-Signet-Event-Id": EVENT_ID[:-1] + "0"}
        )
    await server.aclose()
    assert first.status_code == again.status_code == other.status_code == 200
    # The event sent again is a repeat: its summary is found, not stored again.
    # Another event with the same summary is another compaction: stored.
    assert mock.memory_count() == 2
    assert len(mock.requests_to("/api/hooks/compaction-complete")) == 2
    assert list(outbox.glob("*.json")) == []


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)
