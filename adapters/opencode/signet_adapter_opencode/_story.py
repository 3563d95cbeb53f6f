"""The ``signet-sdk demo`` story told as the events OpenCode's plugin shim forwards.

OpenCode starts a session on its first prompt (``chat.message``), so the
story's session start is that first prompt; later prompts carry the marker
the first answer asked the shim to keep. The session ends with the held
``session.end`` the shim sends when OpenCode exits.
"""

from __future__ import annotations

from typing import Any

__all__ = ["story_event"]


def _message(n: int, role: str, text: str, **info: Any) -> dict[str, Any]:
    return {
        "info": {"id": f"msg_{n:04d}", "role": role, **info},
        "parts": [{"type": "text", "text": text}],
    }


def _chat(ctx: Any, carry: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "chat.message", {
        "type": "chat.message",
        "sessionID": ctx.session_key,
        "messageID": "msg_demo",
        "agent": "build",
        "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"},
        "parts": [{"type": "text", "text": ctx.prompt or "Hello"}],
        "directory": ctx.project,
        "carry": carry,
    }


def story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    """One demo step as the OpenCode event (name, forwarded payload), or None to skip it."""
    base = {"sessionID": ctx.session_key, "directory": ctx.project}
    started = {f"started:{ctx.session_key}": True}
    if step == "session_start":
        return _chat(ctx, {})
    if step == "prompt":
        return _chat(ctx, started)
    if step == "pre_compaction":
        return "experimental.session.compacting", {
            "type": "experimental.session.compacting",
            **base,
            "carry": started,
        }
    if step == "compaction_complete":
        messages = [
            _message(1, "user", "How should billing deploy?"),
            _message(2, "user", "", summary={"diffs": []}),
            _message(3, "assistant", ctx.summary, summary=True, mode="compaction"),
        ]
        return "session.compacted", {
            "type": "session.compacted",
            **base,
            "messages": messages,
            "carry": started,
        }
    if step == "session_end":
        return "session.end", {
            "type": "session.end",
            **base,
            "reason": "exit",
            "transcript": "\n".join(
                ("User: " if line.startswith("user") else "Assistant: ") + line.split(": ", 1)[-1]
                for line in str(ctx.transcript or "").splitlines()
                if ": " in line
            ),
            "carry": started,
        }
    return None
