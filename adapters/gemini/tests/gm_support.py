"""What only the Gemini CLI tests need: chat files as Gemini CLI writes them.

Everything else (the scripted daemon, running a hook as Gemini does, the
outbox) comes from :mod:`signet_sdk.testing`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from signet_sdk.testing import write_jsonl


def chat_file(gemini_dir: Path, records: list[dict[str, Any]], name: str = "session-1") -> Path:
    """A chat file where Gemini keeps one: ``<.gemini>/tmp/atlas/chats/<name>.jsonl``."""
    return write_jsonl(gemini_dir / "tmp" / "atlas" / "chats" / f"{name}.jsonl", records)


def message(n: int, kind: str, text: str, second: int, tokens: int | None = None) -> dict[str, Any]:
    """One chat message record as Gemini CLI writes it."""
    record: dict[str, Any] = {
        "id": f"m{n}",
        "timestamp": f"2026-11-24T09:12:{second:02d}.000Z",
        "type": kind,
        "content": [{"text": text}] if kind == "user" else text,
    }
    if tokens is not None:
        record["tokens"] = {"input": tokens, "output": 8, "total": tokens + 8}
        record["model"] = "gemini-2.5-pro"
    return record
