"""Small wire rules the TypeScript daemon applies everywhere, as pure functions.

The daemon is written in JavaScript, so many of its checks are JavaScript
truthiness tests and ``parseOptional*`` helpers with their own edge cases
(``0`` is "missing", ``"1"`` is a boolean, ``null`` survives ``??``). Keeping
those rules in one place means every route of the mock agrees with the others
the way the real routes do.
"""

from __future__ import annotations

import hashlib
import math
import re
from datetime import UTC, datetime
from typing import Any, NamedTuple

NOISE_KEY_PREFIXES = ("test-", "spec-", "fixture-", "synthetic-", "tmp-")


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness: the daemon's ``if (!body.x)`` checks use it.

    ``0``, ``""``, ``false``, ``null``, ``undefined`` and ``NaN`` are falsy;
    every object and array (even an empty one) is truthy.
    """
    if value is None or isinstance(value, bool | str):
        return bool(value)
    if isinstance(value, int | float):
        return not (value == 0 or math.isnan(value))
    return True


def opt_str(value: Any) -> str | None:
    """``parseOptionalString``: a trimmed non-empty string, else ``None``."""
    return (value.strip() or None) if isinstance(value, str) else None


def parse_optional_number(value: Any) -> float | None:
    """``parseOptionalNumber``: finite numbers and numeric strings."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str) and value.strip():
        match = re.match(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", value)
        if match:
            parsed = float(match.group(0))
            return parsed if math.isfinite(parsed) else None
    return None


def parse_optional_int(value: Any) -> int | None:
    """``parseOptionalInt``: a positive integer (``0`` and fractions are missing)."""
    parsed = parse_optional_number(value)
    if parsed is None or not parsed.is_integer() or parsed <= 0:
        return None
    return int(parsed)


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
    if raw is None:
        return None
    match = re.match(r"^\s*([+-]?\d+)", raw)
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


class ParsedPrefixes(NamedTuple):
    """What ``critical:`` and ``[tag,tag]:`` prefixes say about a memory."""

    content: str
    tags: str | None
    pinned: bool
    importance: float


_TAG_PREFIX = re.compile(r"^\[([^\]]+)\]:\s*(.+)$", re.DOTALL)


def parse_prefixes(raw: str) -> ParsedPrefixes:
    """Read the remember prefixes: ``critical:`` pins at 1.0, ``[a,b]:`` tags."""
    content = raw.strip()
    pinned = False
    importance = 0.8
    tags: str | None = None
    if content.lower().startswith("critical:"):
        content = content[len("critical:") :].strip()
        pinned = True
        importance = 1.0
    match = _TAG_PREFIX.match(content)
    if match:
        tags = ",".join(t.strip().lower() for t in match.group(1).split(",") if t.strip())
        content = match.group(2).strip()
    return ParsedPrefixes(content, tags, pinned, importance)


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
    for kind, hints in _TYPE_HINTS.items():
        if any(hint in lower for hint in hints):
            return kind
    return "fact"


def normalize_content(text: str) -> tuple[str, str, str]:
    """``(storage, normalized, hash)`` for a memory's text.

    Storage keeps the author's text (trimmed, line endings unified); the hash
    is taken over a lower-cased, whitespace-collapsed form so that trivially
    different spellings of one fact de-duplicate.
    """
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
    match = _AGENT_KEY.match(
        normalize_session_key(session_key if isinstance(session_key, str) else "")
    )
    return opt_str(agent_id) or (match.group(1) if match else None) or env_agent or "default"


def is_noise_session(
    project: str | None, session_key: str | None, session_id: str | None, harness: str | None
) -> bool:
    """Sessions whose data the daemon does not persist (throwaway test runs).

    A project under ``/tmp/`` decides alone; without a project the session
    key or id prefix, or the ``test`` harness, marks the session as noise.
    """
    if project:
        return project.startswith("/tmp/") or project.startswith("/private/tmp/")
    for key in (session_key, session_id):
        if key and normalize_session_key(key).startswith(NOISE_KEY_PREFIXES):
            return True
    return harness == "test"


def iso(ts: float) -> str:
    """JavaScript ``Date.toISOString()``: UTC, milliseconds, trailing ``Z``."""
    dt = datetime.fromtimestamp(ts, UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse_iso(raw: Any) -> float | None:
    """Parse an ISO-8601 timestamp the way ``new Date(raw)`` would accept it.

    Values without an offset are read as UTC so the mock is deterministic.
    Returns epoch seconds, or ``None`` when the value is not a timestamp.
    """
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if not text or not re.match(r"^\d{4}-\d{2}-\d{2}", text):
        return None
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()
