"""A call that got no connection before its deadline was never sent, on every transport.

A loopback server accepts every connection and reads the request on it, but
never answers. The client's pool (cut to ``POOL`` connections) fills with
calls that were sent and are held; one more call waits for a free connection
until its deadline. That call never left the process: ``NotSentError``, in
the sync client's words, whatever library carries it, while each held call
(sent, never answered) is ``APITimeoutError``. The same for a connect the
server's full accept queue never completes.

No bound here is tight: the waiting call's deadline ends seconds before any
held one's could free a connection, and nothing asserts how long a call took.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import signet_sdk as s
from signet_sdk.client import io
from signet_sdk.wire import errors

from .client_support import TRANSPORTS

#: The connections the client's pool may hold in these tests.
POOL = 2
#: The deadline of the calls that fill the pool, and of the one that waits: the
#: waiting call has ended long before a held one times out and frees its connection.
HELD = 3.0
WAITING = 0.5
#: How long to wait for something that takes milliseconds (never reached when it works).
PATIENCE = 30.0
#: The sync client's words for a call no pooled connection came free for.
POOL_FULL = "every connection stayed busy until the deadline"
NO_CONNECTION = "no connection was made before the deadline"


class HoldingServer:
    """Accepts every connection on a free loopback port, reads requests, answers none."""

    def __init__(self) -> None:
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._requests = 0
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    @property
    def requests(self) -> int:
        """How many request heads arrived (one per connection: none is answered)."""
        with self._changed:
            return self._requests

    def wait_for_requests(self, count: int) -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: self._requests >= count, PATIENCE):
                raise AssertionError(f"{self._requests} requests arrived, {count} expected")

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._hold, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _hold(self, conn: socket.socket) -> None:
        conn.settimeout(0.05)
        seen = b""
        with conn:
            while not self._stop.is_set():
                try:
                    data = conn.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    return
                if not data:
                    return  # the client gave up on it
                had_head = b"\r\n\r\n" in seen
                seen += data
                if not had_head and b"\r\n\r\n" in seen:
                    with self._changed:
                        self._requests += 1
                        self._changed.notify_all()

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(PATIENCE)
        self._sock.close()


@pytest.fixture
def server() -> Iterator[HoldingServer]:
    held = HoldingServer()
    try:
        yield held
    finally:
        held.close()


@pytest.fixture(autouse=True)
def small_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clients' own pools, and ``aiohttp_session``'s, hold ``POOL`` connections."""
    monkeypatch.setattr(io, "MAX_CONNECTIONS", POOL)


def outcome(call: Callable[[], Any]) -> BaseException | None:
    try:
        call()
    except Exception as exc:
        return exc
    return None


async def async_outcome(call: Any) -> BaseException | None:
    try:
        await call
    except Exception as exc:
        return exc
    return None


def exhaust_sync(url: str, wait_for_held: Callable[[], None]) -> tuple[list[Any], Any]:
    """``POOL`` held calls, then one that waits for a connection: what each raised."""
    with s.AdapterClient("pi", url, max_retries=0) as client:
        held_client = client.with_options(timeout=HELD)
        with ThreadPoolExecutor(POOL) as threads:
            held = [threads.submit(outcome, held_client.health) for _ in range(POOL)]
            wait_for_held()
            waiting = outcome(client.with_options(timeout=WAITING).health)
            return [f.result() for f in held], waiting


async def exhaust_async(kind: str, url: str, wait_for_held: Callable[[], None]) -> Any:
    import httpx

    closers: list[Any] = []
    if kind == "async-aiohttp":
        client = s.AsyncAdapterClient("pi", url, max_retries=0)
        closers.append(client.aclose)
    elif kind == "async-aiohttp-shared":
        session = io.aiohttp_session()
        client = s.AsyncAdapterClient("pi", url, max_retries=0, http_client=session)
        closers.append(session.close)
    else:
        http = httpx.AsyncClient(limits=httpx.Limits(max_connections=POOL))
        client = s.AsyncAdapterClient("pi", url, max_retries=0, http_client=http)
        closers.append(http.aclose)
    try:
        held_client = client.with_options(timeout=HELD)
        held = [asyncio.ensure_future(async_outcome(held_client.health())) for _ in range(POOL)]
        await asyncio.to_thread(wait_for_held)
        waiting = await async_outcome(client.with_options(timeout=WAITING).health())
        return list(await asyncio.gather(*held)), waiting
    finally:
        for close in closers:
            await close()


def exhaust(kind: str, url: str, wait_for_held: Callable[[], None]) -> Any:
    if kind == "sync":
        return exhaust_sync(url, wait_for_held)
    return asyncio.run(exhaust_async(kind, url, wait_for_held))


@pytest.mark.parametrize("kind", TRANSPORTS)
def test_a_call_no_pooled_connection_came_free_for_was_not_sent(
    kind: str, server: HoldingServer
) -> None:
    held, waiting = exhaust(kind, server.url, lambda: server.wait_for_requests(POOL))
    # Sent and never answered: the daemon may have acted on them.
    assert all(isinstance(e, errors.APITimeoutError) for e in held), held
    assert not any(isinstance(e, errors.NotSentError) for e in held), held
    # Never sent: safe to try again, and said as the sync client says it.
    assert isinstance(waiting, errors.NotSentError), repr(waiting)
    assert str(waiting) == (
        f"cannot connect to the Signet daemon: GET {server.url}/health: {POOL_FULL}"
    )
    assert server.requests == POOL  # the waiting call's request never arrived


class FullBacklog:
    """A loopback port whose accept queue is full: a new connect never completes.

    Linux drops the SYN of a connect to a listener whose accept queue is full,
    so the client waits in its connect until its deadline.
    """

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(0)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._queued: list[socket.socket] = []
        self._fill()

    def _fill(self) -> None:
        """Connect until a connect hangs; the connections made stay queued, never accepted."""
        address = self._sock.getsockname()
        for _ in range(16):
            probe = socket.socket()
            probe.settimeout(0.3)
            try:
                probe.connect(address)
            except TimeoutError:
                probe.close()
                return  # that connect hung: the queue is full
            self._queued.append(probe)
        raise AssertionError("the accept queue never filled")

    def close(self) -> None:
        for sock in self._queued:
            sock.close()
        self._sock.close()


@pytest.mark.skipif(sys.platform != "linux", reason="a full accept queue drops SYNs on Linux")
@pytest.mark.parametrize("kind", TRANSPORTS)
def test_a_connect_that_never_completed_was_not_sent(kind: str) -> None:
    backlog = FullBacklog()
    try:
        if kind == "sync":
            with s.AdapterClient("pi", backlog.url, max_retries=0, timeout=WAITING) as client:
                raised = outcome(client.health)
        else:
            raised = asyncio.run(connect_async(kind, backlog.url))
    finally:
        backlog.close()
    assert isinstance(raised, errors.NotSentError), repr(raised)
    assert str(raised) == (
        f"cannot connect to the Signet daemon: GET {backlog.url}/health: {NO_CONNECTION}"
    )


async def connect_async(kind: str, url: str) -> BaseException | None:
    import httpx

    options: dict[str, Any] = {"max_retries": 0, "timeout": WAITING}
    if kind == "async-aiohttp":
        async with s.AsyncAdapterClient("pi", url, **options) as client:
            return await async_outcome(client.health())
    if kind == "async-aiohttp-shared":
        async with io.aiohttp_session() as session:
            client = s.AsyncAdapterClient("pi", url, http_client=session, **options)
            return await async_outcome(client.health())
    async with httpx.AsyncClient() as http:
        client = s.AsyncAdapterClient("pi", url, http_client=http, **options)
        return await async_outcome(client.health())
