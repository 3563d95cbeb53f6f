"""The ``signet-sdk demo`` story told as Cursor hook payloads.

Cursor writes each conversation as JSON lines (``{"role": ..., "message":
{"content": [{"type": "text", "text": ...}]}}``) and names the file in
``transcript_path``; the demo writes one the same way under its own folder
(which it lists in ``SIGNET_TRANSCRIPT_ROOTS``) so session end carries a
real file. Cursor has no event after a compaction, so that step is not
told.
"""

from __future__ import annotations

from typing import Any

__all__ = ["story_event"]


def _transcript_file(ctx: Any) -> str:
    records = [
        {"role": role, "message": {"content": [{"type": "text", "text": text}]}}
        for role, text in ctx.turns()
    ]
    where = "cursor-projects/demo/agent-transcripts"
    return str(ctx.write_jsonl(where, f"{ctx.session_key}.jsonl", records))


def story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    def hook(event: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        """One Cursor hook payload: the conversation, the event's name, then ``fields``."""
        base = {
            "conversation_id": ctx.session_key,
            "generation_id": f"{ctx.session_key}-generation",
            "model": "claude-4.5-sonnet",
            "hook_event_name": event,
            "cursor_version": "2.0.77",
            "workspace_roots": [ctx.project],
            "user_email": None,
            "transcript_path": None,
        }
        return event, {**base, **fields}

    if step == "session_start":
        return hook("sessionStart", session_id=ctx.session_key, is_background_agent=False,
                    composer_mode="agent")  # fmt: skip
    if step == "prompt":
        return hook("beforeSubmitPrompt", prompt=ctx.prompt, attachments=[])
    if step == "pre_compaction":
        return hook("preCompact", trigger="manual", message_count=6, messages_to_compact=4)
    if step == "session_end":
        return hook(
            "sessionEnd",
            session_id=ctx.session_key,
            reason="completed",
            duration_ms=60000,
            is_background_agent=False,
            final_status="completed",
            transcript_path=_transcript_file(ctx),
        )
    return None  # compaction_complete: Cursor has no such event
