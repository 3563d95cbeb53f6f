"""The ``signet-sdk demo`` story told as Qwen Code hook payloads.

Qwen Code records a session as JSON lines (``projects/<project>/chats/<session
id>.jsonl``: ``type`` ``user``/``assistant``, the message as ``role`` and
``parts``) and names the file in every payload as ``transcript_path``; the
demo writes one the same way, under the demo's own folder (which it lists in
``SIGNET_TRANSCRIPT_ROOTS``), so the session end carries a real file.
"""

from __future__ import annotations

from typing import Any

__all__ = ["story_event"]


def _record_file(ctx: Any) -> str:
    records = [
        {
            "sessionId": ctx.session_key,
            "type": role,
            "message": {"role": "user" if role == "user" else "model", "parts": [{"text": text}]},
        }
        for role, text in ctx.turns()
    ]
    where = "qwen-projects/-srv-signet-demo/chats"
    return str(ctx.write_jsonl(where, f"{ctx.session_key}.jsonl", records))


def story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    """The story's ``step`` as the Qwen Code event and payload it would be, or None."""

    def hook(event: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        base = {"session_id": ctx.session_key, "cwd": ctx.project, "hook_event_name": event}
        return event, {**base, "permission_mode": "default", **fields}

    if step == "session_start":
        return hook("SessionStart", source="startup", model="qwen3-coder-plus")
    if step == "prompt":
        return hook("UserPromptSubmit", prompt=ctx.prompt, submitted_prompt=ctx.prompt)
    if step == "pre_compaction":
        return hook("PreCompact", trigger="manual", custom_instructions="")
    if step == "compaction_complete":
        return hook("PostCompact", trigger="manual", compact_summary=ctx.summary)
    if step == "session_end":
        return hook("SessionEnd", reason="prompt_input_exit", transcript_path=_record_file(ctx))
    return None
