"""Field types several bodies share, so one rule is written once.

The string rules mirror the daemon's own checks: a field it tests for
truthiness must not be empty, one it trims first must not be blank. Failing
here names the field before a request is sent, instead of a 400 afterwards.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

__all__ = ["IsoTimestamp", "JsonObject", "NonBlankStr", "NonEmptyStr", "RuntimePath", "Tags"]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


#: The daemon checks the value for truthiness: ``""`` is a 400.
NonEmptyStr = Annotated[str, Field(min_length=1)]

#: The daemon trims before checking: whitespace alone is a 400.
NonBlankStr = Annotated[str, Field(min_length=1), AfterValidator(_not_blank)]

#: Only these two strings claim a session; anything else claims nothing.
RuntimePath = Literal["plugin", "legacy"]

#: Write routes take a comma list, a list, or null (clear); rows carry the comma
#: string, and a list from another daemon is tolerated rather than refused.
Tags = str | list[str] | None


def _real_instant(value: str) -> str:
    # The shape alone lets 2026-13-45 through; the daemon also parses it.
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError("must be a real date and time") from None
    return value


#: An ISO 8601 instant as newer daemons demand it on session-end ``capturedAt``:
#: date, ``T``, time to the second, at most milliseconds, then ``Z`` or an offset
#: (the pattern of NicholaiVogel/signetai platform/daemon/src/routes/hooks-routes.ts
#: @0f06b2b9, ``ISO_TIMESTAMP_RE``). Anything else is a 400 there, refused here.
IsoTimestamp = Annotated[
    str,
    Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2})$"),
    AfterValidator(_real_instant),
]


#: Deeper than this, pydantic's serialiser gives up while sending (its own
#: limit is a little over 250 levels, counting the models around the value).
_JSON_DEPTH = 200


def _json_only(value: dict[str, Any]) -> dict[str, Any]:
    """Refuse, by path, what the request could not carry as JSON.

    Without this the model accepted any Python object and the call failed
    while sending with a bare ``PydanticSerializationError`` that named no
    field (an ``object()``, bytes that are not UTF-8, nesting too deep), or
    sent a NaN as ``null`` without a word.
    """
    stack: list[tuple[str, Any, int]] = [("", value, 1)]
    while stack:
        path, item, depth = stack.pop()
        where = path or "(top)"
        if depth > _JSON_DEPTH:
            raise ValueError(f"nested deeper than {_JSON_DEPTH} levels")
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    raise ValueError(f"{where}: key {key!r} is not a string")
                stack.append((f"{path}.{key}" if path else key, child, depth + 1))
        elif isinstance(item, list | tuple):
            stack.extend((f"{path}[{i}]", child, depth + 1) for i, child in enumerate(item))
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise ValueError(f"{where}: {item!r} is not a number JSON can carry")
        elif item is not None and not isinstance(item, str | int):
            raise ValueError(f"{where}: {type(item).__name__} is not a JSON type")
    return value


#: A JSON object given as a dict: strings, finite numbers, booleans, null,
#: lists and objects with string keys, and nothing else.
JsonObject = Annotated[dict[str, Any], AfterValidator(_json_only)]
