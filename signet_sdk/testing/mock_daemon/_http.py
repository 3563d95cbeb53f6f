"""The HTTP vocabulary of the mock: ASGI types, a request, two kinds of response.

Written against raw ASGI 3 rather than a framework so that every status,
header and byte is the mock's decision. The real daemon's answers include
plain-text 404s, JSON 500s and exact error strings; a framework would
re-shape some of them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "JSON_TYPE",
    "TEXT_TYPE",
    "BadJson",
    "Message",
    "Receive",
    "Request",
    "Response",
    "Scope",
    "Send",
    "StreamResponse",
    "dump_json",
    "json_response",
    "text_response",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

JSON_TYPE = "application/json"
TEXT_TYPE = "text/plain; charset=UTF-8"


class BadJson(ValueError):
    """The body is not valid JSON (what ``c.req.json()`` rejects)."""


def _reject_constant(name: str) -> Any:
    # JSON.parse rejects NaN and Infinity; Python's json module accepts them.
    raise BadJson(f"Unexpected token {name[:1]} in JSON")


def dump_json(data: Any) -> bytes:
    """Serialize like ``JSON.stringify``: compact, UTF-8, no ASCII escaping."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode(
        "utf-8"
    )


@dataclass(slots=True)
class Request:
    """One received request, body already read, plus what the pipeline learned."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    client_host: str | None
    params: dict[str, str] = field(default_factory=dict)
    role: str | None = None
    loopback: bool = False

    def header(self, name: str) -> str | None:
        """A header value (names are matched case-insensitively)."""
        return self.headers.get(name.lower())

    def text(self) -> str:
        """The body as text; invalid UTF-8 is replaced, as a JS reader would."""
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """``c.req.json()``: the parsed body, or :class:`BadJson` (empty included)."""
        try:
            text = self.body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadJson("body is not UTF-8") from exc
        try:
            value = json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as exc:
            raise BadJson(exc.msg) from exc
        if isinstance(value, float) and not math.isfinite(value):
            raise BadJson("number out of range")
        return value

    def optional_json_object(self) -> dict[str, Any] | None:
        """``readOptionalJsonObject``: blank body is ``{}``; bad or non-object is ``None``."""
        if not self.text().strip():
            return {}
        try:
            value = self.json()
        except BadJson:
            return None
        return value if isinstance(value, dict) else None


@dataclass(slots=True)
class Response:
    """A complete response: status, headers and the whole body."""

    status: int
    body: bytes
    content_type: str = JSON_TYPE
    headers: list[tuple[str, str]] = field(default_factory=list)
    data: Any = None

    async def send(self, send: Send, *, head_only: bool = False) -> None:
        """Write the response to an ASGI ``send`` callable."""
        raw_headers = [
            (b"content-type", self.content_type.encode("latin-1")),
            (b"content-length", str(len(self.body)).encode("latin-1")),
        ]
        raw_headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in self.headers]
        await send({"type": "http.response.start", "status": self.status, "headers": raw_headers})
        await send({"type": "http.response.body", "body": b"" if head_only else self.body})


class StreamResponse:
    """A response whose body is produced until the stream decides to end (SSE)."""

    def __init__(
        self,
        run: Callable[[Send, Receive], Awaitable[None]],
        *,
        status: int = 200,
        headers: list[tuple[str, str]] | None = None,
    ) -> None:
        self.status = status
        self.headers = headers or []
        self._run = run

    async def send(self, send: Send, receive: Receive) -> None:
        """Send the head, then let the producer write body chunks until it stops."""
        raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in self.headers]
        await send({"type": "http.response.start", "status": self.status, "headers": raw})
        await self._run(send, receive)


def json_response(
    data: Any, status: int = 200, headers: list[tuple[str, str]] | None = None
) -> Response:
    """``c.json(data, status)``."""
    return Response(status, dump_json(data), JSON_TYPE, list(headers or []), data)


def text_response(text: str, status: int) -> Response:
    """``c.text(text, status)``, as Hono's default 404 and 500 use."""
    return Response(status, text.encode("utf-8"), TEXT_TYPE)
