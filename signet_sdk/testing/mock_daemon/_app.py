"""``MockDaemon``: the ASGI application, its request pipeline and its test hooks.

The pipeline mirrors the real daemon's: body limit (counted on the raw
stream, before anything else), CORS preflight, global auth, routing
(first match wins, unknown routes are a plain-text 404), the route's
permission guard, then the handler. Every request is recorded for tests
and logged as a LogEntry for ``/api/logs``.
"""

from __future__ import annotations

import inspect
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qsl, quote

from ._auth import AuthPolicy
from ._context import Context
from ._http import (
    BadJson,
    Receive,
    Request,
    Response,
    Scope,
    Send,
    StreamResponse,
    json_response,
    text_response,
)
from ._logs import LogBook
from ._router import Router
from ._state import HookMemory, PresenceBoard, SessionTracker
from ._store import MemoryStore

if TYPE_CHECKING:
    from ._serve import ServerHandle

__all__ = ["DEFAULT_BODY_LIMIT", "MockDaemon", "RecordedRequest"]

DEFAULT_BODY_LIMIT = 10 * 1024 * 1024

_log = logging.getLogger("signet_sdk.testing.mock_daemon")

_CORS_ORIGINS = frozenset(
    {
        "http://localhost:3850",
        "http://127.0.0.1:3850",
        "http://localhost:5173",
        "http://127.0.0.1:5173",
        "app://signet",
    }
)


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the mock received it, and the status it answered.

    ``headers`` has lower-cased names; ``json`` is the parsed body, or
    ``None`` when the body was empty or not JSON; ``response_json`` is the
    parsed answer (``None`` for text and streamed answers).
    """

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    json: Any
    status: int
    response_json: Any


def _decode_headers(raw: list[tuple[bytes, bytes]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in raw:
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        out[key] = f"{out[key]}, {text}" if key in out else text
    return out


class MockDaemon:
    """A stateful, faithful stand-in for the Signet daemon (TS 0.109).

    Use it in-process as an ASGI app (``httpx.ASGITransport(app=daemon)``),
    or on a real socket with :meth:`serve`. Time is injectable: claims last
    4 h, tombstones 30 min, bypass flags 4 h, all measured on ``clock`` plus
    whatever :meth:`advance` added, so tests never sleep.
    """

    def __init__(
        self,
        *,
        db_path: str | os.PathLike[str] | None = None,
        auth_mode: Literal["local", "team", "hybrid"] = "local",
        tokens: Mapping[str, str] | None = None,
        body_limit: int = DEFAULT_BODY_LIMIT,
        clock: Callable[[], float] = time.time,
        pipeline_enabled: bool = True,
        agent_id_env: str | None = None,
        secrets: Mapping[str, str] | None = None,
    ) -> None:
        self._clock = clock
        self._offset = 0.0
        self._lock = threading.RLock()
        self.body_limit = body_limit
        self._requests: list[RecordedRequest] = []
        self._router = Router()
        auth = AuthPolicy(auth_mode, tokens)  # validate before opening the database
        self._ctx = Context(
            store=MemoryStore(db_path, self.now),
            tracker=SessionTracker(self.now),
            presence=PresenceBoard(self.now),
            hooks=HookMemory(),
            logs=LogBook(self.now),
            auth=auth,
            now=self.now,
            lock=self._lock,
            pipeline_enabled=pipeline_enabled,
            agent_id_env=agent_id_env,
            secrets=dict(secrets or {}),
        )
        self._ctx.started_at = self.now()
        from . import _routes_hooks, _routes_memory, _routes_ops, _routes_secrets, _routes_sessions

        for module in (
            _routes_ops,
            _routes_memory,
            _routes_hooks,
            _routes_secrets,
            _routes_sessions,
        ):
            module.register(self._router)

    # -- ASGI ----------------------------------------------------------------

    @property
    def app(self) -> Callable[[Scope, Receive, Send], Any]:
        """The ASGI 3 callable (the instance itself is one too)."""
        return self.__call__

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "http":
            await self._http(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.close_log_streams()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _read_body(self, receive: Receive, headers: dict[str, str]) -> bytes | None:
        """The whole body, or ``None`` once it exceeds the limit (reading stops)."""
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.body_limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.body_limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        method = str(scope["method"]).upper()
        path = str(scope["path"])
        raw = scope.get("raw_path")
        raw_path = raw.decode("latin-1").split("?", 1)[0] if raw else quote(path)
        query_string = scope.get("query_string", b"").decode("latin-1")
        query: dict[str, str] = {}
        for name, value in parse_qsl(query_string, keep_blank_values=True):
            query.setdefault(name, value)
        headers = _decode_headers(list(scope.get("headers", [])))
        client = scope.get("client")
        request = Request(
            method=method,
            path=path,
            query=query,
            headers=headers,
            body=b"",
            client_host=str(client[0]) if client else None,
        )
        body = await self._read_body(receive, headers)
        response: Response | StreamResponse
        if body is None:
            response = json_response({"error": "payload too large"}, 413, [("connection", "close")])
        else:
            request.body = body
            response = await self._dispatch(request, raw_path)
        self._record(request, response)
        if isinstance(response, StreamResponse):
            await response.send(send, receive)
        else:
            await response.send(send, head_only=method == "HEAD")
        self._log_request(request, response.status, time.perf_counter() - started)

    async def _dispatch(self, req: Request, raw_path: str) -> Response | StreamResponse:
        if req.method == "OPTIONS" and req.header("access-control-request-method"):
            return self._preflight(req)
        outcome = self._ctx.auth.authenticate(req.header("authorization"), req.client_host)
        if outcome.rejection is not None:
            return outcome.rejection
        req.role = outcome.role
        req.loopback = outcome.loopback
        found = self._router.resolve(req.method, raw_path)
        if found is None:
            return text_response("404 Not Found", 404)
        route, params = found
        req.params = params
        if route.permission is not None:
            denied = self._ctx.auth.require(route.permission, req.role, req.loopback)
            if denied is not None:
                return denied
        try:
            with self._lock:
                result = route.handler(self._ctx, req)
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:
            # Hono's default onError: plain text, no JSON.
            _log.debug("unhandled error in %s %s", req.method, req.path, exc_info=True)
            self._ctx.logs.log("error", "http", f"Unhandled error in {req.path}", error=exc)
            return text_response("Internal Server Error", 500)
        assert isinstance(result, Response | StreamResponse)
        return result

    def _preflight(self, req: Request) -> Response:
        headers = [
            ("access-control-allow-methods", "GET,HEAD,PUT,POST,DELETE,PATCH"),
            ("access-control-allow-credentials", "true"),
        ]
        origin = req.header("origin")
        if origin in _CORS_ORIGINS:
            headers.append(("access-control-allow-origin", origin))
            headers.append(("vary", "Origin"))
        wanted = req.header("access-control-request-headers")
        if wanted:
            headers.append(("access-control-allow-headers", wanted))
        return Response(204, b"", "text/plain; charset=UTF-8", headers)

    def _record(self, req: Request, response: Response | StreamResponse) -> None:
        try:
            parsed = req.json() if req.body else None
        except BadJson:
            parsed = None
        data = response.data if isinstance(response, Response) else None
        entry = RecordedRequest(
            method=req.method,
            path=req.path,
            query=dict(req.query),
            headers=dict(req.headers),
            body=req.body,
            json=parsed,
            status=response.status,
            response_json=data,
        )
        with self._lock:
            self._requests.append(entry)

    def _log_request(self, req: Request, status: int, seconds: float) -> None:
        level = "error" if status >= 500 else "warn" if status >= 400 else "info"
        millis = seconds * 1000
        self._ctx.logs.log(
            level,
            "http",
            f"{req.method} {req.path} {status}",
            {"method": req.method, "path": req.path, "status": status},
            duration=millis,
        )
        _log.info(
            '%s "%s %s" %d %.1fms', req.client_host or "-", req.method, req.path, status, millis
        )

    # -- test and demo helpers ------------------------------------------------

    def now(self) -> float:
        """The daemon's current time: the clock plus everything advanced."""
        return self._clock() + self._offset

    def advance(self, seconds: float) -> None:
        """Move the daemon's clock forward (claims, tombstones and bypass expire)."""
        with self._lock:
            self._offset += seconds

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first (a copy)."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str, method: str | None = None) -> list[RecordedRequest]:
        """The recorded requests for one path (and method, if given)."""
        return [
            r
            for r in self.requests
            if r.path == path and (method is None or r.method == method.upper())
        ]

    def clear_requests(self) -> None:
        """Forget the recorded requests (state is kept)."""
        with self._lock:
            self._requests.clear()

    def set_secret(self, name: str, value: str) -> None:
        """Store a secret for ``/api/secrets/exec``."""
        with self._lock:
            self._ctx.secrets[name] = value

    def add_token(self, token: str, role: str) -> None:
        """Accept another bearer token (team and hybrid modes)."""
        with self._lock:
            self._ctx.auth.add_token(token, role)

    @property
    def store(self) -> MemoryStore:
        """The SQLite store (seed memories directly, inspect what hooks wrote)."""
        return self._ctx.store

    def summary_jobs(self) -> list[dict[str, Any]]:
        """The summary jobs session-end and checkpoint-extract queued."""
        return self._ctx.store.jobs()

    def log_entries(self) -> list[dict[str, Any]]:
        """Every LogEntry still in the buffer, oldest first."""
        return self._ctx.logs.recent(limit=1_000_000)

    @property
    def open_log_streams(self) -> int:
        """How many ``/api/logs/stream`` clients are connected."""
        return self._ctx.logs.subscriber_count

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
        """Run on a real socket in a background thread (``port=0`` picks a free one).

        Blocks until the server accepts connections and always stops it on
        exit, closing log streams first so shutdown never waits on them.
        """
        from ._serve import start_server

        handle = start_server(self, host, port)
        try:
            yield handle
        finally:
            handle.stop()

    def close(self) -> None:
        """Close log streams and the database."""
        self.close_log_streams()
        self._ctx.store.close()

    def __enter__(self) -> MockDaemon:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
