"""The server's daemon pool: one aiohttp session on asyncio, shared by every client."""

from __future__ import annotations

import aiohttp
import httpx
import pytest

from signet_sdk import AsyncAdapterClient, UserPromptSubmitParams
from signet_sdk.server import RuntimeAdapterServer
from signet_sdk.server.pool import close_pool, daemon_pool
from signet_sdk.wire.errors import APITimeoutError, NotSentError

from .server_support import make_client, stand_in_daemon

pytestmark = pytest.mark.anyio


def test_outside_an_event_loop_the_pool_is_plain_httpx() -> None:
    pool = daemon_pool()
    assert type(pool) is httpx.AsyncClient


async def test_clients_share_the_aiohttp_session_and_failures_are_the_sdk_errors() -> None:
    pool = daemon_pool()
    assert isinstance(pool, aiohttp.ClientSession)
    try:
        with stand_in_daemon() as daemon:
            one = AsyncAdapterClient("a", daemon.url, http_client=pool, max_retries=0)
            two = AsyncAdapterClient("b", daemon.url, http_client=pool, max_retries=0)
            assert (
                await one.on_user_prompt_submit(
                    UserPromptSubmitParams(session_key="s", user_message="q")
                )
            ).memory_count == 1
            assert (
                await two.on_user_prompt_submit(
                    UserPromptSubmitParams(session_key="s", user_message="q")
                )
            ).memory_count == 1
            await one.aclose()  # a client never closes a pool it was given
            assert not pool.closed
            assert (
                await two.on_user_prompt_submit(
                    UserPromptSubmitParams(session_key="s", user_message="q")
                )
            ).memory_count == 1
        with pytest.raises(NotSentError):
            await two.on_user_prompt_submit(
                UserPromptSubmitParams(session_key="s", user_message="q")
            )
        with stand_in_daemon(delay=1.0) as slow:
            late = AsyncAdapterClient("c", slow.url, http_client=pool, max_retries=0, timeout=0.2)
            with pytest.raises(APITimeoutError):
                await late.on_user_prompt_submit(
                    UserPromptSubmitParams(session_key="s", user_message="q")
                )
    finally:
        await close_pool(pool)
    assert pool.closed


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


async def test_a_write_never_rides_a_kept_alive_connection_and_the_twin_closes_with_it() -> None:
    """A daemon that drops a request sent on a reused connection (as Bun's servers can)."""
    from ..client.client_support import Reply, running_daemon

    with running_daemon() as daemon:
        daemon.drops_reused = True
        daemon.route("GET", "/health", Reply(200, {"status": "healthy", "version": "0.109.15"}))
        stored = {"id": "m-1", "type": "fact", "content": "deploys go blue-green"}
        daemon.route("POST", "/api/hooks/remember", Reply(200, stored))
        server = RuntimeAdapterServer(daemon.url, max_retries=0)
        async with make_client(server) as client:
            assert (await client.get("/health")).json()["daemon"]["reachable"] is True
            for _ in range(3):
                got = await client.post(
                    "/v1/h/lifecycle/remember", json={"content": "deploys go blue-green"}
                )
                assert got.status_code == 200 and got.json()["id"] == "m-1"
        twin = server._pool.unpooled
        await server.aclose()
    assert len(daemon.calls("/api/hooks/remember")) == 3 and not daemon.dropped
    assert twin is not None and twin.closed
