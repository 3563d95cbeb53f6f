"""The hot routes, answered without FastAPI's request machinery.

Shims post every native event of a turn to ``POST /v1/{harness}/events/{event}``
and libraries call ``POST /v1/{harness}/lifecycle/{action}`` on every prompt,
so their cost is added to each turn. FastAPI's middleware, dependency and
body layers cost about as much as the server's own work, so this ASGI layer
answers those two routes itself, through the same methods the FastAPI
routes call (:meth:`RuntimeAdapterServer.event_answer`,
:meth:`RuntimeAdapterServer.lifecycle_answer`; the FastAPI routes document
them in the OpenAPI and serve a mounted ``server.fastapi``), with the same
validation and error bodies, and hands every other request to FastAPI
unchanged. The security gate wraps both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

import signet_sdk.models as models
from signet_sdk.hooks.entry import EVENT_ID_HEADER
from signet_sdk.server.errors import error, wire_field
from signet_sdk.wire.jsonfast import loads_payload
from signet_sdk.wire.lifecycle import LIFECYCLE

if TYPE_CHECKING:
    from signet_sdk.server.app import RuntimeAdapterServer

__all__ = ["events_first"]

#: Lifecycle slug -> (client method, params model).
_ACTIONS = {row.slug: (row.method, getattr(models, row.params_model)) for row in LIFECYCLE.values()}


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


def _hot_route(scope: Any) -> tuple[str, str, str] | None:
    """``(kind, harness, name)`` for a native event or a known lifecycle action, else None."""
    if scope["type"] != "http" or scope["method"] != "POST":
        return None
    parts = scope["path"].split("/")
    if len(parts) != 5 or parts[0] or parts[1] != "v1" or not parts[2] or not parts[4]:
        return None
    if parts[3] == "events" or (parts[3] == "lifecycle" and parts[4] in _ACTIONS):
        return parts[3], parts[2], parts[4]
    return None  # an unknown action: FastAPI's 404 lists the valid ones


_JSON_HEADERS = [(b"content-type", b"application/json")]
_EVENT_ID = EVENT_ID_HEADER.encode("ascii")


def _event_id(scope: Any) -> str | None:
    """The ``X-Signet-Event-Id`` header (ASGI gives header names in lower case), or None."""
    for name, value in scope.get("headers") or ():
        if name == _EVENT_ID:
            return bytes(value).decode("latin-1")
    return None


async def _send_json(send: Any, body: bytes) -> None:
    """A 200 JSON answer as two ASGI messages (what a Starlette ``Response`` sends, less work)."""
    headers = [*_JSON_HEADERS, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _invalid(params_model: Any, exc: ValidationError) -> Any:
    first = exc.errors()[0]
    field = wire_field(params_model, first["loc"])
    return error(422, f"{field}: {first['msg']}", field=field)


async def _lifecycle(server: RuntimeAdapterServer, harness: str, slug: str, body: Any) -> Any:
    method, params_model = _ACTIONS[slug]
    try:
        params = params_model.model_validate(body)
    except ValidationError as exc:
        return _invalid(params_model, exc)
    return await server.lifecycle_json(method, harness, params)


def events_first(server: RuntimeAdapterServer, app: Any) -> Any:
    """An ASGI app serving the hot routes itself and everything else through ``app``."""

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        route = _hot_route(scope)
        if route is None:
            await app(scope, receive, send)
            return
        kind, harness, name = route
        raw = await _body(receive)
        if kind == "lifecycle" and raw[:1] == b"{":
            # The common case in one pydantic pass from the bytes; anything it
            # refuses takes the path below, which words the error.
            method, params_model = _ACTIONS[name]
            try:
                params = params_model.model_validate_json(raw)
            except ValidationError:
                pass
            else:
                result = await server.lifecycle_json(method, harness, params)
                if isinstance(result, bytes):
                    await _send_json(send, result)
                else:
                    await result(scope, receive, send)
                return
        try:
            payload = loads_payload(raw) if raw.strip() else None
        except ValueError as exc:
            answer = error(422, f"body: not valid JSON ({exc})", field="body")
        else:
            if not isinstance(payload, dict):
                answer = error(422, "body: must be a JSON object", field="body")
            elif kind == "events":
                answer = await server.event_answer(harness, name, payload, _event_id(scope))
            else:
                answer = await _lifecycle(server, harness, name, payload)
        if isinstance(answer, bytes):
            await _send_json(send, answer)
        else:
            await answer(scope, receive, send)

    return asgi
