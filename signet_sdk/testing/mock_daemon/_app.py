"""``MockDaemon``: the ASGI application, the daemon's request pipeline and test hooks.

The pipeline mirrors the daemon's global middleware: body limit (counted on
the raw stream, first), CORS preflight, auth; then the router with each
route's permission guard. Every request is recorded for tests and logged for
``/api/logs``. Starlette loads when a daemon is made, not on import.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote

from ._context import (
    DAEMON_VERSION,
    SYNTHESIS_PROVIDERS,
    AuthMode,
    AuthPolicy,
    Context,
    parse_version,
)
from ._store import MemoryStore

if TYPE_CHECKING:
    from starlette.responses import Response
    from starlette.types import Message, Receive, Scope, Send

    from ._serve import ServerHandle

DEFAULT_BODY_LIMIT = 10 * 1024 * 1024

_log = logging.getLogger("signet_sdk.testing.mock_daemon")

#: The dashboard's origins (port 3850, and 5173 for its dev server) and the desktop app.
_CORS_ORIGINS = frozenset(
    [f"http://{host}:{port}" for host in ("localhost", "127.0.0.1") for port in (3850, 5173)]
    + ["app://signet"]
)


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the mock received it (lower-cased header names, ``json`` ``None``
    for an empty or non-JSON body) and its answer (``response_json`` ``None`` for text)."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    json: Any
    status: int
    response_json: Any


def _loads(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


class MockDaemon:
    """A stateful, faithful stand-in for the Signet daemon (TS 0.145 by default).

    Use it in-process as an ASGI app or on a real socket with :meth:`serve`.
    Lifetimes (claims 4 h, tombstones 30 min, bypass 4 h) run on ``clock`` plus
    :meth:`advance`, so tests never sleep. ``version="0.109"`` answers as that
    release does; a version after 0.109 adds the session transcript and search
    routes, and from 0.145 on the mock gives 0.145's answers. A
    ``synthesis_provider`` other than ``"none"`` enables synthesis (with the
    pipeline, a worker accepts MEMORY.md).
    """

    def __init__(
        self,
        *,
        db_path: str | os.PathLike[str] | None = None,
        auth_mode: AuthMode = "local",
        tokens: Mapping[str, str] | None = None,
        body_limit: int = DEFAULT_BODY_LIMIT,
        clock: Callable[[], float] = time.time,
        pipeline_enabled: bool = True,
        agent_id_env: str | None = None,
        secrets: Mapping[str, str] | None = None,
        version: str = DAEMON_VERSION,
        synthesis_provider: str = "none",
    ) -> None:
        from starlette.routing import Router

        from . import _routes_hooks as hooks
        from . import _routes_memory as memory
        from . import _routes_ops as ops
        from . import _routes_sessions as sessions
        from ._web import NOT_FOUND, daemon_route

        if synthesis_provider not in SYNTHESIS_PROVIDERS:
            raise ValueError(f"unknown synthesis provider {synthesis_provider!r}")
        self._clock = clock
        self._offset = 0.0
        self.body_limit = body_limit
        self._requests: list[RecordedRequest] = []
        auth = AuthPolicy(auth_mode, tokens)  # validate before opening the database
        self._ctx = ctx = Context(
            self.now, auth, db_path, pipeline_enabled, parse_version(version), synthesis_provider
        )
        ctx.agent_id_env, ctx.secrets = agent_id_env, dict(secrets or {})
        self._lock = ctx.lock
        #: The SQLite store: seed memories directly, inspect what hooks wrote.
        self.store: MemoryStore = ctx.store
        # TS 0.109's registration order: health, memory, hooks, secrets, sessions.
        newer = sessions.NEWER_ROUTES if ctx.newer_routes else []
        secret_routes = [*ops.SECRET_ROUTES, *(ops.NEWER_SECRET_ROUTES if ctx.v145 else [])]
        specs = [*ops.ROUTES, *memory.ROUTES, *hooks.ROUTES, *secret_routes]
        routes = [daemon_route(ctx, spec) for spec in [*specs, *sessions.ROUTES, *newer]]
        self._router = Router(
            routes, redirect_slashes=False, default=NOT_FOUND, lifespan=self._lifespan
        )

    @property
    def app(self) -> Callable[[Scope, Receive, Send], Any]:
        """The ASGI 3 callable (the instance itself is one too)."""
        return self.__call__

    @asynccontextmanager
    async def _lifespan(self, _app: object) -> AsyncIterator[None]:
        yield
        self.close_log_streams()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        else:
            await self._router(scope, receive, send)

    async def _read_body(self, receive: Receive, declared: str) -> bytes | None:
        """The whole body, or ``None`` once it exceeds the limit (reading stops)."""
        if declared.isdigit() and int(declared) > self.body_limit:
            return None
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.body_limit:
                return None
            more = message["type"] != "http.disconnect" and message.get("more_body", False)
        return b"".join(chunks)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        from starlette.datastructures import Headers

        from ._web import error

        started = time.perf_counter()
        method, path = str(scope["method"]).upper(), str(scope["path"])
        raw = scope.get("raw_path")
        raw_path = raw.decode("latin-1").split("?", 1)[0] if raw else quote(path)
        pairs = parse_qsl(scope.get("query_string", b"").decode("latin-1"), True)
        query = dict(reversed(pairs))  # the first value of a repeated name wins
        headers = Headers(scope=scope)
        heads = {name: ", ".join(headers.getlist(name)) for name in headers}
        client_host = str(scope["client"][0]) if scope.get("client") else None
        body = await self._read_body(receive, headers.get("content-length", ""))
        status = 0
        sent: list[bytes] | None = None  # the JSON body as it is sent; None for others

        def record(answer: Any) -> None:
            data = body or b""
            entry = RecordedRequest(method, path, query, heads, data, _loads(data), status, answer)
            with self._lock:
                self._requests.append(entry)

        async def capture(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
                if (b"content-type", b"application/json") in message["headers"]:
                    sent = []
                else:
                    record(None)
            elif sent is not None:
                sent.append(message.get("body", b""))
                if not message.get("more_body", False):
                    record(_loads(b"".join(sent)))
            if method == "HEAD" and message["type"] == "http.response.body":
                message = {**message, "body": b""}  # HEAD is GET without the body
            await send(message)

        response: Response | None = None
        if body is None:
            response = error("payload too large", 413)
            response.headers["connection"] = "close"
        elif method == "OPTIONS" and "access-control-request-method" in headers:
            response = self._preflight(headers)
        else:
            auth = self._ctx.auth
            denied, role, loopback = auth.authenticate(headers.get("authorization"), client_host)
            if denied is not None:
                response = error(denied, 401)
                response.headers["www-authenticate"] = "Bearer"
            state = {"body": body, "query": query, "path": path, "role": role, "loopback": loopback}
            scope = {**scope, "path": raw_path, "state": state}
        await (response or self._router)(scope, receive, capture)
        level = "error" if status >= 500 else "warn" if status >= 400 else "info"
        millis = (time.perf_counter() - started) * 1000
        data = {"method": method, "path": path, "status": status}
        self._ctx.logs.log(level, "http", f"{method} {path} {status}", data, duration=millis)
        _log.info('%s "%s %s" %d %.1fms', client_host or "-", method, path, status, millis)

    def _preflight(self, headers: Mapping[str, str]) -> Response:
        from ._web import text_response

        response = text_response("", 204)
        response.headers["access-control-allow-methods"] = "GET,HEAD,PUT,POST,DELETE,PATCH"
        response.headers["access-control-allow-credentials"] = "true"
        if (origin := headers.get("origin")) in _CORS_ORIGINS:
            response.headers.update({"access-control-allow-origin": origin, "vary": "Origin"})
        if wanted := headers.get("access-control-request-headers"):
            response.headers["access-control-allow-headers"] = wanted
        return response

    def now(self) -> float:
        """The daemon's current time: the clock plus everything advanced."""
        return self._clock() + self._offset

    def advance(self, seconds: float) -> None:
        """Move the daemon's clock forward (claims, tombstones and bypass expire)."""
        with self._lock:
            self._offset += seconds

    def restart(self) -> None:
        """Act as a daemon killed and started again on the same data (see ``Context.restart``)."""
        with self._lock:
            self._ctx.restart()

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first (a copy)."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str, method: str | None = None) -> list[RecordedRequest]:
        """The recorded requests for one path (and method, if given)."""
        wanted = {method.upper()} if method else {r.method for r in self.requests}
        return [r for r in self.requests if r.path == path and r.method in wanted]

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def set_secret(self, name: str, value: str) -> None:
        with self._lock:
            self._ctx.secrets[name] = value

    def add_token(self, token: str, role: str) -> None:
        """Accept another bearer token (team and hybrid modes)."""
        with self._lock:
            self._ctx.auth.add_token(token, role)

    def summary_jobs(self) -> list[dict[str, Any]]:
        """The summary jobs session-end and checkpoint-extract queued."""
        return self._ctx.store.jobs()

    def memory_count(self) -> int:  # stored and not deleted
        return self._ctx.store.count_memories()

    def log_entries(self) -> list[dict[str, Any]]:
        """Every LogEntry still in the buffer, oldest first."""
        return self._ctx.logs.recent(1_000_000, None, None, None)

    @property
    def open_log_streams(self) -> int:
        """How many ``/api/logs/stream`` clients are connected."""
        return len(self._ctx.logs.subscribers)

    def close_log_streams(self) -> None:
        """End every open log stream cleanly (new streams can still open)."""
        self._ctx.logs.close_streams()

    @property
    def port(self) -> int | None:
        """The port ``/health`` reports (set while serving)."""
        return self._ctx.port

    @port.setter
    def port(self, value: int | None) -> None:
        self._ctx.port = value

    @contextmanager
    def serve(self, host: str = "127.0.0.1", port: int = 0) -> Iterator[ServerHandle]:
        """Run on a real socket in a background thread (``port=0`` picks a free one) until
        the block ends; log streams close first, so shutdown never waits on them."""
        from ._serve import start_server

        with start_server(self, host, port) as handle:
            yield handle

    def close(self) -> None:
        self.close_log_streams()
        self._ctx.store.close()

    def __enter__(self) -> MockDaemon:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
