"""The ``signet-sdk demo`` story told as the events pi's extension shim forwards.

pi keeps each session as a JSON-lines file (a ``session`` header, then one
``message`` entry per message) named ``<timestamp>_<session id>.jsonl``; the
demo writes one the same way under its own folder (which it lists in
``SIGNET_TRANSCRIPT_ROOTS``), so the session end carries a real file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["story_event"]

_STAMP = "2026-11-24T09-00-00-000Z"


def _session_file(ctx: Any) -> Path:
    return Path(ctx.workdir) / "pi-sessions" / f"{_STAMP}_{ctx.session_key}.jsonl"


def _write_session_file(ctx: Any) -> str:
    path = _session_file(ctx)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {
        "type": "session",
        "version": 3,
        "id": ctx.session_key,
        "timestamp": "2026-11-24T09:00:00.000Z",
        "cwd": ctx.project,
    }
    lines = [json.dumps(header)]
    parent = None
    for n, line in enumerate(str(ctx.transcript or "").splitlines()):
        role, _, text = line.partition(": ")
        if role not in ("user", "assistant"):
            continue
        entry_id = f"e{n:07d}"
        message = {"role": role, "content": [{"type": "text", "text": text}]}
        entry = {"type": "message", "id": entry_id, "parentId": parent, "message": message}
        lines.append(json.dumps(entry))
        parent = entry_id
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _session(ctx: Any, *, on_disk: bool = True) -> dict[str, Any]:
    return {
        "id": ctx.session_key,
        "file": str(_session_file(ctx)),
        "cwd": ctx.project,
        "persisted": True,
        "onDisk": on_disk,
    }


def story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    """One demo step as the pi event (name, forwarded payload), or None to skip it."""
    if step == "session_start":
        payload = {"type": "session_start", "reason": "startup", "carry": {}}
        return "session_start", {**payload, "session": _session(ctx, on_disk=False)}
    if step == "prompt":
        return "input", {
            "type": "input",
            "text": ctx.prompt,
            "source": "interactive",
            "images": 0,
            "session": _session(ctx),
            "carry": {},
        }
    if step == "pre_compaction":
        return "session_before_compact", {
            "type": "session_before_compact",
            "preparation": {"tokensBefore": 48000, "messagesToSummarize": 6},
            "session": _session(ctx),
            "carry": {},
        }
    if step == "compaction_complete":
        return "session_compact", {
            "type": "session_compact",
            "compactionEntry": {"id": "c0000001", "summary": ctx.summary},
            "fromExtension": False,
            "session": _session(ctx),
            "carry": {},
        }
    if step == "session_end":
        _write_session_file(ctx)
        return "session_shutdown", {
            "type": "session_shutdown",
            "reason": "quit",
            "session": _session(ctx),
            "carry": {},
        }
    return None
