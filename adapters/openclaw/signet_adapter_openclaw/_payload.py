"""OpenClaw payload access and answer text, kept apart from the event mapping.

Payloads are parsed JSON, so objects are checked as dicts and arrays as
lists (collections.abc and typing stay off the hook path); a wrong type is
a :class:`~signet_sdk.PayloadError` naming the field.
"""

from __future__ import annotations

from signet_sdk.plugin import PayloadError, mapping, string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


class _Scope:
    """Who an event belongs to: the hook context and the event, validated.

    The session key is OpenClaw's ``sessionKey`` (``agent:<id>:<rest>``,
    stable across ``/new``), else its ``sessionId``; the context wins over
    the event. The project is the agent's workspace directory.
    """

    __slots__ = ("agent", "carry", "held", "key", "project", "session_id", "trigger")

    def __init__(self, payload: Mapping[str, Any]) -> None:
        ctx = mapping(payload, "ctx") or {}
        self.carry = mapping(payload, "carry") or {}
        self.held = mapping(payload, "held") or {}
        key = None
        for where, source in (("ctx.", ctx), ("", payload)):
            key = key or string(source, "sessionKey", where) or None
        session_id = string(ctx, "sessionId", "ctx.") or string(payload, "sessionId") or None
        key = key or session_id
        if not key or not key.strip():
            raise PayloadError("ctx.sessionKey", "is required (or ctx.sessionId)")
        self.key = key
        self.session_id = session_id
        self.agent = string(ctx, "agentId", "ctx.") or None
        self.project = string(ctx, "workspaceDir", "ctx.") or None
        self.trigger = string(ctx, "trigger", "ctx.") or None

    def carried(self, name: str) -> Any:
        return self.carry.get(name)


def _text_of(content: Any) -> str:
    """The text of a message's content: a string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    return "\n".join(parts)


# -- answers -----------------------------------------------------------------


def _wrap(text: str, source: str) -> str:
    if not text.strip():
        return ""
    return f'<signet-memory source="{source}">\n{text.strip()}\n</signet-memory>'
