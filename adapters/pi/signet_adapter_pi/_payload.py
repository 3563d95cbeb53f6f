"""pi payload access and session transcripts, kept apart from the event mapping.

Payloads are parsed JSON, so objects are checked as dicts and arrays as
lists (collections.abc and typing stay off the hook path); a wrong type is
a :class:`~signet_sdk.PayloadError` naming the field.
"""

from __future__ import annotations

from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.jsonfast import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

# -- payload access ------------------------------------------------------


def _str(obj: Mapping[str, Any], name: str, where: str = "") -> str | None:
    """A string field, or None when absent; a wrong type is always an error."""
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise PayloadError(where + name, f"must be a string, got {type(value).__name__}")
    return value


def _obj(obj: Mapping[str, Any], name: str, where: str = "") -> Mapping[str, Any] | None:
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise PayloadError(where + name, f"must be an object, got {type(value).__name__}")
    return value


def _list(obj: Mapping[str, Any], name: str, where: str = "") -> list[Any] | None:
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, list):
        raise PayloadError(where + name, f"must be an array, got {type(value).__name__}")
    return value


def _int(obj: Mapping[str, Any], name: str, where: str = "") -> int | None:
    value = obj.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise PayloadError(where + name, f"must be an integer, got {type(value).__name__}")
    return value


class _Session:
    """The ``session`` object of a payload, validated."""

    __slots__ = ("cwd", "entries", "file", "header", "id", "leaf", "on_disk", "persisted")

    def __init__(self, payload: Mapping[str, Any]) -> None:
        s = _obj(payload, "session")
        if s is None:
            raise PayloadError("session", "is required")
        sid = _str(s, "id", "session.")
        if not sid or not sid.strip():
            raise PayloadError("session.id", "is required")
        self.id = sid
        self.file = _str(s, "file", "session.") or None
        self.leaf = _str(s, "leafId", "session.") or None
        self.header = _obj(s, "header", "session.")
        cwd = _str(s, "cwd", "session.")
        if not cwd and self.header is not None:
            cwd = _str(self.header, "cwd", "session.header.")
        self.cwd = cwd or None
        self.persisted = s.get("persisted") is not False
        self.on_disk = s.get("onDisk") is True
        self.entries = _list(s, "entries", "session.")


# -- transcripts ------------------------------------------------------------


def _slim(message: Any) -> Any:
    """A pi message with image data left out (the rest as pi wrote it)."""
    if not isinstance(message, dict):
        return message
    content = message.get("content")
    if not isinstance(content, list) or not any(_is_image(b) for b in content):
        return message
    blocks = [{k: v for k, v in b.items() if k != "data"} if _is_image(b) else b for b in content]
    return {**message, "content": blocks}


def _is_image(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "image"


def _line(obj: Any) -> str:
    return dumps(obj)


def _messages_jsonl(messages: Sequence[Any]) -> str:
    """One prompt's messages as session-file message entries, one JSON line each."""
    return "".join(
        _line({"type": "message", "message": _slim(m)}) + "\n"
        for m in messages
        if isinstance(m, dict)
    )


def _entries_jsonl(header: Mapping[str, Any] | None, entries: Sequence[Any]) -> str:
    """The lines pi would write to the session file: the header, then every entry."""
    lines = [] if header is None else [_line(header)]
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "message" and isinstance(entry.get("message"), dict):
            entry = {**entry, "message": _slim(entry["message"])}
        lines.append(_line(entry))
    return "".join(line + "\n" for line in lines)


def _session_id_of_file(path: str | None) -> str | None:
    """The session id in a pi session file name (``<timestamp>_<id>.jsonl``)."""
    if not path:
        return None
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if not name.endswith(".jsonl") or "_" not in name:
        return None
    sid = name[: -len(".jsonl")].rsplit("_", 1)[1]
    return sid if sid and all(c.isalnum() or c == "-" for c in sid) else None


def _put(body: dict[str, Any], key: str, value: Any) -> None:
    if value is not None and value != "":
        body[key] = value


def _carried(payload: Mapping[str, Any], key: str) -> Any:
    carry = payload.get("carry")
    return carry.get(key) if isinstance(carry, dict) else None
