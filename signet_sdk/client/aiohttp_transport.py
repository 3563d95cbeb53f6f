"""An httpx transport that moves bytes with aiohttp instead of httpcore.

The async client speaks httpx everywhere, so swapping the wire layer must
not change anything above it: the request that leaves is the one httpx
built (aiohttp adds no headers of its own, keeps no cookies, follows no
redirects and leaves compressed bodies for httpx to decode), and every
aiohttp failure surfaces as the httpx exception the SDK's error mapping
already understands. A connect failure must stay an ``httpx.ConnectError``
in particular, because that is what tells the retry logic nothing was sent.

aiohttp is an optional extra and is imported here only; ``import signet_sdk``
never loads this module.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import contextmanager
from ssl import SSLContext
from typing import Any

import httpx

try:
    import aiohttp
    from yarl import URL
except ImportError as exc:
    raise ImportError(
        "AiohttpTransport needs aiohttp, which is not installed: pip install 'signet-sdk[aiohttp]'"
    ) from exc

__all__ = ["AiohttpTransport"]

#: Headers aiohttp would otherwise invent. httpx already decided every header
#: of the request; a second opinion would make the two transports send
#: different bytes for the same call.
_NO_AUTO_HEADERS = ("User-Agent", "Accept", "Accept-Encoding", "Content-Type")


@contextmanager
def _as_httpx_errors(request: httpx.Request) -> Iterator[None]:
    """Re-raise aiohttp failures as the httpx exception for the same situation.

    Order matters: aiohttp's timeout classes are also connection errors, and
    its connector errors are also OS errors, so the specific cases come first.
    A connect timeout also covers waiting for a free pooled connection, which
    aiohttp does not tell apart; both mean nothing was sent.
    """
    try:
        yield
    except aiohttp.ConnectionTimeoutError as exc:
        raise httpx.ConnectTimeout(str(exc) or "connect timed out", request=request) from exc
    except aiohttp.ClientConnectorError as exc:
        raise httpx.ConnectError(str(exc), request=request) from exc
    except TimeoutError as exc:  # SocketTimeoutError, ServerTimeoutError, and bare timeouts
        raise httpx.ReadTimeout(str(exc) or "read timed out", request=request) from exc
    except (aiohttp.InvalidURL, aiohttp.NonHttpUrlClientError) as exc:
        raise httpx.UnsupportedProtocol(str(exc), request=request) from exc
    except (
        aiohttp.ServerDisconnectedError,
        aiohttp.ClientPayloadError,
        aiohttp.ClientResponseError,
    ) as exc:
        raise httpx.RemoteProtocolError(str(exc) or type(exc).__name__, request=request) from exc
    except aiohttp.ClientConnectionError as exc:
        raise httpx.ReadError(str(exc) or type(exc).__name__, request=request) from exc
    except aiohttp.ClientError as exc:
        raise httpx.RemoteProtocolError(str(exc) or type(exc).__name__, request=request) from exc


def _client_timeout(extensions: Mapping[str, Any]) -> aiohttp.ClientTimeout:
    """Translate httpx's per-request timeout into aiohttp's vocabulary.

    aiohttp bounds "get a connection" as one step (waiting for a pool slot
    plus opening a socket), so it gets httpx's pool and connect budgets added
    together. aiohttp has no write timeout; a request body is bounded by the
    read timeout that follows it.
    """
    timeout: Mapping[str, float | None] = extensions.get("timeout") or {}
    connect = timeout.get("connect")
    pool = timeout.get("pool")
    acquire = None if connect is None or pool is None else connect + pool
    return aiohttp.ClientTimeout(
        total=None, connect=acquire, sock_connect=connect, sock_read=timeout.get("read")
    )


class _ResponseBody(httpx.AsyncByteStream):
    """Hands httpx the body as it arrives, so event streams stay streams."""

    def __init__(self, response: aiohttp.ClientResponse, request: httpx.Request) -> None:
        self._response = response
        self._request = request
        self._complete = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors(self._request):
            async for chunk in self._response.content.iter_any():
                yield chunk
        self._complete = True

    async def aclose(self) -> None:
        # A fully read response returns its connection to the pool; one the
        # caller abandoned half-way has unread bytes on the socket, which
        # would corrupt the next request, so that connection is dropped.
        if self._complete:
            self._response.release()
        else:
            self._response.close()


class AiohttpTransport(httpx.AsyncBaseTransport):
    """Sends httpx requests through one shared ``aiohttp.ClientSession``.

    Pass it as ``httpx.AsyncClient(transport=AiohttpTransport())`` and that
    client to ``AsyncAdapterClient(http_client=...)``. The session is created
    on first use because aiohttp binds it to the running event loop; a
    transport therefore belongs to the loop that first used it (asyncio only).

    ``limit`` caps open connections in total (aiohttp's default, 100), so 64
    concurrent calls each get their own connection. ``keepalive_timeout``
    matches the SDK's default httpx pool. TLS settings go in ``ssl`` because
    the httpx client's ``verify`` does not reach a custom transport.
    """

    def __init__(
        self,
        *,
        limit: int = 100,
        limit_per_host: int = 0,
        keepalive_timeout: float = 30.0,
        ssl: SSLContext | bool = True,
    ) -> None:
        if limit < 0 or limit_per_host < 0:
            raise ValueError("limit and limit_per_host must be zero (no cap) or more")
        self._limit = limit
        self._limit_per_host = limit_per_host
        self._keepalive_timeout = keepalive_timeout
        self._ssl = ssl
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _session_for_this_loop(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        session = self._session
        if session is not None and not session.closed:
            if self._loop is not loop:
                raise RuntimeError(
                    "AiohttpTransport is bound to the event loop that first used it; "
                    "create one transport (and httpx.AsyncClient) per event loop"
                )
            return session
        connector = aiohttp.TCPConnector(
            limit=self._limit,
            limit_per_host=self._limit_per_host,
            keepalive_timeout=self._keepalive_timeout,
            ssl=self._ssl,
        )
        session = aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),  # httpx keeps the cookies
            skip_auto_headers=_NO_AUTO_HEADERS,
            auto_decompress=False,  # httpx decodes per Content-Encoding
            timeout=aiohttp.ClientTimeout(total=None),
            trust_env=False,  # proxies are httpx's decision, made before us
        )
        self._session, self._loop = session, loop
        return session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        session = self._session_for_this_loop()
        body = await request.aread()
        # httpx marks a streamed body as chunked; it is bytes by now, so
        # aiohttp sends it with a Content-Length instead.
        headers = [
            (name, value)
            for name, value in request.headers.multi_items()
            if name.lower() != "transfer-encoding"
        ]
        with _as_httpx_errors(request):
            response = await session.request(
                request.method,
                URL(str(request.url), encoded=True),
                headers=headers,
                data=body or None,
                allow_redirects=False,
                timeout=_client_timeout(request.extensions),
            )
        version = response.version
        return httpx.Response(
            status_code=response.status,
            headers=response.raw_headers,
            stream=_ResponseBody(response, request),
            extensions={
                "http_version": f"HTTP/{version.major}.{version.minor}".encode()
                if version
                else b"HTTP/1.1",
                "reason_phrase": (response.reason or "").encode("latin-1", "replace"),
            },
        )

    async def aclose(self) -> None:
        session, self._session, self._loop = self._session, None, None
        if session is not None and not session.closed:
            await session.close()
