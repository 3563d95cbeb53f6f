"""The native-event route, answered without FastAPI's request machinery.

Shims post every native event of a turn to ``POST /v1/{harness}/events/{event}``,
so its cost is added to each turn of a plugin harness. FastAPI's middleware,
dependency and body layers cost about as much as the event's own work, so
this ASGI layer answers those requests itself, through the same
:meth:`RuntimeAdapterServer.event_answer` the FastAPI route calls (the one
that documents the route in the OpenAPI), and hands every other request to
FastAPI unchanged. The security gate wraps both.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from signet_sdk.server.errors import error

if TYPE_CHECKING:
    from signet_sdk.server.app import RuntimeAdapterServer

__all__ = ["events_first"]


async def _body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _event_route(scope: Any) -> tuple[str, str] | None:
    """``(harness, event)`` when the request is a native event, else None."""
    if scope["type"] != "http" or scope["method"] != "POST":
        return None
    parts = scope["path"].split("/")
    if len(parts) != 5 or parts[0] or parts[1] != "v1" or parts[3] != "events":
        return None
    return (parts[2], parts[4]) if parts[2] and parts[4] else None


def events_first(server: RuntimeAdapterServer, app: Any) -> Any:
    """An ASGI app serving native events itself and everything else through ``app``."""

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        route = _event_route(scope)
        if route is None:
            await app(scope, receive, send)
            return
        raw = await _body(receive)
        try:
            payload = json.loads(raw) if raw.strip() else None
        except ValueError as exc:
            answer = error(422, f"body: not valid JSON ({exc})", field="body")
        else:
            if not isinstance(payload, dict):
                answer = error(422, "body: must be a JSON object", field="body")
            else:
                answer = await server.event_answer(route[0], route[1], payload)
        await answer(scope, receive, send)

    return asgi
