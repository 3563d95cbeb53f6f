"""OpenCode payload access and transcripts, kept apart from the event mapping.

Payloads are parsed JSON, so objects are checked as dicts and arrays as
lists (collections.abc and typing stay off the hook path); a wrong type is
a :class:`~signet_sdk.PayloadError` naming the field.
"""

from __future__ import annotations

from signet_sdk.plugin import PayloadError, array, mapping, string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any


def _session_id(payload: Mapping[str, Any]) -> str:
    sid = string(payload, "sessionID")
    if not sid or not sid.strip():
        raise PayloadError("sessionID", "is required")
    return sid


def _text_of(parts: Sequence[Any], where: str) -> str:
    """The text a message shows: its non-synthetic text parts, joined by blank lines."""
    texts: list[str] = []
    for n, part in enumerate(parts):
        if not isinstance(part, dict):
            raise PayloadError(f"{where}[{n}]", "must be an object")
        if part.get("type") != "text" or part.get("synthetic") is True:
            continue
        text = string(part, "text", f"{where}[{n}].")
        if text and text.strip():
            texts.append(text.strip())
    return "\n\n".join(texts)


class _Message:
    """One entry of OpenCode's session message list (``{info, parts}``), validated."""

    __slots__ = ("id", "role", "summary", "text")

    def __init__(self, entry: Any, where: str) -> None:
        if not isinstance(entry, dict):
            raise PayloadError(where, "must be an object")
        info = mapping(entry, "info", where + ".")
        if info is None:
            raise PayloadError(where + ".info", "is required")
        self.id = string(info, "id", where + ".info.") or ""
        self.role = string(info, "role", where + ".info.") or ""
        # A compaction's summary is an assistant message marked summary: true.
        self.summary = self.role == "assistant" and info.get("summary") is True
        self.text = _text_of(array(entry, "parts", where + ".") or [], where + ".parts")


def _messages(payload: Mapping[str, Any]) -> list[_Message]:
    raw = array(payload, "messages")
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
