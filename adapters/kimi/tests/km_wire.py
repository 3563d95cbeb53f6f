"""Kimi Code 2.1.0 session folders, as the tests lay them out.

The records have the shapes the real ``kimi`` writes to
``sessions/<workDirKey>/<sessionId>/agents/main/wire.jsonl`` (captured from
2.1.0 runs; the long ones, the system prompt and the tool list, are cut
down to what the hooks look at).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

SESSION = "session_35053fff-fa9c-47c1-ad90-bd106925bcd1"
PROJECT = "/home/dev/projects/atlas"


def bucket(cwd: str) -> str:
    """Kimi's ``workDirKey`` for ``cwd``: ``wd_<slug>_<12 hex digits of its SHA-256>``."""
    slug = Path(cwd).name or "root"
    return f"wd_{slug}_{hashlib.sha256(cwd.encode()).hexdigest()[:12]}"


def prompt(text: str, turn: int, at: int) -> dict[str, Any]:
    return {
        "type": "turn.prompt",
        "agentId": "main",
        "input": [{"type": "text", "text": text}],
        "origin": {"kind": "user"},
        "promptId": f"msg_{turn:04d}",
        "turnId": turn,
        "time": at,
    }


def hook_result(text: str, at: int) -> dict[str, Any]:
    """The user message Kimi adds for UserPromptSubmit's output (not the user's words)."""
    content = f'<hook_result hook_event="UserPromptSubmit">\n{text}\n</hook_result>'
    message = {
        "role": "user",
        "content": [{"type": "text", "text": content}],
        "toolCalls": [],
        "origin": {"kind": "hook_result", "event": "UserPromptSubmit"},
    }
    return {"type": "context.append_message", "agentId": "main", "message": message, "time": at}


def echoed(text: str, at: int) -> dict[str, Any]:
    """The event record of the user's message (``source: input``), beside ``turn.prompt``."""
    inner = {"role": "user", "content": [{"type": "text", "text": text}]}
    meta = {"source": "input", "origin": {"kind": "user"}, "tracked": True}
    return {
        "message": {"message": inner, "meta": meta},
        "type": "agent.message.appended",
        "time": at,
        "kind": "event",
    }


def answer(text: str, at: int, *, tool: bool = False) -> dict[str, Any]:
    parts = [{"type": "text", "text": text}] if text else []
    calls = [{"id": "call_1", "name": "Bash", "arguments": "{}"}] if tool else []
    inner = {"role": "assistant", "content": parts, "toolCalls": calls}
    meta = {"source": "llm", "finish": {"finishReason": "completed"}}
    return {
        "message": {"message": inner, "meta": meta},
        "type": "agent.message.appended",
        "time": at,
        "kind": "event",
    }


def compaction(summary: str, at: int) -> dict[str, Any]:
    return {
        "type": "context.apply_compaction",
        "agentId": "main",
        "summary": summary,
        "contextSummary": f"The conversation so far has been compacted ...\n{summary}",
        "compactedCount": 9,
        "time": at,
    }


def preamble(at: int) -> list[dict[str, Any]]:
    return [
        {"type": "metadata", "protocol_version": "1.5", "created_at": at},
        {"type": "profile.bind", "agentId": "main", "systemPrompt": "You are Kimi Code CLI."},
        {"type": "llm.tools_snapshot", "agentId": "main", "tools": [{"name": "Bash"}]},
    ]


def make_session(
    kimi_home: Path, records: list[dict[str, Any]], *, session: str = SESSION, cwd: str = PROJECT
) -> Path:
    """A session folder with ``state.json`` and the main agent's ``wire.jsonl``; the log."""
    folder = kimi_home / "sessions" / bucket(cwd) / session
    (folder / "agents" / "main").mkdir(parents=True, exist_ok=True)
    state = {"id": session, "version": 2, "cwd": cwd, "archived": False}
    (folder / "state.json").write_text(json.dumps(state))
    wire = folder / "agents" / "main" / "wire.jsonl"
    wire.write_text("".join(json.dumps(r) + "\n" for r in records))
    return wire


def append(wire: Path, *records: dict[str, Any]) -> None:
    with wire.open("a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in records))


def turn_records(question: str, reply: str, turn: int, at: int) -> list[dict[str, Any]]:
    """One turn as Kimi logs it: the hook's context, the prompt, its echo, the answer."""
    return [
        hook_result("- Atlas deploys go through make ship.", at),
        prompt(question, turn, at + 1),
        echoed(question, at + 2),
        answer(reply, at + 3),
    ]
