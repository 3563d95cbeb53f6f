"""The ``signet-sdk demo`` story told as Gemini CLI hook payloads.

Gemini records each session as a JSON-lines chat file and names it in every
payload; the demo writes one the same way (under the demo's own folder,
which it lists in ``SIGNET_TRANSCRIPT_ROOTS``). For the compaction it
writes what Gemini leaves after compressing during a turn: the summary and
the acknowledgement, the kept history, then the turn's prompt and answer,
which the turn's AfterAgent reads the summary from.
"""

from __future__ import annotations

from typing import Any

from ._chat import ACK

__all__ = ["story_event"]

_T0 = "2026-11-24T09:12:"


def _message(n: int, kind: str, text: str, second: int) -> dict[str, Any]:
    return {
        "id": f"m{n}",
        "timestamp": f"{_T0}{second:02d}.000Z",
        "type": kind,
        "content": [{"text": text}],
    }


def _chat(ctx: Any, *, compressed: bool = False) -> str:
    lines: list[dict[str, Any]] = [{"sessionId": ctx.session_key, "projectHash": "demo"}]
    for n, (role, text) in enumerate(ctx.turns()):
        kind = "user" if role == "user" else "gemini"
        lines.append(_message(n, kind, text, 10 + n))
    if compressed and ctx.summary:
        kept = [
            _message(1, "user", "How should billing deploy?", 10),
            _message(2, "gemini", "Blue-green, on Tuesdays.", 11),
        ]
        lines = [
            lines[0],
            *kept,
            {
                "$set": {
                    "messages": [
                        _message(3, "user", ctx.summary, 20),
                        _message(4, "gemini", ACK, 20),
                        *kept,
                    ]
                }
            },
            _message(5, "user", ctx.prompt or "Write the pipeline config next.", 21),
            _message(6, "gemini", "Here is the pipeline config.", 22),
        ]
    return str(ctx.write_jsonl("gemini-chats", f"session-demo-{ctx.session_key}.jsonl", lines))


def story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    def hook(event: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        """One Gemini CLI hook payload: the session, the event's name, then ``fields``."""
        base = {
            "session_id": ctx.session_key,
            "cwd": ctx.project,
            "timestamp": f"{_T0}00.000Z",
            "hook_event_name": event,
        }
        return event, {**base, **fields}

    if step == "session_start":
        return hook("SessionStart", transcript_path="", source="startup")
    if step == "prompt":
        return hook("BeforeAgent", transcript_path="", prompt=ctx.prompt)
    if step == "pre_compaction":
        return hook("PreCompress", transcript_path=_chat(ctx), trigger="manual")
    if step == "compaction_complete":
        # Gemini has no post-compression event: the turn's AfterAgent finds the summary.
        return hook(
            "AfterAgent",
            transcript_path=_chat(ctx, compressed=True),
            prompt=ctx.prompt,
            prompt_response="Here is the pipeline config.",
            stop_hook_active=False,
        )
    if step == "session_end":
        return hook("SessionEnd", transcript_path=_chat(ctx), reason="exit")
    return None
