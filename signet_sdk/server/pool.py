"""The server's one daemon pool, shared by every client the server makes.

On asyncio (uvicorn's loop, uvloop included) it is an ``aiohttp.ClientSession``
set up by :func:`signet_sdk.client.io.aiohttp_session`: the async clients
send straight through it, with no httpx objects in between. On another
event loop it is an ``httpx.AsyncClient`` with the SDK's pool limits. The
requests and the errors are the same either way (the clients' I/O objects
see to that).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

    import aiohttp

    from signet_sdk.client.async_client import AsyncAdapterClient
    from signet_sdk.client.io import AsyncHTTPClient

__all__ = ["SharedPool", "close_pool", "daemon_pool", "unpooled_twin"]


def daemon_pool() -> AsyncHTTPClient:
    """The shared pool for the running event loop (call it inside the loop)."""
    try:
        import sniffio

        on_asyncio = sniffio.current_async_library() == "asyncio"
    except Exception:  # no event loop, or one sniffio does not know
        on_asyncio = False
    if on_asyncio:
        from signet_sdk.client.io import aiohttp_session

        return aiohttp_session()
    import httpx

    from signet_sdk.client.io import KEEPALIVE_SECONDS, MAX_CONNECTIONS

    limits = httpx.Limits(
        max_connections=MAX_CONNECTIONS,
        max_keepalive_connections=MAX_CONNECTIONS,
        keepalive_expiry=KEEPALIVE_SECONDS,
    )
    return httpx.AsyncClient(limits=limits)


def unpooled_twin(pool: AsyncHTTPClient) -> aiohttp.ClientSession | None:
    """For an aiohttp pool, the session the server's clients send a write through (a
    connection of its own each: see :mod:`signet_sdk.client.io`)."""
    import httpx

    if isinstance(pool, httpx.AsyncClient):
        return None  # an httpx pool carries every request as it is set up
    from signet_sdk.client.io import aiohttp_session

    return aiohttp_session(keep_alive=False)


async def close_pool(pool: AsyncHTTPClient) -> None:
    """Close a pool :func:`daemon_pool` made, whichever library it is."""
    import httpx

    if isinstance(pool, httpx.AsyncClient):
        await pool.aclose()
    else:
        await pool.close()


class SharedPool:
    """The server's daemon pool and its twin that keeps no connection, shared by every client.

    Made on the first client (inside the event loop); the pool is ``given``
    when the application passed one, and then only the twin is closed here.
    Nothing is per client, so a client the server's cache drops leaves
    nothing open.
    """

    def __init__(self, given: AsyncHTTPClient | None) -> None:
        self.given = given
        self.http: AsyncHTTPClient | None = given
        self.unpooled: aiohttp.ClientSession | None = None

    def client(
        self, harness: str, daemon_url: str | None, options: Mapping[str, Any]
    ) -> AsyncAdapterClient:
        """A client for ``harness`` on the shared pool (a write through the twin)."""
        from signet_sdk.client.async_client import AsyncAdapterClient
        from signet_sdk.client.io import async_io_for

        if self.http is None:
            self.http = daemon_pool()
        if self.unpooled is None:
            self.unpooled = unpooled_twin(self.http)
        client = AsyncAdapterClient(harness, daemon_url, http_client=self.http, **options)
        if self.unpooled is not None:
            client._io = async_io_for(self.http, own_connections=True, unpooled=self.unpooled)
        return client

    async def aclose(self) -> None:
        """Close what was made here; a pool the application gave stays open."""
        if self.http is not None and self.given is None:
            await close_pool(self.http)
        if self.unpooled is not None:
            await self.unpooled.close()
        self.http, self.unpooled = self.given, None
