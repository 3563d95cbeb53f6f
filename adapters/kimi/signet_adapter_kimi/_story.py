"""The ``signet-sdk demo`` story told as Kimi Code hook payloads.

Kimi's payloads name no file: the hooks find a session's ``wire.jsonl``
under Kimi's own data folder. The story's sessions exist nowhere there, so
its hooks read and keep nothing on disk: SessionStart's context is printed
(and not held), PostCompact finds no summary to send (the demo says so),
and the session end goes without a transcript.
"""

from __future__ import annotations

from typing import Any

__all__ = ["story_event"]


def story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    def hook(event: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        """One Kimi hook payload: the event's name, the session, then ``fields``."""
        base = {
            "hook_event_name": event,
            "session_id": ctx.session_key,
            "cwd": ctx.project,
            "client_type": "kimi_code_cli",
        }
        return event, {**base, **fields}

    if step == "session_start":
        return hook("SessionStart", source="startup", model="kimi-code/k3", profile="agent")
    if step == "prompt":
        parts = [{"type": "text", "text": ctx.prompt}]
        return hook("UserPromptSubmit", prompt=parts, is_steer=False)
    if step == "pre_compaction":
        return hook("PreCompact", trigger="manual", token_count=48213)
    if step == "compaction_complete":
        return hook("PostCompact", trigger="manual", estimated_token_count=9120)
    if step == "session_end":
        return hook("SessionEnd", reason="exit")
    return None
