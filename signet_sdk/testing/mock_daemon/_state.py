"""In-memory session state: runtime-path claims, tombstones, bypass, presence.

TS 0.109 keeps all of this in process memory, so a restart forgets it (as
``sessionKnown:false`` reveals); so does the mock. Lifetimes run on the
daemon's injectable clock. Methods take session keys as given and normalize.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from ._rules import normalize_session_key as _norm
from ._rules import opt_str

RuntimePath = Literal["plugin", "legacy"]

CLAIM_TTL = BYPASS_TTL = PRESENCE_TTL = 4 * 60 * 60.0
TOMBSTONE_TTL = WARN_BEFORE = 30 * 60.0
PROMPT_DEDUPE_TURNS = 5

_T = TypeVar("_T")


def _unexpired(table: dict[str, tuple[float, _T]], key: str, now: float) -> _T | None:
    """The value stored for ``key`` until its deadline (an expired one is dropped)."""
    deadline, value = table.get(key, (now, None))
    if now > deadline:
        del table[key]
        return None
    return value


@dataclass(slots=True)
class Claim:
    """Which runtime path owns a session key, and until when."""

    key: str
    agent_id: str
    runtime_path: RuntimePath
    claimed_at: float
    expires_at: float


class SessionTracker:
    """Claims (4 h), ended-session tombstones (30 min), bypass flags (4 h), hook bookkeeping."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._now = clock
        self._claims: dict[str, Claim] = {}
        self._ended: dict[str, tuple[float, str]] = {}
        self._bypass: dict[str, tuple[float, bool]] = {}
        self._warned: set[str] = set()
        # Hook bookkeeping session-end and compaction reset: sessions whose start already
        # injected (repeats get the stub), and the memory ids each of the last five prompt
        # turns injected (so a memory is not injected twice in a row).
        self._started: set[str] = set()
        self._injections: dict[str, deque[frozenset[str]]] = {}

    def _live(self, key: str) -> Claim | None:
        claim = self._claims.get(key)
        if claim is not None and self._now() > claim.expires_at:
            self._evict(key)
            return None
        return claim

    def _evict(self, key: str) -> None:
        self._claims.pop(key, None)
        self._bypass.pop(key, None)
        self._warned.discard(key)

    def claim(self, session_key: str, path: RuntimePath, agent_id: str) -> RuntimePath | None:
        """``claimSession``: ``None`` when claimed (a same-path claim refreshes, an expired
        one is evicted), else the path holding the key. Any attempt deletes the ended
        session's tombstone, which is why the next turn after a per-turn "end" works."""
        key, now = _norm(session_key), self._now()
        self._ended.pop(key, None)
        existing = self._claims.get(key)
        if existing is not None and existing.runtime_path == path:
            existing.expires_at = now + CLAIM_TTL  # refreshed even when it had expired
            return None
        if existing is not None:
            if now <= existing.expires_at:
                return existing.runtime_path
            self._evict(key)
        self._claims[key] = Claim(key, agent_id, path, now, now + CLAIM_TTL)
        return None

    def owner(self, session_key: str) -> RuntimePath | None:
        """``getSessionPath``: the live claim's path, if any."""
        claim = self._live(_norm(session_key))
        return claim.runtime_path if claim else None

    def release(self, session_key: str) -> None:
        """Drop the claim and the bypass flag (no tombstone)."""
        self._evict(_norm(session_key))

    def mark_ended(self, session_key: str, path: RuntimePath | None) -> None:
        """Release the claim and leave a 30-minute tombstone naming the end's path."""
        self.release(session_key)
        self._ended[_norm(session_key)] = (self._now() + TOMBSTONE_TTL, path or "")

    def ended(self, session_key: str) -> str | None:
        """The unexpired tombstone for a key: the runtime path its end carried (or ``""``)."""
        return _unexpired(self._ended, _norm(session_key), self._now())

    def set_bypass(self, session_key: str, enabled: bool, *, allow_unknown: bool) -> bool:
        """Turn bypass off (always works) or on (not for a key without a live claim
        unless ``allow_unknown``); whether it was set."""
        key = _norm(session_key)
        if not enabled:
            self._bypass.pop(key, None)
        elif self._live(key) is None and not allow_unknown:
            return False
        else:
            self._bypass[key] = (self._now() + BYPASS_TTL, True)
        return True

    def is_bypassed(self, session_key: str) -> bool:
        return _unexpired(self._bypass, _norm(session_key), self._now()) is not None

    def renew(self, session_key: str) -> float | None:
        """Extend a live claim by 4 h (and its bypass with it); the new expiry."""
        key = _norm(session_key)
        claim = self._live(key)
        if claim is None:
            return None
        claim.expires_at = self._now() + CLAIM_TTL
        if key in self._bypass:
            self._bypass[key] = (claim.expires_at, True)
        self._warned.discard(key)
        return claim.expires_at

    def active(self) -> list[Claim]:
        return [c for c in map(self._live, list(self._claims)) if c is not None]

    def start(self, session_key: str) -> bool:
        """Mark a session started; ``False`` when it already was."""
        key = _norm(session_key)
        first = key not in self._started
        self._started.add(key)
        return first

    def recently_injected(self, session_key: str) -> frozenset[str]:
        return frozenset().union(*self._injections.get(_norm(session_key), ()))

    def record_turn(self, session_key: str, ids: frozenset[str]) -> None:
        """Remember one turn's injected ids (the oldest of six turns drops out)."""
        turns = deque[frozenset[str]](maxlen=PROMPT_DEDUPE_TURNS)
        self._injections.setdefault(_norm(session_key), turns).append(ids)

    def reset(self, session_key: str, *, start: bool = False) -> None:
        """Forget the injection window (and with ``start``, let session-start inject again)."""
        self._injections.pop(_norm(session_key), None)
        if start:
            self._started.discard(_norm(session_key))

    def expiry_warning(self, session_key: str) -> str | None:
        """The once-per-session "expires soon" warning, or the "expired" one."""
        key = _norm(session_key)
        claim = self._claims.get(key)
        if self.is_bypassed(key) or claim is None:
            return None
        remaining = claim.expires_at - self._now()
        if remaining <= 0:
            return "session has expired — reconnect to start a new session"
        if remaining > WARN_BEFORE or key in self._warned:
            return None
        self._warned.add(key)
        mins = max(1, round(remaining / 60))
        return f"session expires in ~{mins} minute{'' if mins == 1 else 's'} — consider /checkpoint"


@dataclass(slots=True)
class Presence:
    """A cross-agent presence row: who is in which session, since when."""

    key: str
    agent_id: str
    harness: str
    project: str | None
    runtime_path: RuntimePath | None
    started_at: float


class PresenceBoard:
    """Presence rows keyed by normalized session key; stale after 4 h untouched."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._now = clock
        self._rows: dict[str, tuple[float, Presence]] = {}

    def upsert(self, session_key: str, body: dict[str, Any], path: RuntimePath | None) -> None:
        """Create or refresh a hook body's row (``agentId ?? "default"``, harness, project);
        an existing row keeps its start time."""
        key, now = _norm(session_key), self._now()
        started = self._rows[key][1].started_at if key in self._rows else now
        agent_id, project = opt_str(body.get("agentId")) or "default", opt_str(body.get("project"))
        row = Presence(key, agent_id, str(body["harness"]), project, path, started)
        self._rows[key] = (now + PRESENCE_TTL, row)

    def touch(self, session_key: str) -> bool:
        """Refresh ``last_seen``; ``False`` when there is no live row."""
        row = self.get(session_key)
        if row is not None:
            self._rows[row.key] = (self._now() + PRESENCE_TTL, row)
        return row is not None

    def remove(self, session_key: str) -> None:
        self._rows.pop(_norm(session_key), None)

    def get(self, session_key: str) -> Presence | None:
        return _unexpired(self._rows, _norm(session_key), self._now())

    def live(self) -> list[Presence]:
        return [r for r in map(self.get, list(self._rows)) if r is not None]
