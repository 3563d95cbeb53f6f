"""OpenCode payload access and transcripts, kept apart from the event mapping.

Payloads are parsed JSON, so objects are checked as dicts and arrays as
lists (collections.abc and typing stay off the hook path); a wrong type is
a :class:`~signet_sdk.PayloadError` naming the field.
"""

from __future__ import annotations

from signet_sdk.wire.errors import PayloadError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any


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


def _session_id(payload: Mapping[str, Any]) -> str:
    sid = _str(payload, "sessionID")
    if not sid or not sid.strip():
        raise PayloadError("sessionID", "is required")
    return sid


def _put(body: dict[str, Any], key: str, value: Any) -> None:
    if value is not None and value != "":
        body[key] = value


def _carried(payload: Mapping[str, Any], key: str) -> Any:
    carry = payload.get("carry")
    return carry.get(key) if isinstance(carry, dict) else None


def _text_of(parts: Sequence[Any], where: str) -> str:
    """The text a message shows: its non-synthetic text parts, joined by blank lines."""
    texts: list[str] = []
    for n, part in enumerate(parts):
        if not isinstance(part, dict):
            raise PayloadError(f"{where}[{n}]", "must be an object")
        if part.get("type") != "text" or part.get("synthetic") is True:
            continue
        text = _str(part, "text", f"{where}[{n}].")
        if text and text.strip():
            texts.append(text.strip())
    return "\n\n".join(texts)


class _Message:
    """One entry of OpenCode's session message list (``{info, parts}``), validated."""

    __slots__ = ("id", "role", "summary", "text")

    def __init__(self, entry: Any, where: str) -> None:
        if not isinstance(entry, dict):
            raise PayloadError(where, "must be an object")
        info = _obj(entry, "info", where + ".")
        if info is None:
            raise PayloadError(where + ".info", "is required")
        self.id = _str(info, "id", where + ".info.") or ""
        self.role = _str(info, "role", where + ".info.") or ""
        # A compaction's summary is an assistant message marked summary: true.
        self.summary = self.role == "assistant" and info.get("summary") is True
        self.text = _text_of(_list(entry, "parts", where + ".") or [], where + ".parts")


def _messages(payload: Mapping[str, Any]) -> list[_Message]:
    raw = _list(payload, "messages")
    if raw is None:
        raise PayloadError("messages", "is required")
    return [_Message(m, f"messages[{n}]") for n, m in enumerate(raw)]


def _transcript(messages: Sequence[_Message]) -> str:
    """``User:`` / ``Assistant:`` lines of the conversation (summaries left out)."""
    lines: list[str] = []
    for m in messages:
        if m.summary or not m.text or m.role not in ("user", "assistant"):
            continue
        lines.append(("User: " if m.role == "user" else "Assistant: ") + m.text)
    return "\n".join(lines)
