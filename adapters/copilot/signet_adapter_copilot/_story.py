"""The ``signet-sdk demo`` story told as Copilot CLI hook payloads.

Copilot CLI writes each session's events to ``events.jsonl``; the demo writes
one the same way, appending as the session goes (under the demo's own
folder, which it lists in ``SIGNET_TRANSCRIPT_ROOTS``): the ``hook.start``
line Copilot writes before each hook, after ``/compact`` the
``session.compaction_complete`` line whose summary the next hook (here, the
turn's agentStop) reports, and the conversation as ``user.message`` and
``assistant.message`` lines. Copilot's sessionEnd names no file; the
demo's names its events file, so that the file can live in the demo's
folder rather than in ``~/.copilot``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["story_event"]

_START = 1_795_645_920_000  # a fixed clock for the story's timestamps (ms)


def _append(ctx: Any, *lines: dict[str, Any]) -> str:
    """Append ``lines`` to the session's events.jsonl (started on first use), as Copilot does."""
    folder = Path(ctx.workdir) / "copilot-sessions" / ctx.session_key
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "events.jsonl"
    if not path.exists():
        start = {"type": "session.start", "data": {"sessionId": ctx.session_key}, "id": "ev-0"}
        lines = (start, *lines)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(x) + "\n" for x in lines))
    return str(path)


def _hook(kind: str, given: dict[str, Any]) -> dict[str, Any]:
    """The line Copilot writes before it runs the ``kind`` hooks."""
    data = {"hookInvocationId": f"h-{kind}-{given['timestamp']}", "hookType": kind, "input": given}
    return {"type": "hook.start", "data": data, "id": f"ev-{kind}-{given['timestamp']}"}


def _messages(ctx: Any) -> list[dict[str, Any]]:
    """The story's transcript as Copilot's user and assistant messages."""
    out = []
    for n, line in enumerate(str(ctx.transcript or "").splitlines()):
        role, _, text = line.partition(": ")
        if role in ("user", "assistant"):
            data = {"content": text, "messageId": f"m-{n}"}
            out.append({"type": f"{role}.message", "data": data, "id": f"ev-m{n}"})
    return out


def story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    def base(offset: int) -> dict[str, Any]:
        return {"sessionId": ctx.session_key, "timestamp": _START + offset, "cwd": ctx.project}

    if step == "session_start":
        return "sessionStart", {**base(0), "source": "new", "initialPrompt": "Hello"}
    if step == "prompt":
        return "userPromptSubmitted", {**base(100), "prompt": ctx.prompt}
    if step == "pre_compaction":
        pre = {**base(2_000), "trigger": "manual", "customInstructions": ""}
        pre["transcriptPath"] = _append(ctx, _hook("preCompact", dict(pre)))
        return "preCompact", pre
    if step == "compaction_complete":
        # /compact wrote its summary; the turn after it ends: its agentStop finds it.
        stop = {**base(9_000), "stopReason": "end_turn", "stop_hook_active": False}
        data = {"success": True, "summaryContent": ctx.summary, "trigger": "manual"}
        done = {"type": "session.compaction_complete", "data": data, "id": "ev-compacted"}
        stop["transcriptPath"] = _append(ctx, done, _hook("agentStop", dict(stop)))
        return "agentStop", stop
    if step == "session_end":
        end = {**base(20_000), "reason": "user_exit"}
        end["transcriptPath"] = _append(ctx, *_messages(ctx), _hook("sessionEnd", dict(end)))
        return "sessionEnd", end
    return None
