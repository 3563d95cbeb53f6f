"""The ``signet-sdk demo`` story told as Claude Code hook payloads.

Claude Code writes its transcript as JSON lines under its projects folder and
names it in every payload; the demo writes one the same way (under the demo's
own folder, which it lists in ``SIGNET_TRANSCRIPT_ROOTS``) so session end and
the turn checkpoints carry a real file.
"""

from __future__ import annotations

from typing import Any

__all__ = ["story_event"]


def _transcript_file(ctx: Any) -> str:
    records = [{"type": r, "message": {"role": r, "content": t}} for r, t in ctx.turns()]
    return str(ctx.write_jsonl("claude-projects/demo", f"{ctx.session_key}.jsonl", records))


def story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    def hook(event: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        """One Claude Code hook payload: the session, the event's name, then ``fields``."""
        base = {"session_id": ctx.session_key, "cwd": ctx.project, "hook_event_name": event}
        return event, {**base, **fields}

    if step == "session_start":
        return hook("SessionStart", source="startup")
    if step == "prompt":
        return hook("UserPromptSubmit", prompt=ctx.prompt)
    if step == "pre_compaction":
        return hook("PreCompact", trigger="manual", custom_instructions=None)
    if step == "compaction_complete":
        return hook("PostCompact", trigger="manual", compact_summary=ctx.summary)
    if step == "session_end":
        return hook("SessionEnd", reason="other", transcript_path=_transcript_file(ctx))
    return None
