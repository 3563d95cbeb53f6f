"""First-match routing over raw path segments, as Hono does it.

Hono tries routes in registration order and the first match wins. That order
is part of the contract: in TS 0.109 ``GET /api/memory/:id`` is registered
before ``GET /api/memory/search``, so a search by GET answers 404. Routing
works on the raw (still percent-encoded) path so that an encoded ``/`` inside
a session key stays inside its segment.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:
    from ._context import Context
    from ._http import Request

__all__ = ["Handler", "Route", "Router"]

Handler = Callable[["Context", "Request"], Any]
ParamCheck = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class Route:
    """One registered route: method, pattern segments, guard and handler."""

    method: str
    pattern: str
    segments: tuple[str, ...]
    handler: Handler
    permission: str | None
    checks: tuple[tuple[str, ParamCheck], ...]

    def match(self, parts: list[str]) -> dict[str, str] | None:
        """Path parameters when ``parts`` (raw segments) fit this pattern."""
        if len(parts) != len(self.segments):
            return None
        params: dict[str, str] = {}
        for seg, part in zip(self.segments, parts, strict=True):
            if seg.startswith(":"):
                if part == "":
                    return None
                params[seg[1:]] = unquote(part)
            elif seg != part:
                return None
        for name, check in self.checks:
            if not check(params[name]):
                return None
        return params


class Router:
    """An ordered route table."""

    def __init__(self) -> None:
        self._routes: list[Route] = []

    def add(
        self,
        method: str,
        pattern: str,
        handler: Handler,
        *,
        permission: str | None = None,
        checks: Mapping[str, ParamCheck] | None = None,
    ) -> None:
        """Register a route; ``permission`` is the route-level ``requirePermission``."""
        segments = tuple(pattern.strip("/").split("/"))
        self._routes.append(
            Route(method, pattern, segments, handler, permission, tuple((checks or {}).items()))
        )

    @property
    def routes(self) -> tuple[Route, ...]:
        """Every registered route, in matching order."""
        return tuple(self._routes)

    def resolve(self, method: str, raw_path: str) -> tuple[Route, dict[str, str]] | None:
        """The first route matching method and raw path, with its parameters."""
        if not raw_path.startswith("/"):
            return None
        parts = raw_path[1:].split("/")
        # HEAD is answered by the GET handler without a body (as Hono does).
        wanted = "GET" if method == "HEAD" else method
        for route in self._routes:
            if route.method != wanted:
                continue
            params = route.match(parts)
            if params is not None:
                return route, params
        return None
