"""The mock's HTTP vocabulary on Starlette: routes, JSON bodies, the exact answers.

What stays here is what the contract pins and Starlette does differently:
Hono's plain-text 404 (a wrong method too, never a 405) and 500, and
``c.req.json()``'s strictness (``NaN`` and an empty body are errors). Path
parameters match on the raw path, so an encoded ``/`` stays in its segment.
"""

from __future__ import annotations

import inspect
import json
import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match, Route
from starlette.types import Scope

if TYPE_CHECKING:
    from ._context import Context

#: ``(method, path, handler, permission)``; ``{name}`` marks a path parameter.
Handler = Callable[["Context", Request], Any]
RouteSpec = tuple[str, str, Handler, "str | None"]
H = TypeVar("H", bound=Handler)

_log = logging.getLogger("signet_sdk.testing.mock_daemon")


class BadJson(ValueError):
    """The body is not valid JSON (what ``c.req.json()`` rejects)."""


def _reject_constant(name: str) -> Any:
    # JSON.parse rejects NaN and Infinity; Python's json module accepts them.
    raise BadJson(f"Unexpected token {name[:1]} in JSON")


def body_json(req: Request) -> Any:
    """``c.req.json()``: the parsed body, or :class:`BadJson` (empty included)."""
    try:
        value = json.loads(req.state.body.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        raise BadJson("body is not UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise BadJson(exc.msg) from exc
    if isinstance(value, float) and not math.isfinite(value):
        raise BadJson("number out of range")
    return value


class Reply(Exception):
    """An answer decided deep inside a handler; ``daemon_route`` sends it."""

    def __init__(self, response: Response) -> None:
        self.response = response


def require(ok: object, message: str, status: int = 400, **extra: Any) -> None:
    """The daemon's ``if (!ok) return c.json({error: message, ...extra}, status)``."""
    if not ok:
        raise Reply(error(message, status, **extra))


def json_object(
    req: Request, *, blank: bool = False, fallback: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The body when it is a JSON object, else ``fallback`` or the 400 ``Invalid JSON body``;
    with ``blank``, an empty body reads as ``{}`` (``readOptionalJsonObject``)."""
    if blank and not req.state.body.strip():
        return {}
    try:
        value = body_json(req)
    except BadJson:
        value = None
    if not isinstance(value, dict) and fallback is None:
        raise Reply(error("Invalid JSON body"))
    return value if isinstance(value, dict) else fallback or {}


def query_arg(req: Request, name: str) -> str | None:
    """``c.req.query(name)``: the first value of a query parameter."""
    return req.state.query.get(name)  # type: ignore[no-any-return]


def json_response(data: Any, status: int = 200) -> JSONResponse:
    """``c.json(data, status)``: compact UTF-8 JSON, as ``JSON.stringify`` writes it."""
    return JSONResponse(data, status)


def error(message: str, status: int = 400, **extra: Any) -> JSONResponse:
    """``c.json({error: message, ...}, status)``: the daemon's error body."""
    return JSONResponse({"error": message, **extra}, status)


def text_response(text: str, status: int) -> Response:
    """``c.text(text, status)``, as Hono's default 404 and 500 use."""
    return Response(text, status, media_type="text/plain; charset=UTF-8")


NOT_FOUND = text_response("404 Not Found", 404)


class Routes(list[RouteSpec]):
    """A module's routes, registered by decorating their handlers (no two match one
    method and path, so the order only mirrors TS 0.109's registration)."""

    def add(self, method: str, path: str, permission: str | None = None) -> Callable[[H], H]:
        def register(handler: H) -> H:
            self.append((method, path, handler, permission))
            return handler

        return register


class DaemonRoute(Route):
    """A route that answers a wrong method with the 404 and decodes raw parameters; ``:key``
    never matches the literal ``summaries`` (TS 0.109's ``(?!summaries$)``)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        params = {name: unquote(value) for name, value in child.get("path_params", {}).items()}
        if match is not Match.FULL or params.get("key") == "summaries":
            return Match.NONE, {}
        return match, {**child, "path_params": params}


def daemon_route(ctx: Context, spec: RouteSpec) -> DaemonRoute:
    """One route: the permission guard, the daemon lock, then the handler."""
    method, path, handler, permission = spec

    async def endpoint(req: Request) -> Response:
        if permission is not None:
            denied = ctx.auth.require(permission, req.state.role, req.state.loopback)
            if denied is not None:
                return error(denied, 403)
        try:
            with ctx.lock:
                result = handler(ctx, req)
            if inspect.isawaitable(result):
                result = await result
        except Reply as reply:
            return reply.response
        except Exception as exc:
            # Hono's default onError: plain text, no JSON.
            _log.debug("unhandled error in %s %s", req.method, req.state.path, exc_info=True)
            ctx.logs.log("error", "http", f"Unhandled error in {req.state.path}", error=exc)
            return text_response("Internal Server Error", 500)
        assert isinstance(result, Response)
        return result

    return DaemonRoute(path, endpoint, methods=[method])
