"""The server's daemon pool: aiohttp under httpx's interface, failures as httpx's exceptions."""

from __future__ import annotations

import httpx
import pytest
from server_support import make_client, stand_in_daemon

from signet_sdk.server import RuntimeAdapterServer
from signet_sdk.server.pool import _AiohttpPool, daemon_pool

pytestmark = pytest.mark.anyio


def test_outside_an_event_loop_the_pool_is_plain_httpx() -> None:
    pool = daemon_pool()
    assert type(pool) is httpx.AsyncClient


async def test_plain_requests_travel_over_aiohttp_and_failures_stay_httpx_errors() -> None:
    pool = daemon_pool()
    assert isinstance(pool, _AiohttpPool)
    try:
        with stand_in_daemon() as daemon:
            answer = await pool.request(
                "POST",
                f"{daemon.url}/api/hooks/recall",
                headers={"content-type": "application/json", "x-test": "1"},
                content=b"{}",
                timeout=httpx.Timeout(5.0),
            )
            assert answer.status_code == 200 and answer.json()["memoryCount"] == 1
            refused_url = daemon.url
        with pytest.raises(httpx.ConnectError):
            await pool.request("POST", refused_url, content=b"{}", timeout=httpx.Timeout(2.0))
        with stand_in_daemon(delay=1.0) as slow, pytest.raises(httpx.ReadTimeout):
            await pool.request("POST", slow.url, content=b"{}", timeout=httpx.Timeout(0.2))
    finally:
        await pool.aclose()


async def test_a_daemon_slower_than_the_timeout_is_a_504_on_lifecycle_routes() -> None:
    with stand_in_daemon(delay=1.0) as daemon:
        server = RuntimeAdapterServer(daemon.url, max_retries=0, timeout=0.2)
        async with make_client(server) as client:
            answer = await client.post("/v1/h/lifecycle/recall", json={"query": "q"})
        await server.aclose()
    assert answer.status_code == 504 and "in time" in answer.json()["error"]


async def test_health_reads_the_daemon_through_the_pool() -> None:
    with stand_in_daemon() as daemon:
        server = RuntimeAdapterServer(daemon.url, max_retries=0)
        async with make_client(server) as client:
            body = (await client.get("/health")).json()
        await server.aclose()
    assert body["daemon"]["reachable"] is True and body["daemon"]["version"] == "stand-in"
