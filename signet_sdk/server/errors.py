"""Error answers of the adapter server: one JSON shape, field names as the wire spells them.

Every error body is ``{"error": "<message>", ...}`` plus what helps the
caller act: ``field`` (the wire name of the bad field), ``valid`` (the
actions, events or tools that exist), ``installed`` (the harness plugins),
``daemonStatus`` (what the daemon answered).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.requests import Request

from signet_sdk.wire.errors import (
    APIStatusError,
    APITimeoutError,
    ConfigError,
    PayloadError,
    RateLimitError,
    ServiceUnavailableError,
    SignetError,
)

__all__ = ["daemon_error", "error", "framework_refusal", "invalid_answer", "wire_field"]

#: Daemon statuses that describe the caller's request and pass through as they are.
_PASS_THROUGH = frozenset({400, 404, 409, 410, 413, 422})


def error(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def unreadable_body(reason: str) -> JSONResponse:
    """A body that is not one JSON document: the same 422 on every route."""
    return error(422, f"body: not valid JSON ({reason})", field="body")


def invalid_answer(model: type[BaseModel] | None, errors: Sequence[Any]) -> JSONResponse:
    """A FastAPI validation failure as a 422 naming its first field in the wire's names."""
    first: dict[str, Any] = dict(errors[0]) if errors else {"loc": (), "msg": "invalid"}
    if first.get("type") == "json_invalid":  # its location is a character offset, not a field
        ctx = first.get("ctx") or {}
        return unreadable_body(f"{ctx.get('error', first['msg'])} at character {first['loc'][-1]}")
    field = wire_field(model, first["loc"])
    return error(422, f"{field}: {first['msg']}", field=field)


async def framework_refusal(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's own refusals (404, 405, a body it could not read) in this server's shape.

    A body that is not UTF-8, or nested too deeply for the parser, reaches
    FastAPI's JSON reading as a bare 400 "There was an error parsing the
    body"; here it is the 422 naming ``body`` that the hot routes give.
    """
    assert isinstance(exc, HTTPException)
    cause = exc.__cause__
    if exc.status_code == 400 and cause is not None:
        if isinstance(cause, RecursionError):
            return unreadable_body("nested too deeply to be read")
        return unreadable_body(str(cause) or type(cause).__name__)
    return JSONResponse({"error": str(exc.detail)}, exc.status_code, headers=exc.headers)


def daemon_error(exc: SignetError, said: str | None = None) -> JSONResponse:
    """A daemon failure on a lifecycle or tool route, as this server's answer.

    A rejection of the request itself (400, 404, 409, 422 ...) keeps its
    status; backpressure (429, 503) too, with ``Retry-After``. The daemon
    refusing this server's own credentials, or failing, is a 502: the
    caller's request was fine. No answer in time is a 504. ``said`` words the
    failure in place of ``exc`` (a tool's message for the model), status kept.
    """
    text = str(exc) if said is None else said
    if isinstance(exc, PayloadError):
        return error(422, text, field=exc.field)
    if isinstance(exc, ConfigError) and exc.field != "client":
        # The client refused a value of this call before sending it (a memory
        # id of "."): the caller's request is at fault, not the daemon.
        return error(422, text, field=exc.field)
    if isinstance(exc, APIStatusError):
        status = exc.status_code
        if status in _PASS_THROUGH:
            return error(status, text, daemonStatus=status)
        if isinstance(exc, RateLimitError | ServiceUnavailableError):
            answer = error(status, text, daemonStatus=status)
            retry = getattr(exc, "retry_after", None)
            if isinstance(retry, int | float) and retry >= 0:
                answer.headers["retry-after"] = str(max(int(retry), 1))
            return answer
        return error(502, f"the daemon answered {status}: {text}", daemonStatus=status)
    if isinstance(exc, APITimeoutError):
        return error(504, f"the daemon did not answer in time: {text}")
    return error(502, f"the daemon could not be reached: {text}")


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation holds (``X | None``, ``list[X]`` ...)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin is None and not isinstance(annotation, types.UnionType):
        return []
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found += _models_in(arg)
    return found


def wire_field(model: type[BaseModel] | None, loc: Sequence[Any]) -> str:
    """A validation error's location in the wire's names: ``session_key`` -> ``sessionKey``.

    ``loc`` is FastAPI's (``("body", "session_key", ...)``); the leading
    ``body`` is dropped. Parts that are not fields of a known model (list
    indexes, dict keys) are kept as they are. The branch pydantic names
    inside a field of several types (``tags`` of ``str | list[str]`` fails
    at ``("tags", "str")``) is not on the wire, so the field is named alone.
    """
    parts = [p for p in loc][1:] if loc and loc[0] == "body" else list(loc)
    out: list[str] = []
    current: list[type[BaseModel]] = [model] if model is not None else []
    branch_next = False
    for part in parts:
        info = None
        if isinstance(part, str):
            info = next((m.model_fields[part] for m in current if part in m.model_fields), None)
        if info is None:
            if isinstance(part, str) and current:
                # a union branch's tag names a model: keep descending into it
                named = [m for m in current if m.__name__ == part]
                if branch_next and named:
                    current, branch_next = named, False
                    continue
                current = named or current
            if branch_next and isinstance(part, str):
                break  # the branch of a plain-typed union: the field is the name
            out.append(str(part))
            branch_next = False
            continue
        out.append(info.alias or part)
        current = _models_in(info.annotation)
        branch_next = _branches(info.annotation) > 1
    return ".".join(out) or "body"


def _branches(annotation: Any) -> int:
    """How many types other than None a union annotation joins (0: not a union)."""
    if typing.get_origin(annotation) is not typing.Union and not isinstance(
        annotation, types.UnionType
    ):
        return 0
    return sum(1 for arg in typing.get_args(annotation) if arg is not type(None))
