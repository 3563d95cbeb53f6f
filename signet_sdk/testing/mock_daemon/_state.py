"""In-memory session state: runtime-path claims, tombstones, bypass, presence.

TS 0.109 keeps all of this in process memory, so a daemon restart forgets it
(that is what ``sessionKnown:false`` reveals). The mock does the same: none
of it is written to SQLite. Every lifetime is measured on the daemon's
injectable clock, so tests move time with ``MockDaemon.advance`` instead of
sleeping.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from ._rules import iso, opt_str
from ._rules import normalize_session_key as _norm

RuntimePath = Literal["plugin", "legacy"]

CLAIM_TTL = 4 * 60 * 60.0
TOMBSTONE_TTL = 30 * 60.0
BYPASS_TTL = CLAIM_TTL
PRESENCE_TTL = 4 * 60 * 60.0
WARN_BEFORE = 30 * 60.0
PROMPT_DEDUPE_TURNS = 5

Clock = Callable[[], float]


class _Expiring(Protocol):
    @property
    def expires_at(self) -> float: ...


_E = TypeVar("_E", bound=_Expiring)


def _unexpired(table: dict[str, _E], key: str, now: float) -> _E | None:
    """The entry for ``key`` unless it expired (an expired one is dropped)."""
    entry = table.get(key)
    if entry is not None and now > entry.expires_at:
        del table[key]
        return None
    return entry


@dataclass(slots=True)
class Claim:
    """Which runtime path owns a session key, and until when."""

    key: str
    agent_id: str
    runtime_path: RuntimePath
    claimed_at: float
    expires_at: float

    def record(self, bypassed: bool) -> dict[str, object]:
        """This claim as a ``GET /api/sessions`` row (``agentId`` included)."""
        return {
            "key": self.key,
            "agentId": self.agent_id,
            "runtimePath": self.runtime_path,
            "claimedAt": iso(self.claimed_at),
            "expiresAt": iso(self.expires_at),
            "bypassed": bypassed,
        }


@dataclass(frozen=True, slots=True)
class Tombstone:
    """A recently ended session and the runtime path its end carried."""

    runtime_path: RuntimePath | None
    expires_at: float


@dataclass(slots=True)
class _Until:
    expires_at: float


class SessionTracker:
    """Claims (4 h), ended-session tombstones (30 min) and bypass flags (4 h).

    Every method takes a session key as given and normalizes it.
    """

    def __init__(self, clock: Clock) -> None:
        self._now = clock
        self._claims: dict[str, Claim] = {}
        self._ended: dict[str, Tombstone] = {}
        self._bypass: dict[str, _Until] = {}
        self._warned: set[str] = set()

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
        """``claimSession`` for ``path``: ``None`` when claimed, else the path holding the key.

        A same-path claim refreshes, an expired one is evicted. Any claim
        attempt deletes the ended-session tombstone, which is why the next
        turn after a per-turn "end" works.
        """
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

    def has(self, session_key: str) -> bool:
        """``hasSession``: whether a live claim exists."""
        return self._live(_norm(session_key)) is not None

    def release(self, session_key: str) -> None:
        """Drop the claim and the bypass flag (no tombstone)."""
        self._evict(_norm(session_key))

    def mark_ended(self, session_key: str, path: RuntimePath | None) -> None:
        """Release the claim and leave a 30-minute tombstone naming the end's path."""
        key = _norm(session_key)
        self._evict(key)
        self._ended[key] = Tombstone(path, self._now() + TOMBSTONE_TTL)

    def ended(self, session_key: str) -> Tombstone | None:
        """The unexpired tombstone for a key."""
        return _unexpired(self._ended, _norm(session_key), self._now())

    def bypass(self, session_key: str, *, allow_unknown: bool) -> bool:
        """Turn bypass on; refuses a key without a live claim unless allowed."""
        key = _norm(session_key)
        if self._live(key) is None and not allow_unknown:
            return False
        self._bypass[key] = _Until(self._now() + BYPASS_TTL)
        return True

    def unbypass(self, session_key: str) -> None:
        """Turn bypass off (always succeeds)."""
        self._bypass.pop(_norm(session_key), None)

    def is_bypassed(self, session_key: str) -> bool:
        """Whether hooks for this key answer with no-op bodies."""
        return _unexpired(self._bypass, _norm(session_key), self._now()) is not None

    def renew(self, session_key: str) -> float | None:
        """Extend a live claim by 4 h (and its bypass with it); the new expiry."""
        key = _norm(session_key)
        claim = self._live(key)
        if claim is None:
            return None
        claim.expires_at = self._now() + CLAIM_TTL
        if key in self._bypass:
            self._bypass[key] = _Until(claim.expires_at)
        self._warned.discard(key)
        return claim.expires_at

    def active(self) -> list[Claim]:
        """Every live claim (expired ones are evicted on the way)."""
        return [c for c in (self._live(k) for k in list(self._claims)) if c is not None]

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
    """A cross-agent presence row: who is in which session, seen when."""

    key: str
    agent_id: str
    harness: str
    project: str | None
    runtime_path: RuntimePath | None
    started_at: float
    last_seen_at: float

    @property
    def expires_at(self) -> float:
        """A row nobody touched for 4 hours is stale."""
        return self.last_seen_at + PRESENCE_TTL


class PresenceBoard:
    """Presence rows keyed by normalized session key; stale after 4 h untouched."""

    def __init__(self, clock: Clock) -> None:
        self._now = clock
        self._rows: dict[str, Presence] = {}

    def upsert(self, session_key: str, body: dict[str, Any], path: RuntimePath | None) -> None:
        """Create or refresh a hook body's row; an existing row keeps its start time.

        The row names ``body.agentId ?? "default"``, the harness and the project.
        """
        key, now = _norm(session_key), self._now()
        agent_id = opt_str(body.get("agentId")) or "default"
        harness, project = str(body["harness"]), opt_str(body.get("project"))
        started = row.started_at if (row := self._rows.get(key)) else now
        self._rows[key] = Presence(key, agent_id, harness, project, path, started, now)

    def touch(self, session_key: str) -> bool:
        """Refresh ``last_seen``; ``False`` when there is no live row."""
        row = self.get(session_key)
        if row is not None:
            row.last_seen_at = self._now()
        return row is not None

    def remove(self, session_key: str) -> None:
        """Delete a row (session-end)."""
        self._rows.pop(_norm(session_key), None)

    def get(self, session_key: str) -> Presence | None:
        """The live row for a key."""
        return _unexpired(self._rows, _norm(session_key), self._now())

    def live(self) -> list[Presence]:
        """Every row seen within the last 4 hours."""
        return [r for r in (self.get(k) for k in list(self._rows)) if r is not None]


@dataclass(slots=True)
class HookMemory:
    """Per-session hook bookkeeping that session-end and compaction reset.

    ``started`` holds keys whose session-start already injected (repeats get
    the stub); ``recent_injections`` holds the memory ids injected in each of
    the last five prompt turns, so a memory is not injected twice in a row.
    """

    started: set[str] = field(default_factory=set)
    recent_injections: dict[str, deque[frozenset[str]]] = field(default_factory=dict)

    def start(self, session_key: str) -> bool:
        """Mark a session started; ``False`` when it already was."""
        key = _norm(session_key)
        first = key not in self.started
        self.started.add(key)
        return first

    def recently_injected(self, session_key: str) -> frozenset[str]:
        """Ids injected in this session's last five turns."""
        turns = self.recent_injections.get(_norm(session_key))
        return frozenset().union(*turns) if turns else frozenset()

    def record_turn(self, session_key: str, ids: frozenset[str]) -> None:
        """Remember one turn's injected ids (the oldest of six turns drops out)."""
        key = _norm(session_key)
        turns = self.recent_injections.setdefault(key, deque(maxlen=PROMPT_DEDUPE_TURNS))
        turns.append(ids)

    def reset(self, session_key: str, *, start: bool = False) -> None:
        """Forget the injection window (and with ``start``, let session-start inject again)."""
        self.recent_injections.pop(_norm(session_key), None)
        if start:
            self.started.discard(_norm(session_key))
