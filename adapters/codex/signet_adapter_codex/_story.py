"""The ``signet-sdk demo`` story told as Codex hook payloads.

Codex writes each session as a JSON-lines rollout and names it in every
payload; the demo writes one the same way (under the demo's own folder,
which it lists in ``SIGNET_TRANSCRIPT_ROOTS``), including the ``compacted``
line PostCompact reads its summary from.
"""

from __future__ import annotations

from typing import Any

__all__ = ["story_event"]


def _rollout(ctx: Any, *, compacted: bool = False) -> str:
    lines = [{"type": "session_meta", "payload": {"id": ctx.session_key, "cwd": ctx.project}}]
    for role, text in ctx.turns():
        kind = "input_text" if role == "user" else "output_text"
        item = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        lines.append({"type": "response_item", "payload": item})
    if compacted and ctx.summary:
        lines.append({"type": "compacted", "payload": {"message": ctx.summary}})
    return str(ctx.write_jsonl("codex-sessions", f"rollout-demo-{ctx.session_key}.jsonl", lines))


def story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    def hook(event: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        """One Codex hook payload: the session, the event's name, then ``fields``."""
        base = {
            "session_id": ctx.session_key,
            "cwd": ctx.project,
            "model": "gpt-5.5",
            "hook_event_name": event,
        }
        return event, {**base, **fields}

    if step == "session_start":
        return hook(
            "SessionStart", transcript_path=None, permission_mode="default", source="startup"
        )
    if step == "prompt":
        return hook(
            "UserPromptSubmit",
            turn_id="turn-1",
            transcript_path=None,
            permission_mode="default",
            prompt=ctx.prompt,
        )
    if step == "pre_compaction":
        return hook("PreCompact", turn_id="turn-2", transcript_path=_rollout(ctx), trigger="manual")
    if step == "compaction_complete":
        return hook(
            "PostCompact",
            turn_id="turn-2",
            transcript_path=_rollout(ctx, compacted=True),
            trigger="manual",
        )
    if step == "session_end":
        return hook("SessionEnd", transcript_path=_rollout(ctx), reason="other")
    return None
