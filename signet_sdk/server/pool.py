"""The server's one daemon pool, shared by every client the server makes.

On asyncio (uvicorn's loop, uvloop included) it is an ``aiohttp.ClientSession``
set up by :func:`signet_sdk.client.io.aiohttp_session`: the async clients
send straight through it, with no httpx objects in between. On another
event loop it is an ``httpx.AsyncClient`` with the SDK's pool limits. The
requests and the errors are the same either way (the clients' I/O objects
see to that).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import aiohttp

    from signet_sdk.client.io import AsyncHTTPClient

__all__ = ["close_pool", "daemon_pool", "unpooled_twin"]


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
    """For an aiohttp pool, the session the server's clients send a request not safe to
    repeat through (a connection of its own each: see :mod:`signet_sdk.client.io`)."""
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
