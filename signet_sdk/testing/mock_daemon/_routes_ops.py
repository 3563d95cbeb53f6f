"""Operational routes: ``/health``, ``/api/logs`` and the ``/api/logs/stream`` SSE.

The stream follows TS 0.109: a ``connected`` frame, then one ``data:`` frame
per new log entry, no ``event:``/``id:`` fields, no keep-alive comments. It
ends when the client disconnects or when the daemon closes its streams
(server shutdown, or a test calling ``MockDaemon.close_log_streams``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Any

from ._context import DAEMON_VERSION, Context
from ._http import Receive, Request, Response, Send, StreamResponse, dump_json, json_response
from ._logs import LEVELS, Subscriber
from ._router import Router
from ._rules import parse_leading_int

__all__ = ["register"]


def _resources() -> dict[str, Any]:
    try:
        import resource
    except ImportError:  # not on Windows
        return {}
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"maxRssKb": usage.ru_maxrss, "userCpuSeconds": round(usage.ru_utime, 3)}


def _health_route(ctx: Context, req: Request) -> Response:
    pending = sum(1 for job in ctx.store.jobs() if job["status"] == "pending")
    db_path = ctx.store.path
    return json_response(
        {
            "status": "healthy",
            "uptime": round(max(0.0, ctx.now() - ctx.started_at), 3),
            "pid": os.getpid(),
            "version": DAEMON_VERSION,
            "port": ctx.port if ctx.port is not None else 3850,
            "agentsDir": os.path.dirname(os.path.abspath(db_path)) if db_path else ":memory:",
            "db": True,
            "shuttingDown": False,
            "updateAvailable": False,
            "pendingRestart": False,
            "pipeline": {
                "extractionRunning": ctx.pipeline_enabled,
                "extractionStalled": False,
                "extractionPending": pending,
                "extractionBackoffMs": 0,
            },
            "resources": _resources(),
        }
    )


def _logs_route(ctx: Context, req: Request) -> Response:
    limit = parse_leading_int(req.query.get("limit", "100"))
    level = req.query.get("level")
    logs = ctx.logs.recent(
        limit=100 if limit is None else limit,
        level=level if level in LEVELS else None,
        category=req.query.get("category") or None,
        since=req.query.get("since") or None,
    )
    return json_response({"logs": logs, "count": len(logs)})


def _frame(data: Any) -> bytes:
    return b"data: " + dump_json(data) + b"\n\n"


async def _wait_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def _pump(sub: Subscriber, send: Send, receive: Receive) -> None:
    """Forward entries until the client leaves or the stream is closed."""
    disconnect = asyncio.ensure_future(_wait_disconnect(receive))
    client_gone = False
    try:
        await send(
            {"type": "http.response.body", "body": _frame({"type": "connected"}), "more_body": True}
        )
        while True:
            getter = asyncio.ensure_future(sub.queue.get())
            done, _ = await asyncio.wait({getter, disconnect}, return_when=asyncio.FIRST_COMPLETED)
            if disconnect in done:
                getter.cancel()
                client_gone = True
                return
            entry = getter.result()
            if Subscriber.is_close(entry):
                return
            await send({"type": "http.response.body", "body": _frame(entry), "more_body": True})
    except OSError:
        client_gone = True
    finally:
        disconnect.cancel()
        if not client_gone:
            with contextlib.suppress(OSError):
                await send({"type": "http.response.body", "body": b"", "more_body": False})


_STREAM_HEADERS = [
    ("content-type", "text/event-stream"),
    ("cache-control", "no-cache"),
    ("connection", "keep-alive"),
]


def _stream_route(ctx: Context, req: Request) -> Response | StreamResponse:
    if req.method == "HEAD":  # headers only; a body would never end
        return Response(200, b"", "text/event-stream", _STREAM_HEADERS[1:])
    # Subscribe before the head is sent, so nothing logged after the client
    # sees "connected" can be missed.
    sub = ctx.logs.subscribe()

    async def run(send: Send, receive: Receive) -> None:
        try:
            await _pump(sub, send, receive)
        finally:
            ctx.logs.unsubscribe(sub)

    return StreamResponse(run, headers=list(_STREAM_HEADERS))


def register(router: Router) -> None:
    """Health and log routes."""
    router.add("GET", "/health", _health_route)
    router.add("GET", "/api/logs", _logs_route)
    router.add("GET", "/api/logs/stream", _stream_route)
