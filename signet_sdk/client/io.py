# long module: one I/O object per HTTP library, kept side by side so that they stay alike
"""How the clients move bytes: one small I/O object per HTTP library.

The clients plan every request and judge every answer themselves
(:mod:`signet_sdk.client.base`); an I/O object only sends a
:class:`~signet_sdk.wire.request.PreparedRequest` and gives back the status,
headers and body, turning its library's failures into the SDK's error tree.
So the bytes on the wire and the errors raised are the same whichever
library carries them:

* :class:`AiohttpIO`: the async default. aiohttp straight, no httpx in
  between: a call costs a few microseconds more than raw aiohttp, where
  httpx's request and response objects and httpcore's pool cost several
  times the call itself (``bench/bench_client.py``). Its deadline covers the
  whole call, so an answer that trickles in cannot hold a call past it.
* :class:`AsyncHttpxIO`: an ``httpx.AsyncClient`` the caller passes (to share
  a pool, use an ASGI app or mock with respx).
* :class:`HttpxIO`: the sync client's, on ``httpx.Client``; its own pool
  keeps the whole call's deadline across reads (:func:`httpx_transport`).

The daemon clients send a write (``Endpoint.writes``: what it stores could
otherwise be lost or stored twice) on a connection of its own, closed after
the answer, and everything else on kept-alive connections. The daemon runs
on Bun, whose HTTP servers can close a kept-alive connection with a request
just received on it unanswered and its handler never run (oven-sh/bun#31889,
#42212; seen here against 0.109.15 in about 1 run in 15 of the real-daemon
scenario on a loaded machine). A read that meets that is sent again; a write
could only fail "in doubt", though nothing was stored. Session start, a
prompt and pre-compaction stay on kept-alive connections: they are on every
turn's path, where a connect cost each prompt 0.2 to 0.5 ms and the adapter
server a fifth of its throughput at 64 concurrent calls (the client and
server benches, run with prompts sent that way), and a hook or the server
fails open on them. With an aiohttp session the caller passes, a write goes
through the ``unpooled`` session given with it (the adapter server's twin of
its pool), else through a session made for it alone and closed with the call
(nothing of the client's may outlive a call on a session others share; about
0.1 ms more). An httpx client the caller passes, which may be an ASGI app or
a mock, carries every request as given.

``import signet_sdk`` does not import aiohttp: :class:`AiohttpIO` loads it
when the first async client is made.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from types import CodeType
from typing import TYPE_CHECKING, Any

from signet_sdk.client.deadline import DEADLINE
from signet_sdk.wire.errors import APIConnectionError, APITimeoutError, NotSentError

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager
    from typing import TypeAlias

    import aiohttp
    import httpx

    from signet_sdk.wire.request import PreparedRequest

    #: What an async client can be given to send with (a pool it shares).
    AsyncHTTPClient: TypeAlias = httpx.AsyncClient | aiohttp.ClientSession
    #: What a sync client can be given to send with.
    HTTPClient: TypeAlias = httpx.Client

__all__ = [
    "KEEPALIVE_SECONDS",
    "MAX_CONNECTIONS",
    "AiohttpIO",
    "AsyncHttpxIO",
    "HttpxIO",
    "aiohttp_session",
    "async_io_for",
    "httpx_transport",
    "io_for",
]

#: Connections a client keeps open at most, and how long an idle one stays.
#: Keep-alive covers every connection that may be open: a pool that closes
#: idle connections beyond a lower cap turns each concurrent burst into new
#: TCP connections.
MAX_CONNECTIONS = 100
KEEPALIVE_SECONDS = 30.0
#: aiohttp rounds a timeout above its ``ceil_threshold`` (5 s) up to the next
#: whole second of the loop's clock, so a 10 s deadline could end 10.99 s in;
#: a deadline here is the caller's, kept to the millisecond.
_NO_ROUNDING = float("inf")

#: Headers httpx adds to every request on its own; the aiohttp I/O sends them
#: too, so that the sync and async clients put the same request on the wire.
SAME_AS_HTTPX = {"accept-encoding": "gzip, deflate", "connection": "keep-alive"}
#: What an I/O object gives back: status, headers, body.
Answer = tuple[int, Mapping[str, str], bytes]
#: Called with a non-2xx answer of a stream; raises its error.
OnError = Callable[[int, Mapping[str, str], bytes], Any]


def _where(request: PreparedRequest) -> tuple[str, dict[str, str]]:
    return f"{request.method} {request.url}", {"method": request.method, "url": request.url}


#: Why a call that timed out before it was sent was not: every transport says it alike.
POOL_FULL = "every connection stayed busy until the deadline"
NO_CONNECTION = "no connection was made before the deadline"
#: The same, by the name of httpx's timeout.
_UNSENT_BECAUSE = {"PoolTimeout": POOL_FULL, "ConnectTimeout": NO_CONNECTION}


def not_sent(request: PreparedRequest, exc: BaseException, why: str | None = None) -> NotSentError:
    """``request`` never left: ``why``, else the words of ``exc`` (a timeout's: its kind)."""
    where, kw = _where(request)
    name = type(exc).__name__
    why = why or _UNSENT_BECAUSE.get(name) or str(exc) or name
    return NotSentError(f"cannot connect to the Signet daemon: {where}: {why}", **kw)


def timed_out(request: PreparedRequest) -> APITimeoutError:
    where, kw = _where(request)
    return APITimeoutError(f"no answer within the deadline: {where}", **kw)


#: Functions an HTTP library waits in for a connection, by their code, each with
#: why a call stopped there was never sent; the first found applies.
Waits = Mapping[CodeType, str]


def unsent_because(exc: BaseException, waits: Waits) -> str | None:
    """Why the call a deadline ended (``exc``, a ``TimeoutError``) sent nothing, or None.

    On asyncio a deadline cancels the call wherever it is, and the timeout it
    raises (asyncio's, or aiohttp's ``total``) does not say where that was:
    waiting for a free connection of a full pool, making one, or awaiting the
    answer. The cancellation it was raised from does: its traceback is the
    stack it unwound. Only a call stopped in one of ``waits`` had sent nothing;
    anywhere else (None) the request may have reached the daemon.
    """
    codes: set[CodeType] = set()
    chain: BaseException | None = exc
    for _ in range(8):  # the timeout raised from the cancellation: a short chain
        if chain is None:
            break
        tb = chain.__traceback__
        while tb is not None:
            codes.add(tb.tb_frame.f_code)
            tb = tb.tb_next
        chain = chain.__cause__
    return next((why for code, why in waits.items() if code in codes), None)


def failed(
    request: PreparedRequest, exc: BaseException, *, unanswered: bool = False
) -> APIConnectionError:
    """A connection that failed once the request was sent; ``unanswered``: it closed
    before any byte of the answer (:func:`signet_sdk.wire.retry.should_retry`)."""
    where, kw = _where(request)
    detail = str(exc) or type(exc).__name__
    error = APIConnectionError(f"connection failed: {where}: {detail}", **kw)
    error.unanswered = unanswered
    return error


# -- httpx ------------------------------------------------------------------------


def _httpx_error(request: PreparedRequest, exc: Exception) -> APIConnectionError:
    import httpx

    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
        return not_sent(request, exc)
    if isinstance(exc, httpx.TimeoutException):
        return timed_out(request)
    # httpcore's words for a connection closed before the answer's first byte.
    said = str(exc)
    unanswered = isinstance(exc, httpx.RemoteProtocolError) and "without sending a response" in said
    return failed(request, exc, unanswered=unanswered)


def _pool_limits(keep_alive: bool = True) -> httpx.Limits:
    import httpx

    return httpx.Limits(
        max_connections=MAX_CONNECTIONS,
        max_keepalive_connections=MAX_CONNECTIONS if keep_alive else 0,
        keepalive_expiry=KEEPALIVE_SECONDS,
    )


def httpx_transport() -> httpx.HTTPTransport:
    """An ``httpx.HTTPTransport`` on which an SDK call ends at its deadline.

    httpx applies a timeout to each read and write; over this transport
    every read, write and connect made during an SDK call is also cut to
    what is left of that call, so a daemon that answers a byte at a time
    cannot hold the call past it. Outside an SDK call it behaves as httpx's
    own transport. The sync client makes its pool with it; pass
    ``httpx.Client(transport=httpx_transport())`` to share a pool and keep
    the guarantee.
    """
    from signet_sdk.client.deadline import deadline_transport

    return deadline_transport(_pool_limits())


def _httpx_arguments(request: PreparedRequest, timeout: httpx.Timeout) -> dict[str, Any]:
    """``request`` as the keyword arguments of httpx's ``request`` and ``stream``, sync or async."""
    return {
        "method": request.method,
        "url": request.url,
        "headers": request.headers,
        "content": request.content,
        "timeout": timeout,
    }


class HttpxIO:
    """The sync client's I/O, on one ``httpx.Client`` (made here unless given).

    The client made here sends over :func:`httpx_transport`: a call ends at its
    deadline whatever the daemon does. A client passed in keeps its transport.
    """

    def __init__(
        self, client: httpx.Client | None = None, *, own_connections: bool = False
    ) -> None:
        import httpx

        self.owned = client is None
        self.client = client or httpx.Client(transport=httpx_transport())
        #: Whether a write gets a connection of its own (the daemon clients'
        #: pools; a pool the caller passed is used as is).
        self.own_connections = own_connections and self.owned
        self._unpooled: httpx.Client | None = None
        #: One writes' client however many threads write first at once (each
        #: would make its own, and only the last would ever be closed).
        self._making = threading.Lock()

    def _client_for(self, request: PreparedRequest) -> httpx.Client:
        if not (self.own_connections and request.endpoint.writes):
            return self.client
        unpooled = self._unpooled
        if unpooled is None:
            with self._making:
                unpooled = self._unpooled
                if unpooled is None:
                    import httpx

                    from signet_sdk.client.deadline import deadline_transport

                    transport = deadline_transport(_pool_limits(keep_alive=False))
                    unpooled = self._unpooled = httpx.Client(transport=transport)
        return unpooled

    def send(self, request: PreparedRequest, timeout: float | None) -> Answer:
        import httpx

        client = self._client_for(request)
        DEADLINE.at = None if timeout is None else time.monotonic() + timeout
        try:
            resp = client.request(**_httpx_arguments(request, httpx.Timeout(timeout)))
        except httpx.HTTPError as exc:
            raise _httpx_error(request, exc) from exc
        finally:
            DEADLINE.at = None
        return resp.status_code, resp.headers, resp.content

    def lines(
        self, request: PreparedRequest, connect_timeout: float | None, on_error: OnError
    ) -> Iterator[str]:
        """The lines of a streamed answer, until the caller stops reading."""
        import httpx

        timeout = httpx.Timeout(None, connect=connect_timeout)
        try:
            with self.client.stream(**_httpx_arguments(request, timeout)) as resp:
                if resp.status_code >= 300:
                    resp.read()
                    on_error(resp.status_code, resp.headers, resp.content)
                yield from resp.iter_lines()
        except httpx.HTTPError as exc:
            raise _httpx_error(request, exc) from exc

    def close(self) -> None:
        if self.owned:
            self.client.close()
        if self._unpooled is not None:
            self._unpooled.close()


def _httpcore_waits() -> Waits:
    """Where httpcore's async pool waits for a free connection, and makes a new one.

    Private names of httpcore 1.0: one it lacks is a wait not known, whose
    timeout stays ``APITimeoutError`` (the request may have been sent).
    """
    import importlib

    import httpcore

    found = {}
    try:
        pool_module: Any = importlib.import_module("httpcore._async.connection_pool")
    except ImportError:
        pool_module = None
    wait = getattr(getattr(pool_module, "AsyncPoolRequest", None), "wait_for_connection", None)
    if wait is not None:
        found[wait.__code__] = POOL_FULL
    connect = getattr(httpcore.AsyncHTTPConnection, "_connect", None)
    if connect is not None:
        found[connect.__code__] = NO_CONNECTION
    return found


class AsyncHttpxIO:
    """The async client's I/O on an ``httpx.AsyncClient`` the caller chose."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.owned = False
        self.client = client

    async def send(self, request: PreparedRequest, timeout: float | None) -> Answer:
        """One call; on asyncio the deadline covers the whole call, not each read."""
        if timeout is None:
            return await self._send(request, timeout)
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # another event loop (trio): httpx's own timeouts only
            return await self._send(request, timeout)
        try:
            async with asyncio.timeout(timeout):
                return await self._send(request, timeout)
        except TimeoutError as exc:
            # This deadline ends a wait for a connection before httpx's own pool
            # or connect timeout could (they start later): where was the call?
            why = unsent_because(exc, _httpcore_waits())
            raise (timed_out(request) if why is None else not_sent(request, exc, why)) from exc

    async def _send(self, request: PreparedRequest, timeout: float | None) -> Answer:
        import httpx

        try:
            resp = await self.client.request(**_httpx_arguments(request, httpx.Timeout(timeout)))
        except httpx.HTTPError as exc:
            raise _httpx_error(request, exc) from exc
        return resp.status_code, resp.headers, resp.content

    async def lines(
        self, request: PreparedRequest, connect_timeout: float | None, on_error: OnError
    ) -> AsyncIterator[str]:
        """The lines of a streamed answer, until the caller stops reading."""
        import httpx

        timeout = httpx.Timeout(None, connect=connect_timeout)
        try:
            async with self.client.stream(**_httpx_arguments(request, timeout)) as resp:
                if resp.status_code >= 300:
                    await resp.aread()
                    on_error(resp.status_code, resp.headers, resp.content)
                async for line in resp.aiter_lines():
                    yield line
        except httpx.HTTPError as exc:
            raise _httpx_error(request, exc) from exc

    async def aclose(self) -> None:
        """The caller's client stays open: the caller owns it."""


# -- aiohttp ----------------------------------------------------------------------


class AiohttpIO:
    """The async default: one ``aiohttp.ClientSession``, made on first use unless given.

    aiohttp binds a session to the event loop it was made in, so the session
    is made by the first call and belongs to that loop; a client used from
    another loop gets a clear error instead of a hang. The session sends
    exactly the headers the SDK decided (no automatic ones), keeps no
    cookies, follows no redirects and ignores proxy variables, as the httpx
    clients do.
    """

    def __init__(
        self,
        session: aiohttp.ClientSession | None = None,
        *,
        own_connections: bool = False,
        unpooled: aiohttp.ClientSession | None = None,
    ) -> None:
        import aiohttp

        self.owned = session is None
        #: As :attr:`HttpxIO.own_connections`, with a session passed in too:
        #: a write goes through ``unpooled`` (a session that keeps no
        #: connection, from ``aiohttp_session(keep_alive=False)``, which the
        #: caller closes), else through a session made for that request alone.
        self.own_connections = own_connections
        self._aiohttp = aiohttp
        self._session = session
        self._given_unpooled = unpooled
        self._unpooled: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # Per-call objects that repeat: the wire headers of each endpoint (the
        # client caches its header dicts, so identity finds them) and the
        # timeout of each deadline.
        self._wire_headers: dict[int, tuple[dict[str, str], Mapping[str, str]]] = {}
        self._timeouts: dict[float | None, aiohttp.ClientTimeout] = {}

    def _headers(self, headers: dict[str, str]) -> Mapping[str, str]:
        cached = self._wire_headers.get(id(headers))
        if cached is not None and cached[0] is headers:
            return cached[1]
        from multidict import CIMultiDict, CIMultiDictProxy

        # A read-only multidict: aiohttp takes it as it is, where a plain dict
        # is converted on every request.
        wire = CIMultiDictProxy(CIMultiDict({**headers, **SAME_AS_HTTPX}))
        if len(self._wire_headers) < 256:
            self._wire_headers[id(headers)] = (headers, wire)
        return wire

    def _timeout(self, seconds: float | None) -> aiohttp.ClientTimeout:
        found = self._timeouts.get(seconds)
        if found is None:
            found = self._aiohttp.ClientTimeout(total=seconds, ceil_threshold=_NO_ROUNDING)
            if len(self._timeouts) < 256:
                self._timeouts[seconds] = found
        return found

    def _session_here(self) -> aiohttp.ClientSession:
        session = self._session
        if session is not None and not self.owned:
            return session  # the caller's session, on the caller's loop
        if session is not None and not session.closed:
            if self._loop is not asyncio.get_running_loop():
                raise RuntimeError(
                    "this AsyncAdapterClient belongs to the event loop that first used it; "
                    "make one client per event loop"
                )
            return session
        session = aiohttp_session()
        self._session, self._loop = session, asyncio.get_running_loop()
        return session

    def _unpooled_here(self) -> aiohttp.ClientSession:
        """The own pool's twin that keeps no connection, on the same loop (made on first use)."""
        self._session_here()  # the loop check
        if self._unpooled is None or self._unpooled.closed:
            self._unpooled = aiohttp_session(keep_alive=False)
        return self._unpooled

    def _error(self, request: PreparedRequest, exc: BaseException) -> APIConnectionError:
        aiohttp = self._aiohttp
        # Order matters: aiohttp's timeouts are connection errors too, and its
        # connector errors are OS errors.
        if isinstance(exc, aiohttp.ClientConnectorError):
            return not_sent(request, exc)
        if isinstance(exc, TimeoutError):
            # The call's deadline (``total``) raises a bare TimeoutError wherever
            # the call was, a full pool's wait included; ``connect`` (a stream's)
            # raises ConnectionTimeoutError (aiohttp 3.10 on): never sent either.
            why = unsent_because(exc, _aiohttp_waits(aiohttp))
            connecting = getattr(aiohttp, "ConnectionTimeoutError", ())
            if why is None and not isinstance(exc, connecting):
                return timed_out(request)
            return not_sent(request, exc, why)
        # Raised while the answer's head is awaited; a cut body is a payload error.
        unanswered = isinstance(exc, aiohttp.ServerDisconnectedError)
        return failed(request, exc, unanswered=unanswered)

    def _request(
        self,
        session: aiohttp.ClientSession,
        request: PreparedRequest,
        timeout: aiohttp.ClientTimeout,
    ) -> AbstractAsyncContextManager[aiohttp.ClientResponse]:
        """``request`` on ``session``: the SDK's headers only, the body as is, no redirects."""
        return session.request(
            request.method,
            request.url,
            headers=self._headers(request.headers),
            data=request.content,
            allow_redirects=False,
            timeout=timeout,
        )

    async def send(self, request: PreparedRequest, timeout: float | None) -> Answer:
        if not (self.own_connections and request.endpoint.writes):
            return await self._send_on(self._session_here(), request, timeout)
        if self.owned:
            return await self._send_on(self._unpooled_here(), request, timeout)
        if self._given_unpooled is not None:
            return await self._send_on(self._given_unpooled, request, timeout)
        # A session passed in may be shared by clients this one never sees close:
        # nothing of ours may outlive the call.
        async with aiohttp_session(keep_alive=False) as alone:
            return await self._send_on(alone, request, timeout)

    async def _send_on(
        self, session: aiohttp.ClientSession, request: PreparedRequest, timeout: float | None
    ) -> Answer:
        try:
            async with self._request(session, request, self._timeout(timeout)) as resp:
                content = await resp.read()
                return resp.status, resp.headers, content
        except (self._aiohttp.ClientError, TimeoutError) as exc:
            raise self._error(request, exc) from exc

    async def lines(
        self, request: PreparedRequest, connect_timeout: float | None, on_error: OnError
    ) -> AsyncIterator[str]:
        """The lines of a streamed answer, until the caller stops reading."""
        session = self._session_here()
        aiohttp = self._aiohttp
        timeout = aiohttp.ClientTimeout(
            total=None, connect=connect_timeout, ceil_threshold=_NO_ROUNDING
        )
        try:
            async with self._request(session, request, timeout) as resp:
                if resp.status >= 300:
                    on_error(resp.status, resp.headers, await resp.read())
                async for raw in resp.content:
                    yield raw.decode("utf-8", "replace").rstrip("\r\n")
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise self._error(request, exc) from exc

    async def aclose(self) -> None:
        if not self.owned:
            return  # the caller's session: the caller closes it
        mine = (self._session, self._unpooled)
        self._session = self._unpooled = self._loop = None
        for session in mine:
            if session is not None and not session.closed:
                await session.close()


def _aiohttp_waits(aiohttp: Any) -> Waits:
    """Where aiohttp waits for a free connection of a full pool, and makes a new one.

    Both are in ``BaseConnector.connect``, which aiohttp 3.10 on leaves for
    its ``_wait_for_available_connection`` to wait for a free connection.
    """
    connector = aiohttp.BaseConnector
    found = {}
    wait = getattr(connector, "_wait_for_available_connection", None)
    if wait is not None:
        found[wait.__code__] = POOL_FULL
    found[connector.connect.__code__] = NO_CONNECTION
    return found


def aiohttp_session(*, keep_alive: bool = True) -> aiohttp.ClientSession:
    """An ``aiohttp.ClientSession`` set up as the SDK's clients need it (call it in a loop).

    Pass it to several async clients to share one pool of connections; it
    sends only the headers the SDK decides (no automatic ones), keeps no
    cookies and ignores proxy variables. ``keep_alive=False``: every request
    on a connection of its own, closed after the answer.
    """
    import aiohttp

    connector = (
        aiohttp.TCPConnector(limit=MAX_CONNECTIONS, keepalive_timeout=KEEPALIVE_SECONDS)
        if keep_alive
        else aiohttp.TCPConnector(limit=MAX_CONNECTIONS, force_close=True)
    )
    return aiohttp.ClientSession(
        connector=connector,
        cookie_jar=aiohttp.DummyCookieJar(),
        skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
        timeout=aiohttp.ClientTimeout(total=None),
        trust_env=False,
    )


def async_io_for(
    http_client: AsyncHTTPClient | None,
    *,
    own_connections: bool = False,
    unpooled: aiohttp.ClientSession | None = None,
) -> AiohttpIO | AsyncHttpxIO:
    """The async client's I/O: the caller's httpx client or aiohttp session, else aiohttp.

    ``own_connections``: a write goes on a connection of its own (the daemon
    clients; see the module's docstring); ``unpooled`` is :class:`AiohttpIO`'s.
    """
    if http_client is None:
        return AiohttpIO(own_connections=own_connections)
    if type(http_client).__module__.startswith("aiohttp"):
        session: Any = http_client
        return AiohttpIO(session, own_connections=own_connections, unpooled=unpooled)
    return AsyncHttpxIO(http_client)  # type: ignore[arg-type]


def io_for(http_client: HTTPClient | None, *, own_connections: bool = False) -> HttpxIO:
    """The sync client's I/O: the caller's httpx client, else a pool of its own."""
    return HttpxIO(http_client, own_connections=own_connections)
