"""The server's one daemon pool: httpx's client interface, aiohttp's connections when installed.

Every ``AsyncAdapterClient`` the server makes shares this pool. The clients
only ever call ``request(method, url, headers=, content=, timeout=)`` with
a request they built completely (method, URL, every header, the body
bytes), so when aiohttp is installed that one call goes straight to an
``aiohttp.ClientSession``: no httpx ``Request`` is built and no transport
adapter runs, which is most of what a daemon call costs the server. The
answer is an ``httpx.Response`` and failures are httpx's exceptions, so
the client's error mapping (a refused connection is ``NotSentError`` ...)
is unchanged. Anything else (streams, other arguments, no aiohttp, an event
loop other than asyncio) takes httpx's own path.
"""

from __future__ import annotations

import asyncio
from typing import Any, NoReturn

import httpx

from signet_sdk.client.base import POOL_LIMITS

__all__ = ["daemon_pool"]


def daemon_pool() -> httpx.AsyncClient:
    """The shared pool: :class:`_AiohttpPool` on asyncio with aiohttp, else plain httpx."""
    try:
        import aiohttp  # noqa: F401
        import sniffio

        on_asyncio = sniffio.current_async_library() == "asyncio"
    except Exception:  # no aiohttp, no event loop, or one sniffio does not know
        on_asyncio = False
    return _AiohttpPool() if on_asyncio else httpx.AsyncClient(limits=POOL_LIMITS)


class _AiohttpPool(httpx.AsyncClient):
    """``httpx.AsyncClient`` whose plain requests travel over one aiohttp session."""

    def __init__(self) -> None:
        super().__init__(limits=POOL_LIMITS)
        self._session: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _aiohttp_session(self) -> Any:
        import aiohttp

        loop = asyncio.get_running_loop()
        if self._session is not None and not self._session.closed and self._loop is loop:
            return self._session
        connector = aiohttp.TCPConnector(
            limit=POOL_LIMITS.max_connections or 100,
            keepalive_timeout=POOL_LIMITS.keepalive_expiry or 30.0,
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            # The client decided every header; aiohttp adds only Host and Content-Length.
            skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
            auto_decompress=False,  # httpx.Response decodes per Content-Encoding
            timeout=aiohttp.ClientTimeout(total=None),
            trust_env=False,
        )
        self._loop = loop
        return self._session

    async def request(  # type: ignore[override]
        self,
        method: str,
        url: httpx.URL | str,
        *,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: httpx.Timeout | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        if kwargs or not isinstance(url, str) or not isinstance(content, bytes | None):
            return await super().request(
                method, url, content=content, headers=headers, timeout=timeout, **kwargs
            )
        from yarl import URL

        from signet_sdk.client.aiohttp_transport import _client_timeout

        extensions = {"timeout": (timeout or httpx.Timeout(None)).as_dict()}
        session = self._aiohttp_session()
        try:
            async with session.request(
                method,
                URL(url, encoded=True),
                headers=headers,
                data=content,
                allow_redirects=False,
                timeout=_client_timeout(extensions),
            ) as answer:
                body = await answer.read()
        except Exception as exc:
            _as_httpx_error(method, url, exc)
        return httpx.Response(answer.status, headers=answer.raw_headers, content=body)

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()
        await super().aclose()


def _as_httpx_error(method: str, url: str, exc: Exception) -> NoReturn:
    """Raise an aiohttp failure as the httpx exception the client maps (the transport's rules)."""
    from signet_sdk.client.aiohttp_transport import _as_httpx_errors

    with _as_httpx_errors(httpx.Request(method, url)):
        raise exc
    raise exc  # not an aiohttp failure: as it was
