"""The daemon's input rules as pure functions, so every route agrees as the real ones do.

Many checks are JavaScript truthiness and ``parseOptional*`` helpers with
their own edge cases (``0`` is "missing", ``"1"`` is a boolean). Transcript
paths follow the portable rule (regular files under ``/tmp/signet``, at most
400 000 bytes, with the Rust daemon's answers) rather than TS 0.109's "any
readable path": a client that passes against the mock passes against both.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from datetime import UTC, datetime
from typing import Any

NOISE_KEY_PREFIXES = ("test-", "spec-", "fixture-", "synthetic-", "tmp-")


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness (the daemon's ``if (!body.x)``): ``0``, ``""``, ``false``,
    ``null`` and ``NaN`` are falsy; every object and array, even empty, is truthy."""
    if value is None or isinstance(value, bool | str):
        return bool(value)
    if isinstance(value, int | float):
        return not (value == 0 or math.isnan(value))
    return True


def js_number(value: Any) -> float | None:
    """The value when it is a JSON number (``typeof x === "number"``), else ``None``."""
    return None if isinstance(value, bool) or not isinstance(value, int | float) else value


def opt_str(value: Any) -> str | None:
    """``parseOptionalString``: a trimmed non-empty string, else ``None``."""
    return (value.strip() or None) if isinstance(value, str) else None


def parse_optional_number(value: Any) -> float | None:
    """``parseOptionalNumber``: finite numbers and numeric strings (a numeric prefix)."""
    if isinstance(value, str):
        match = re.match(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", value)
        value = float(match.group(0)) if match else None
    number = js_number(value)
    return float(number) if number is not None and math.isfinite(number) else None


def parse_optional_int(value: Any) -> int | None:
    """``parseOptionalInt``: a positive integer (``0`` and fractions are missing)."""
    parsed = parse_optional_number(value)
    return int(parsed) if parsed is not None and parsed.is_integer() and parsed > 0 else None


def parse_optional_bool(value: Any) -> bool | None:
    """``parseOptionalBoolean``: booleans, ``1``/``0`` and ``"true"``/``"false"``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return True if value == 1 else False if value == 0 else None
    if isinstance(value, str):
        return {"1": True, "true": True, "0": False, "false": False}.get(value.strip().lower())
    return None


def parse_leading_int(raw: str | None) -> int | None:
    """JavaScript ``Number.parseInt(raw, 10)``: digits at the start, else NaN."""
    match = re.match(r"^\s*([+-]?\d+)", raw or "")
    return int(match.group(1)) if match else None


#: What a ``parse*`` rule returns for a value it refuses (``None`` can be valid).
INVALID: Any = object()
TAGS_ERROR = "tags must be a string, string array, or null"


def parse_tags_mutation(value: Any) -> Any:
    """A ``tags`` field as a comma string (or ``None``); :data:`INVALID` is the
    400 :data:`TAGS_ERROR`. Accepts a comma-separated string, an array of
    strings, or ``null``."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(t, str) for t in items):
        return INVALID
    return ",".join(t.strip() for t in items if t.strip()) or None


_TAG_PREFIX = re.compile(r"^\[([^\]]+)\]:\s*(.+)$", re.DOTALL)


def parse_prefixes(raw: str) -> tuple[str, str | None, bool, float]:
    """The remember prefixes, as ``(content, tags, pinned, importance)``: ``critical:``
    pins at 1.0, ``[a,b]:`` tags."""
    content = raw.strip()
    critical = content.lower().startswith("critical:")
    content = content[len("critical:") :].strip() if critical else content
    tags: str | None = None
    if match := _TAG_PREFIX.match(content):
        tags = ",".join(t.strip().lower() for t in match.group(1).split(",") if t.strip())
        content = match.group(2).strip()
    return content, tags, critical, 1.0 if critical else 0.8


# Checked in order; the first kind with a hint in the lower-cased text decides.
_TYPE_HINTS = {
    "preference": ("prefer", "likes", "want"),
    "decision": ("decided", "agreed", "will use"),
    "learning": ("learned", "discovered", "til "),
    "issue": ("bug", "issue", "broken"),
    "rule": ("never", "always", "must"),
}


def infer_type(content: str) -> str:
    """The memory type the daemon guesses from the text (the body ``type`` is ignored)."""
    lower = content.lower()
    return next((k for k, hints in _TYPE_HINTS.items() if any(h in lower for h in hints)), "fact")


def normalize_content(text: str) -> tuple[str, str, str]:
    """``(storage, normalized, hash)``: the author's text trimmed with unified line
    endings, and a hash of its lower-cased, whitespace-collapsed form (for dedupe)."""
    storage = text.replace("\r\n", "\n").strip()
    normalized = " ".join(storage.lower().split())
    digest = hashlib.sha256(normalized.encode("utf-8")).hexdigest()
    return storage, normalized, digest


def normalize_session_key(key: str) -> str:
    """Tracker key normalization: trim, then drop one leading ``session:``."""
    return key.strip().removeprefix("session:")


_AGENT_KEY = re.compile(r"^agent:([^:]+):")


def resolve_agent_id(agent_id: Any, session_key: Any, env_agent: str | None) -> str:
    """``resolveAgentId``: body id, else ``agent:<id>:…`` key, else env, else default."""
    key = session_key if isinstance(session_key, str) else ""
    match = _AGENT_KEY.match(normalize_session_key(key))
    return opt_str(agent_id) or (match.group(1) if match else None) or env_agent or "default"


def is_noise_session(
    project: str | None, session_key: str | None, session_id: str | None, harness: str | None
) -> bool:
    """Sessions the daemon does not persist (test runs): a project under ``/tmp/``
    decides alone, else a key or id prefix, or the ``test`` harness."""
    if project:
        return project.startswith(("/tmp/", "/private/tmp/"))
    keys = [normalize_session_key(key) for key in (session_key, session_id) if key]
    return harness == "test" or any(key.startswith(NOISE_KEY_PREFIXES) for key in keys)


def iso(ts: float) -> str:
    """JavaScript ``Date.toISOString()``: UTC, milliseconds, trailing ``Z``."""
    dt = datetime.fromtimestamp(ts, UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse_iso(raw: Any) -> float | None:
    """Epoch seconds of an ISO-8601 timestamp ``new Date(raw)`` accepts (``None`` if not
    one); a value without an offset is read as UTC, so the mock is deterministic."""
    text = raw.strip() if isinstance(raw, str) else ""
    if not re.match(r"^\d{4}-\d{2}-\d{2}", text):
        return None
    try:
        dt = datetime.fromisoformat(text[:-1] + "+00:00" if text[-1] in "Zz" else text)
    except ValueError:
        return None
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp()


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
    """A staged transcript file's text: 403 outside the root or not a regular file, 413
    over 400 000 bytes; ``None`` when missing (TS 0.109 ignores unreadable paths)."""
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
    parts = [
        b if isinstance(b, str) else b.get("text") if isinstance(b, dict) else None
        for b in (content if isinstance(content, list) else [])
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
