"""Transcript intake: the portable ``transcriptPath`` rule and text normalization.

TS 0.109 reads any readable path. The Rust daemon and the published docs
accept only regular files under ``/tmp/signet`` up to 400 000 bytes, and the
SDK must satisfy both, so the mock enforces the stricter rule with the Rust
daemon's answers: a client that passes against the mock passes against both.
"""

from __future__ import annotations

import json
import os
from typing import Any

TRANSCRIPT_ROOT = "/tmp/signet"
MAX_TRANSCRIPT_BYTES = 400_000
JOB_TRANSCRIPT_CHARS = 100_000


class TranscriptRejected(Exception):
    """A ``transcriptPath`` the portable rule refuses: the status and error to answer."""

    def __init__(self, status: int, error: str) -> None:
        super().__init__(error)
        self.status = status
        self.error = error


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def read_transcript_path(path: Any, root: str = TRANSCRIPT_ROOT) -> str | None:
    """Read a staged transcript file, or ``None`` when there is no such file.

    Outside the staging root, or not a regular file: 403. Over 400 000 bytes:
    413. A missing file is ignored (the inline transcript, if any, is used),
    as TS 0.109 ignores unreadable paths.
    """
    if not isinstance(path, str) or not path:
        return None
    real = os.path.realpath(path)
    if not _under(real, os.path.realpath(root)):
        raise TranscriptRejected(403, "transcript_path outside allowed workspace roots")
    if not os.path.lexists(real):
        return None
    if not os.path.isfile(real):
        raise TranscriptRejected(403, "transcript_path outside allowed workspace roots")
    if os.path.getsize(real) > MAX_TRANSCRIPT_BYTES:
        raise TranscriptRejected(413, f"transcript_path exceeds {MAX_TRANSCRIPT_BYTES} byte limit")
    with open(real, "rb") as fh:
        data = fh.read(MAX_TRANSCRIPT_BYTES + 1)
    if len(data) > MAX_TRANSCRIPT_BYTES:
        raise TranscriptRejected(413, f"transcript_path exceeds {MAX_TRANSCRIPT_BYTES} byte limit")
    return data.decode("utf-8", errors="replace")


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(p for p in parts if p)
    return ""


def _turn(obj: dict[str, Any]) -> tuple[str, str] | None:
    message = obj.get("message") if isinstance(obj.get("message"), dict) else obj
    assert isinstance(message, dict)
    role = message.get("role") or obj.get("role") or obj.get("type")
    text = _text_of(message.get("content"))
    if not text:
        text = _text_of(obj.get("text"))
    if not isinstance(role, str) or not text.strip():
        return None
    return role, text.strip()


def normalize_transcript(raw: str) -> str:
    """Reduce a JSON-lines conversation to ``role: text`` turns; keep other text raw."""
    lines = [ln for ln in raw.splitlines() if ln.strip()]
    if not lines:
        return raw.strip()
    turns: list[str] = []
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            return raw.strip()
        if not isinstance(obj, dict):
            return raw.strip()
        turn = _turn(obj)
        if turn is not None:
            turns.append(f"{turn[0]}: {turn[1]}")
    return "\n".join(turns) if turns else raw.strip()


def truncate_for_job(text: str) -> str:
    """Summary jobs get at most 100 000 characters, marked when cut."""
    if len(text) <= JOB_TRANSCRIPT_CHARS:
        return text
    return text[:JOB_TRANSCRIPT_CHARS] + "\n[truncated]"
