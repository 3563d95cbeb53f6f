"""Copilot CLI ``events.jsonl`` lines, shaped as Copilot CLI 1.0.102 writes them.

Each helper returns one event record (``type``, ``data``, ``id``,
``timestamp``, ``parentId``; a top-level ``agentId`` on a subagent's). The
tests write them with :func:`signet_sdk.testing.write_jsonl`, where Copilot
would: ``$COPILOT_HOME/session-state/<sessionId>/events.jsonl``.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

SESSION = "3f6c2a1e-8b4d-4e7a-9c15-2d8e0f4b7a90"
AGENT = "b81d6e0c-2f4a-4c39-a7e5-6d0f9c3b1e28"
CWD = "/home/dev/projects/atlas"
T0 = 1795645920000
SUMMARY = "<overview>Atlas deploys go through make ship; staging stays on pg-staging-2.</overview>"

_ids = itertools.count(1)


def _event(kind: str, data: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
    n = next(_ids)
    record: dict[str, Any] = {
        "type": kind,
        "data": data,
        "id": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": "2026-11-24T09:12:00.000Z",
        "parentId": None,
    }
    if agent is not None:
        record["agentId"] = agent
    return record


def payload(ts: int, session: str = SESSION, **fields: Any) -> dict[str, Any]:
    """A camelCase hook payload: ``sessionId``, ``timestamp``, ``cwd`` and ``fields``."""
    return {"sessionId": session, "timestamp": ts, "cwd": CWD, **fields}


def hook_start(kind: str, given: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
    """The line Copilot logs before it runs the ``kind`` hooks with input ``given``."""
    data = {"hookInvocationId": f"inv-{next(_ids)}", "hookType": kind, "input": given}
    return _event("hook.start", data, agent)


def hook_end(kind: str) -> dict[str, Any]:
    return _event("hook.end", {"hookInvocationId": "inv", "hookType": kind, "success": True})


def user(text: str, agent: str | None = None, **extra: Any) -> dict[str, Any]:
    return _event(
        "user.message", {"content": text, "transformedContent": f"<x>{text}", **extra}, agent
    )


def assistant(text: str, agent: str | None = None) -> dict[str, Any]:
    data = {"messageId": f"m-{next(_ids)}", "content": text, "toolRequests": []}
    return _event("assistant.message", data, agent)


def compaction(
    summary: str = SUMMARY, *, success: bool = True, agent: str | None = None
) -> dict[str, Any]:
    data: dict[str, Any] = {"success": success, "outcome": "applied", "trigger": "manual"}
    if success:
        data["summaryContent"] = summary
        data["checkpointNumber"] = 1
    return _event("session.compaction_complete", data, agent)


def other(kind: str, agent: str | None = None) -> dict[str, Any]:
    return _event(kind, {"note": kind}, agent)


def events_file(copilot_home: Path, records: list[dict[str, Any]], session: str = SESSION) -> Path:
    path = copilot_home / "session-state" / session / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def conversation_bytes(*turns: tuple[str, str]) -> bytes:
    """The conversation file the hook derives, as the daemon receives it."""
    lines = [
        json.dumps({"role": r, "content": t}, separators=(",", ":"), ensure_ascii=False)
        for r, t in turns
    ]
    return ("\n".join(lines) + "\n").encode()
