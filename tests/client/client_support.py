"""A scriptable daemon on a real socket, and one driver per client transport.

``Daemon`` parses just enough HTTP/1.1 to record every request exactly as it
arrived (head, headers, body, which connection carried it) and answers from
a script per route: a status and body, after a delay, a byte at a time, or
by hanging up. ``Driver`` builds a client over one transport and calls its
methods synchronously, so one test body runs against every transport.
``EndpointCall`` is the common part of a table row that calls one client
method and checks the request it makes (over respx, no socket).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import respx

import signet_sdk as s

#: Every way a client sends: the sync client (httpx), the async default (aiohttp),
#: the async client on an aiohttp session it was given, on an httpx client it was given.
TRANSPORTS = ["sync", "async-aiohttp", "async-aiohttp-shared", "async-httpx"]
#: The transports whose deadline covers the whole call (an answer that
#: trickles in cannot hold it longer): every one, and the hook path's lean one.
EXACT_DEADLINE = [*TRANSPORTS, "lean"]


@dataclass
class Reply:
    """One scripted answer.

    ``trickle``: seconds between body bytes (and head bytes with
    ``trickle_head``); ``drop``: hang up; ``endless``: a chunked body whose
    chunks never stop coming; ``stall_after``: send that many bytes of the
    body, then hold the connection open and send nothing more.
    """

    status: int = 200
    body: Any = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    delay: float = 0.0
    trickle: float | None = None
    trickle_head: bool = False
    drop: bool = False
    gzip: bool = False
    endless: bool = False
    stall_after: int | None = None

    def payload(self) -> tuple[bytes, list[tuple[str, str]]]:
        headers = list(self.headers)
        body = self.body
        if isinstance(body, dict | list):
            body = json.dumps(body).encode()
            headers.append(("Content-Type", "application/json"))
        elif isinstance(body, str):
            body = body.encode()
            if not any(k.lower() == "content-type" for k, _ in headers):
                headers.append(("Content-Type", "text/plain"))
        if self.gzip:
            body = gzip.compress(body)
            headers.append(("Content-Encoding", "gzip"))
        return body, headers


@dataclass(frozen=True)
class Seen:
    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes
    connection: int

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]

    def header(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k == name]


class Daemon(socketserver.ThreadingTCPServer):
    """Records requests; answers each route from its script (the last reply repeats)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.seen: list[Seen] = []
        self.scripts: dict[tuple[str, str], list[Reply]] = {}
        self.connections = 0
        self.closed: set[int] = set()
        #: As Bun's HTTP servers may (oven-sh/bun#31889): a request that is not
        #: the first on its connection is read, never handled, and the
        #: connection closed with a FIN. Such requests land in ``dropped``.
        self.drops_reused = False
        self.dropped: list[Seen] = []
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def route(self, method: str, path: str, *replies: Reply) -> None:
        self.scripts[(method, path)] = list(replies)

    def calls(self, path: str) -> list[Seen]:
        return [r for r in self.seen if r.path == path]

    def next_reply(self, method: str, path: str) -> Reply:
        with self.lock:
            script = self.scripts.get((method, path))
            if not script:
                return Reply(404, "404 Not Found")
            return script.pop(0) if len(script) > 1 else script[0]

    def start(self) -> Daemon:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()
        self._thread.join(5)


class _Handler(socketserver.StreamRequestHandler):
    server: Daemon

    def setup(self) -> None:
        super().setup()
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.server.lock:
            self.server.connections += 1
            self.number = self.server.connections
        self.answered = 0

    def finish(self) -> None:
        with suppress(OSError):
            super().finish()
        with self.server.lock:
            self.server.closed.add(self.number)

    def handle(self) -> None:
        try:
            while self._one():
                pass
        except OSError:
            pass

    def _one(self) -> bool:
        line = self.rfile.readline(65536)
        if not line:
            return False
        method, target, _ = line.decode("latin-1").split(" ", 2)
        headers = []
        while (raw := self.rfile.readline(65536)) not in (b"\r\n", b"\n", b""):
            name, _, value = raw.decode("latin-1").partition(":")
            headers.append((name.strip().lower(), value.strip()))
        length = int(next((v for k, v in headers if k == "content-length"), "0"))
        body = self.rfile.read(length) if length else b""
        seen = Seen(method, target, headers, body, self.number)
        self.server.seen.append(seen)
        if self.server.drops_reused and self.answered:
            self.server.dropped.append(seen)
            self.request.shutdown(socket.SHUT_WR)
            return False
        self.answered += 1
        reply = self.server.next_reply(method, target.split("?", 1)[0])
        if reply.delay and self.server.stopping.wait(reply.delay):
            return False
        if reply.drop:
            self.request.shutdown(socket.SHUT_RDWR)
            return False
        payload, extra = reply.payload()
        reason = "OK" if reply.status < 300 else "Scripted"
        head = f"HTTP/1.1 {reply.status} {reason}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in extra)
        if reply.endless:
            head += "Transfer-Encoding: chunked\r\n\r\n"
            self._write(head.encode("latin-1"), None)
            while not self.server.stopping.wait(reply.trickle or 0.05):
                self.wfile.write(b"1\r\n \r\n")
            return False
        head += f"Content-Length: {len(payload)}\r\n\r\n"
        self._write(head.encode("latin-1"), reply.trickle if reply.trickle_head else None)
        if reply.stall_after is not None:
            self._write(payload[: reply.stall_after], None)
            self.server.stopping.wait()
            return False
        self._write(payload, reply.trickle)
        return True

    def _write(self, data: bytes, trickle: float | None) -> None:
        if trickle is None:
            self.wfile.write(data)
            return
        for i in range(len(data)):
            if self.server.stopping.wait(trickle):
                raise OSError("stopping")
            self.wfile.write(data[i : i + 1])


@contextmanager
def running_daemon(port: int = 0) -> Iterator[Daemon]:
    daemon = Daemon(port).start()
    try:
        yield daemon
    finally:
        daemon.stop()


# -- endpoint tables ----------------------------------------------------------------


@dataclass
class EndpointCall:
    """One public client method, how to call it, and where its request must go.

    ``args`` builds the positional arguments afresh for each call (models are
    mutable); ``path`` is as it travels, percent-encoded. Each table adds what
    its rows answer and check.
    """

    method: str
    args: Callable[[], tuple[Any, ...]]
    http: str
    path: str

    def route(self, mock: respx.MockRouter) -> respx.Route:
        """The respx route that catches this call's request (respx matches decoded paths)."""
        return mock.route(method=self.http, path=unquote(self.path))


# -- drivers ----------------------------------------------------------------------


class Handle:
    """A client whose methods are called synchronously whatever its kind."""

    def __init__(self, driver: Driver, raw: Any) -> None:
        self.driver = driver
        self.raw = raw
        self.sleeps: list[float] = []
        self.on_sleep: Callable[[], None] | None = None
        if driver.is_async:

            async def fake_sleep(seconds: float) -> None:
                self._slept(seconds)

            raw._sleep = fake_sleep
        else:
            raw._sleep = self._slept

    def _slept(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        if self.on_sleep is not None:
            self.on_sleep()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.raw, name)
        if not self.driver.is_async:
            return method  # type: ignore[no-any-return]
        return lambda *a, **kw: self.driver.run(method(*a, **kw))

    def stream(self, count: int) -> list[Any]:
        """The first ``count`` entries of ``stream_logs``, the stream then closed."""
        if not self.driver.is_async:
            gen = self.raw.stream_logs()
            try:
                return [next(gen) for _ in range(count)]
            finally:
                gen.close()

        async def take() -> list[Any]:
            gen = self.raw.stream_logs()
            try:
                return [await gen.__anext__() for _ in range(count)]
            finally:
                await gen.aclose()

        return self.driver.run(take())  # type: ignore[no-any-return]


class Driver:
    """Makes clients over one transport; ``close`` releases every one of them."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.is_async = kind.startswith("async")
        self.loop = asyncio.new_event_loop() if self.is_async else None
        self._closers: list[Callable[[], Any]] = []

    def run(self, coro: Any) -> Any:
        assert self.loop is not None
        return self.loop.run_until_complete(coro)

    def client(self, url: str, harness: str = "pi", **options: Any) -> Handle:
        import httpx

        from signet_sdk.client.io import aiohttp_session

        if self.kind == "sync":
            raw: Any = s.AdapterClient(harness, url, **options)
            self._closers.append(raw.close)
        elif self.kind == "async-aiohttp":
            raw = s.AsyncAdapterClient(harness, url, **options)
            self._closers.append(lambda: self.run(raw.aclose()))
        elif self.kind == "async-aiohttp-shared":

            async def make() -> Any:
                return aiohttp_session()

            session = self.run(make())
            raw = s.AsyncAdapterClient(harness, url, http_client=session, **options)
            self._closers.append(lambda: self.run(session.close()))
        else:
            ahttp = httpx.AsyncClient()
            raw = s.AsyncAdapterClient(harness, url, http_client=ahttp, **options)
            self._closers.append(lambda: self.run(ahttp.aclose()))
        return Handle(self, raw)

    def close(self) -> None:
        for close in reversed(self._closers):
            close()
        if self.loop is not None:
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()


def elapsed(fn: Callable[[], Any]) -> tuple[float, BaseException | None]:
    """Seconds ``fn`` took, and what it raised."""
    started = time.monotonic()
    try:
        fn()
    except BaseException as exc:
        return time.monotonic() - started, exc
    return time.monotonic() - started, None
