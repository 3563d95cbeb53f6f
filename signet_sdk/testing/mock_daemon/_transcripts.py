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
_OUTSIDE = "transcript_path outside allowed workspace roots"
_TOO_BIG = f"transcript_path exceeds {MAX_TRANSCRIPT_BYTES} byte limit"


class TranscriptRejected(Exception):
    """A ``transcriptPath`` the portable rule refuses: the status and error to answer."""

    def __init__(self, status: int, error: str) -> None:
        super().__init__(error)
        self.status = status
        self.error = error


def read_transcript_path(path: Any, root: str = TRANSCRIPT_ROOT) -> str | None:
    """Read a staged transcript file, or ``None`` when there is no such file.

    Outside the staging root, or not a regular file: 403. Over 400 000 bytes:
    413. A missing file is ignored (the inline transcript, if any, is used),
    as TS 0.109 ignores unreadable paths.
    """
    if not isinstance(path, str) or not path:
        return None
    real, base = os.path.realpath(path), os.path.realpath(root)
    if real != base and not real.startswith(base.rstrip(os.sep) + os.sep):
        raise TranscriptRejected(403, _OUTSIDE)
    if not os.path.lexists(real):
        return None
    if not os.path.isfile(real):
        raise TranscriptRejected(403, _OUTSIDE)
    with open(real, "rb") as fh:
        data = fh.read(MAX_TRANSCRIPT_BYTES + 1)
    if len(data) > MAX_TRANSCRIPT_BYTES:
        raise TranscriptRejected(413, _TOO_BIG)
    return data.decode("utf-8", errors="replace")


def read_transcript(body: dict[str, Any], *, prefer_inline: bool) -> str | None:
    """The transcript a hook was given (inline or by path), normalized; ``None`` if none."""
    inline = body.get("transcript")
    inline_text = inline if isinstance(inline, str) and inline.strip() else None
    if prefer_inline and inline_text is not None:
        return normalize_transcript(inline_text)
    from_file = read_transcript_path(body.get("transcriptPath"))
    if from_file is not None and from_file.strip():
        return normalize_transcript(from_file)
    return normalize_transcript(inline_text) if inline_text is not None else None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        b if isinstance(b, str) else b.get("text") if isinstance(b, dict) else None for b in content
    ]
    return "\n".join(p for p in parts if isinstance(p, str) and p)


def normalize_transcript(raw: str) -> str:
    """Reduce a JSON-lines conversation to ``role: text`` turns; keep other text raw."""
    turns: list[str] = []
    for line in (ln for ln in raw.splitlines() if ln.strip()):
        try:
            obj = json.loads(line)
        except ValueError:
            return raw.strip()
        if not isinstance(obj, dict):
            return raw.strip()
        message = obj["message"] if isinstance(obj.get("message"), dict) else obj
        role = message.get("role") or obj.get("role") or obj.get("type")
        text = _text_of(message.get("content")) or _text_of(obj.get("text"))
        if isinstance(role, str) and text.strip():
            turns.append(f"{role}: {text.strip()}")
    return "\n".join(turns) if turns else raw.strip()


def truncate_for_job(text: str) -> str:
    """Summary jobs get at most 100 000 characters, marked when cut."""
    if len(text) <= JOB_TRANSCRIPT_CHARS:
        return text
    return text[:JOB_TRANSCRIPT_CHARS] + "\n[truncated]"
