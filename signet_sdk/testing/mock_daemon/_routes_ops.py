"""Operational routes: ``/health``, ``/api/logs`` and the ``/api/logs/stream`` SSE.

The stream follows TS 0.109: a ``connected`` frame, then one ``data:`` frame
per new log entry, no ``event:``/``id:`` fields, no keep-alive comments. It
ends when the client disconnects or when the daemon closes its streams
(server shutdown, or a test calling ``MockDaemon.close_log_streams``).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from typing import Any

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from ._context import Context
from ._logs import LEVELS, Subscriber
from ._rules import parse_leading_int
from ._web import RouteSpec, json_response, query_arg


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
            "version": ".".join(map(str, ctx.version)),
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
    limit = parse_leading_int(query_arg(req, "limit") or "100")
    level = query_arg(req, "level")
    logs = ctx.logs.recent(
        limit=100 if limit is None else limit,
        level=level if level in LEVELS else None,
        category=query_arg(req, "category") or None,
        since=query_arg(req, "since") or None,
    )
    return json_response({"logs": logs, "count": len(logs)})


def _frame(data: Any) -> bytes:
    return f"data: {json.dumps(data, separators=(',', ':'), ensure_ascii=False)}\n\n".encode()


async def _frames(sub: Subscriber) -> AsyncIterator[bytes]:
    """Forward entries until the stream is closed (Starlette ends it when the client leaves)."""
    yield _frame({"type": "connected"})
    while not Subscriber.is_close(entry := await sub.queue.get()):
        yield _frame(entry)


def _stream_route(ctx: Context, req: Request) -> Response:
    # The content type goes in as a header: Starlette would add a charset.
    head = {"content-type": "text/event-stream", "cache-control": "no-cache"}
    if req.method == "HEAD":  # headers only; a body would never end
        return Response(b"", headers=head)
    # Subscribe before the head is sent, so nothing logged after the client
    # sees "connected" can be missed.
    sub = ctx.logs.subscribe()
    done = BackgroundTask(ctx.logs.unsubscribe, sub)
    head["connection"] = "keep-alive"
    return StreamingResponse(_frames(sub), headers=head, background=done)


def routes(ctx: Context) -> list[RouteSpec]:
    """Health and log routes."""
    return [
        ("GET", "/health", _health_route, None),
        ("GET", "/api/logs", _logs_route, None),
        ("GET", "/api/logs/stream", _stream_route, None),
    ]
