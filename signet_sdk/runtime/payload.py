"""Reading a native event's payload: typed fields, or a ``PayloadError`` naming the field.

A plugin harness's shim forwards parsed JSON, so objects are checked as
dicts and arrays as lists. Absent (or null) is None; a value of the wrong
type is always an error, named by its path (``where`` + ``name``, e.g.
``session.cwd``), so a translator never guesses. A harness that hands the
conversation in the event (``messages``) has it written as transcript lines
by :func:`messages_jsonl`. Standard library only: the hook process imports
this for every event of a plugin harness.
"""

from __future__ import annotations

from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.jsonfast import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, TypeVar

    T = TypeVar("T")

__all__ = [
    "array",
    "carried",
    "integer",
    "mapping",
    "messages_jsonl",
    "put",
    "string",
    "without_image_data",
]


def string(
    obj: Mapping[str, Any], name: str, where: str = "", *, required: bool = False
) -> str | None:
    """A string field, or None when absent; ``required``: present and not blank."""
    value = obj.get(name)
    if value is None:
        if required:
            raise PayloadError(where + name, "is required")
        return None
    if not isinstance(value, str):
        raise PayloadError(where + name, f"must be a string, got {type(value).__name__}")
    if required and not value.strip():
        raise PayloadError(where + name, "must not be empty")
    return value


def _typed(obj: Mapping[str, Any], name: str, where: str, kind: type[T], noun: str) -> T | None:
    """The field ``name`` when it is a ``kind`` (never a boolean), None when absent."""
    value = obj.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, kind):
        raise PayloadError(where + name, f"must be {noun}, got {type(value).__name__}")
    return value


def mapping(obj: Mapping[str, Any], name: str, where: str = "") -> Mapping[str, Any] | None:
    """An object field, or None when absent."""
    return _typed(obj, name, where, dict, "an object")


def array(obj: Mapping[str, Any], name: str, where: str = "") -> list[Any] | None:
    """An array field, or None when absent."""
    return _typed(obj, name, where, list, "an array")


def integer(obj: Mapping[str, Any], name: str, where: str = "") -> int | None:
    """An integer field (not a boolean), or None when absent."""
    return _typed(obj, name, where, int, "an integer")


def put(body: dict[str, Any], key: str, value: Any) -> None:
    """Set ``body[key]`` unless ``value`` is None or empty: the daemon treats both as unset."""
    if value is not None and value != "":
        body[key] = value


def carried(payload: Mapping[str, Any], key: str) -> Any:
    """A marker the shim carried back from an earlier answer (``payload.carry[key]``)."""
    carry = payload.get("carry")
    return carry.get(key) if isinstance(carry, dict) else None


def without_image_data(message: Any) -> Any:
    """``message`` with the ``data`` of its image blocks left out, the rest as the harness holds it.

    A transcript is for the daemon to read the conversation: base64 images
    would only fill it and its size cap. Anything that is not a message
    object with an image block is returned as it is (the same object).
    """
    if not isinstance(message, dict):
        return message
    content = message.get("content")
    if not isinstance(content, list) or not any(_is_image(b) for b in content):
        return message
    blocks = [{k: v for k, v in b.items() if k != "data"} if _is_image(b) else b for b in content]
    return {**message, "content": blocks}


def _is_image(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "image"


def messages_jsonl(messages: Sequence[Any], field: str = "messages") -> str:
    """``messages`` as session-file message entries, one JSON line each (``""`` for none).

    Each object becomes ``{"type": "message", "message": ...}`` without its
    image data (:func:`without_image_data`), the shape pi and OpenClaw write
    to their session files; anything else in the array is skipped. Nested
    deeper than JSON can be written here, it is a :class:`PayloadError`
    naming ``field``.
    """
    try:
        return "".join(
            dumps({"type": "message", "message": without_image_data(m)}) + "\n"
            for m in messages
            if isinstance(m, dict)
        )
    except RecursionError:
        raise PayloadError(field, "is nested too deeply to record") from None
