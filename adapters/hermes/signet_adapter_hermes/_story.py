"""The ``signet-sdk demo`` story told as the hooks Hermes calls on the provider.

Compaction-complete has no hook of its own in Hermes: the story's summary
reaches the daemon the way Hermes's does, as the marked summary message in
the history of the first ``sync_turn`` after a compression.
"""

from __future__ import annotations

from typing import Any

__all__ = ["story_event"]


def _session(ctx: Any) -> dict[str, Any]:
    return {
        "id": ctx.session_key,
        "project": ctx.project,
        "platform": "cli",
        "agentContext": "primary",
    }


def _messages(transcript: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for line in str(transcript or "").splitlines():
        role, _, text = line.partition(": ")
        if role in ("user", "assistant"):
            out.append({"role": role, "content": text})
    return out


def story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    """One demo step as the Hermes hook (name, payload), or None to skip it."""
    base: dict[str, Any] = {"session": _session(ctx), "carry": {}}
    if step == "session_start":
        return "initialize", base
    if step == "prompt":
        return "prefetch", {**base, "query": ctx.prompt}
    if step == "pre_compaction":
        return "on_pre_compress", {**base, "messages": _messages(ctx.transcript)}
    if step == "compaction_complete":
        summary = {"role": "user", "content": ctx.summary, "_compressed_summary": True}
        messages = [
            summary,
            {"role": "user", "content": "Write the pipeline config next."},
            {"role": "assistant", "content": "Here is the pipeline config."},
        ]
        return "sync_turn", {
            **base,
            "user": "Write the pipeline config next.",
            "assistant": "Here is the pipeline config.",
            "messages": messages,
            "carry": {"compacted": True},
        }
    if step == "session_end":
        return "on_session_end", {**base, "messages": _messages(ctx.transcript)}
    return None
