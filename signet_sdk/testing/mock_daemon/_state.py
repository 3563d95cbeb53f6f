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
from typing import Literal

from ._rules import iso, normalize_session_key

RuntimePath = Literal["plugin", "legacy"]

CLAIM_TTL = 4 * 60 * 60.0
TOMBSTONE_TTL = 30 * 60.0
BYPASS_TTL = CLAIM_TTL
PRESENCE_TTL = 4 * 60 * 60.0
WARN_BEFORE = 30 * 60.0
PROMPT_DEDUPE_TURNS = 5

Clock = Callable[[], float]


@dataclass(slots=True)
class Claim:
    """Which runtime path owns a session key, and until when."""

    key: str
    agent_id: str
    runtime_path: RuntimePath
    claimed_at: float
    expires_at: float


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """``claimSession``'s answer: ok, or the path that holds the key."""

    ok: bool
    claimed_by: RuntimePath | None = None


@dataclass(frozen=True, slots=True)
class Tombstone:
    """A recently ended session and the runtime path its end carried."""

    runtime_path: RuntimePath | None
    ended_at: float
    expires_at: float


class SessionTracker:
    """Claims (4 h), ended-session tombstones (30 min) and bypass flags (4 h)."""

    def __init__(self, clock: Clock) -> None:
        self._now = clock
        self._claims: dict[str, Claim] = {}
        self._ended: dict[str, Tombstone] = {}
        self._bypass: dict[str, float] = {}
        self._warned: set[str] = set()

    def _live(self, key: str) -> Claim | None:
        claim = self._claims.get(key)
        if claim is None:
            return None
        if self._now() > claim.expires_at:
            self._evict(key)
            return None
        return claim

    def _evict(self, key: str) -> None:
        self._claims.pop(key, None)
        self._bypass.pop(key, None)
        self._warned.discard(key)

    def claim(self, session_key: str, path: RuntimePath, agent_id: str) -> ClaimResult:
        """Claim for ``path``; a same-path claim refreshes, an expired one is evicted.

        Any claim attempt deletes the ended-session tombstone, which is why the
        next turn after a per-turn "end" works.
        """
        key = normalize_session_key(session_key)
        now = self._now()
        self._ended.pop(key, None)
        existing = self._claims.get(key)
        if existing is not None:
            if existing.runtime_path == path:
                existing.expires_at = now + CLAIM_TTL
                return ClaimResult(True)
            if now <= existing.expires_at:
                return ClaimResult(False, existing.runtime_path)
            self._evict(key)
        self._claims[key] = Claim(key, agent_id, path, now, now + CLAIM_TTL)
        return ClaimResult(True)

    def owner(self, session_key: str) -> RuntimePath | None:
        """``getSessionPath``: the live claim's path, if any."""
        claim = self._live(normalize_session_key(session_key))
        return claim.runtime_path if claim else None

    def has(self, session_key: str) -> bool:
        """``hasSession``: whether a live claim exists."""
        return self._live(normalize_session_key(session_key)) is not None

    def release(self, session_key: str) -> None:
        """Drop the claim and the bypass flag (no tombstone)."""
        self._evict(normalize_session_key(session_key))

    def mark_ended(self, session_key: str, path: RuntimePath | None) -> None:
        """Release the claim and leave a 30-minute tombstone naming the end's path."""
        key = normalize_session_key(session_key)
        self._evict(key)
        now = self._now()
        self._ended[key] = Tombstone(path, now, now + TOMBSTONE_TTL)

    def ended(self, session_key: str) -> Tombstone | None:
        """The unexpired tombstone for a key."""
        key = normalize_session_key(session_key)
        stone = self._ended.get(key)
        if stone is None:
            return None
        if self._now() > stone.expires_at:
            del self._ended[key]
            return None
        return stone

    def bypass(self, session_key: str, *, allow_unknown: bool) -> bool:
        """Turn bypass on; refuses a key without a live claim unless allowed."""
        key = normalize_session_key(session_key)
        if self._live(key) is None and not allow_unknown:
            return False
        self._bypass[key] = self._now() + BYPASS_TTL
        return True

    def unbypass(self, session_key: str) -> None:
        """Turn bypass off (always succeeds)."""
        self._bypass.pop(normalize_session_key(session_key), None)

    def is_bypassed(self, session_key: str) -> bool:
        """Whether hooks for this key answer with no-op bodies."""
        key = normalize_session_key(session_key)
        until = self._bypass.get(key)
        if until is None:
            return False
        if self._now() > until:
            del self._bypass[key]
            return False
        return True

    def renew(self, session_key: str) -> float | None:
        """Extend a live claim by 4 h (and its bypass with it); the new expiry."""
        key = normalize_session_key(session_key)
        claim = self._live(key)
        if claim is None:
            return None
        claim.expires_at = self._now() + CLAIM_TTL
        if key in self._bypass:
            self._bypass[key] = claim.expires_at
        self._warned.discard(key)
        return claim.expires_at

    def active(self) -> list[Claim]:
        """Every live claim (expired ones are evicted on the way)."""
        return [c for c in (self._live(k) for k in list(self._claims)) if c is not None]

    def expiry_warning(self, session_key: str) -> str | None:
        """The once-per-session "expires soon" warning, or the "expired" one."""
        key = normalize_session_key(session_key)
        if self.is_bypassed(key):
            return None
        claim = self._claims.get(key)
        if claim is None:
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


class PresenceBoard:
    """Presence rows keyed by normalized session key; stale after 4 h untouched."""

    def __init__(self, clock: Clock) -> None:
        self._now = clock
        self._rows: dict[str, Presence] = {}

    def upsert(
        self,
        session_key: str,
        *,
        agent_id: str,
        harness: str,
        project: str | None,
        runtime_path: RuntimePath | None,
    ) -> None:
        """Create or refresh a row; the start time of an existing row is kept."""
        key = normalize_session_key(session_key)
        now = self._now()
        row = self._rows.get(key)
        if row is None:
            self._rows[key] = Presence(key, agent_id, harness, project, runtime_path, now, now)
            return
        row.agent_id = agent_id
        row.harness = harness
        row.project = project
        row.runtime_path = runtime_path
        row.last_seen_at = now

    def touch(self, session_key: str) -> bool:
        """Refresh ``last_seen``; ``False`` when there is no live row."""
        row = self.get(session_key)
        if row is None:
            return False
        row.last_seen_at = self._now()
        return True

    def remove(self, session_key: str) -> bool:
        """Delete a row (session-end)."""
        return self._rows.pop(normalize_session_key(session_key), None) is not None

    def get(self, session_key: str) -> Presence | None:
        """The live row for a key."""
        key = normalize_session_key(session_key)
        row = self._rows.get(key)
        if row is None:
            return None
        if self._now() - row.last_seen_at > PRESENCE_TTL:
            del self._rows[key]
            return None
        return row

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

    def recently_injected(self, session_key: str) -> frozenset[str]:
        """Ids injected in this session's last five turns."""
        turns = self.recent_injections.get(normalize_session_key(session_key))
        return frozenset().union(*turns) if turns else frozenset()

    def record_turn(self, session_key: str, ids: frozenset[str]) -> None:
        """Remember one turn's injected ids (the oldest of six turns drops out)."""
        key = normalize_session_key(session_key)
        turns = self.recent_injections.setdefault(key, deque(maxlen=PROMPT_DEDUPE_TURNS))
        turns.append(ids)

    def reset_prompts(self, session_key: str) -> None:
        """Forget the injection window (compaction-complete, session-end)."""
        self.recent_injections.pop(normalize_session_key(session_key), None)

    def reset_start(self, session_key: str) -> None:
        """Let the next session-start for this key inject again."""
        self.started.discard(normalize_session_key(session_key))


def claim_record(claim: Claim, bypassed: bool) -> dict[str, object]:
    """A claim as a ``GET /api/sessions`` row (the tracker's record, ``agentId`` included)."""
    return {
        "key": claim.key,
        "agentId": claim.agent_id,
        "runtimePath": claim.runtime_path,
        "claimedAt": iso(claim.claimed_at),
        "expiresAt": iso(claim.expires_at),
        "bypassed": bypassed,
    }
