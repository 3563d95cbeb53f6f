"""The ``signet-sdk demo`` story told as the hooks the OpenClaw plugin forwards.

The story's session runs through the gateway: ``session_start`` starts it,
each prompt is a ``before_prompt_build`` of a started session, and the
session ends with the messages the plugin kept from the last run. The
compaction step is a host whose ``after_compaction`` carries the summary.
"""

from __future__ import annotations

from typing import Any

__all__ = ["story_event"]


def _ctx(c: Any, agent_ctx: bool = True) -> dict[str, Any]:
    ctx = {"agentId": "main", "sessionKey": c.session_key, "sessionId": f"{c.session_key}-id"}
    if agent_ctx:
        ctx.update(workspaceDir=c.project, trigger="user")
    return ctx


def _messages(transcript: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for line in str(transcript or "").splitlines():
        role, _, text = line.partition(": ")
        if role == "user":
            out.append({"role": "user", "content": text})
        elif role == "assistant":
            out.append({"role": "assistant", "content": [{"type": "text", "text": text}]})
    return out


def story_event(step: str, c: Any) -> tuple[str, dict[str, Any]] | None:
    """One demo step as the OpenClaw hook (name, forwarded payload), or None to skip it."""
    if step == "session_start":
        ids = {"sessionId": f"{c.session_key}-id", "sessionKey": c.session_key}
        return "session_start", {**ids, "ctx": _ctx(c, False), "carry": {}}
    if step == "prompt":
        payload = {"prompt": c.prompt, "messageCount": 0, "ctx": _ctx(c)}
        return "before_prompt_build", {**payload, "carry": {"started": True}}
    if step == "pre_compaction":
        payload = {"messageCount": 6, "tokenCount": 48000, "ctx": _ctx(c)}
        return "before_compaction", {**payload, "carry": {"started": True}}
    if step == "compaction_complete":
        payload = {"messageCount": 2, "compactedCount": 4, "summary": c.summary, "ctx": _ctx(c)}
        return "after_compaction", {**payload, "carry": {"started": True}}
    if step == "session_end":
        return "session_end", {
            "sessionId": f"{c.session_key}-id",
            "sessionKey": c.session_key,
            "messageCount": 0,
            "reason": "shutdown",
            "ctx": _ctx(c, False),
            "carry": {"started": True, "project": c.project},
            "held": {"messages": _messages(c.transcript)},
        }
    return None
