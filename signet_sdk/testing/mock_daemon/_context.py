"""Everything a route handler may touch (one :class:`Context`), auth, and the log book.

State lives in one object, not module globals as in the real daemon, so tests
can run many mock daemons in one process. Signed tokens become a plain token
-> role table: the SDK treats tokens as opaque and needs only the same answers
for a missing, unknown or under-privileged one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._jobs import ExecJobs
from ._rules import iso, parse_iso, resolve_agent_id
from ._state import PresenceBoard, SessionTracker
from ._store import MemoryStore

AuthMode = Literal["local", "team", "hybrid"]

#: The daemon release lines the mock imitates, oldest first; the newest is the default.
DAEMON_VERSIONS = ("0.109", "0.145")
DAEMON_VERSION = DAEMON_VERSIONS[-1]
#: Providers ``memory.pipelineV2.synthesis.provider`` accepts.
SYNTHESIS_PROVIDERS = frozenset(
    {"none", "llama-cpp", "ollama", "claude-code", "codex", "opencode", "anthropic", "openrouter"}
)
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})

_ALL = "remember recall modify forget recover admin documents connectors diagnostics analytics"
ROLE_PERMISSIONS: Mapping[str, frozenset[str]] = {
    "admin": frozenset(_ALL.split()),
    "operator": frozenset(_ALL.split()) - {"admin"},
    "agent": frozenset({"remember", "recall", "modify", "forget", "recover", "documents"}),
    "readonly": frozenset({"recall"}),
}
LEVELS = ("debug", "info", "warn", "error")


def parse_version(text: str) -> tuple[int, int, int]:
    """``"0.109"`` or ``"0.110.2"`` as a comparable triple (``ValueError`` otherwise)."""
    parts = text.split(".")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"version must look like 0.109 or 0.109.0, not {text!r}")
    major, minor, patch = (int(p) for p in [*parts, "0"][:3])
    return major, minor, patch


def check_role(role: str, token: str = "") -> str:
    """``role`` when it is a known one (``ValueError`` naming the token otherwise)."""
    if role not in ROLE_PERMISSIONS:
        known = ", ".join(sorted(ROLE_PERMISSIONS))
        raise ValueError(f"token {token[:4]}…: unknown role {role!r}; known: {known}")
    return role


class AuthPolicy:
    """The global auth middleware plus ``requirePermission`` for one mode."""

    def __init__(self, mode: AuthMode, tokens: Mapping[str, str] | None) -> None:
        if mode not in ("local", "team", "hybrid"):
            raise ValueError(f"auth_mode must be local, team or hybrid, not {mode!r}")
        self.mode: AuthMode = mode
        self._tokens = {token: check_role(role, token) for token, role in (tokens or {}).items()}

    def add_token(self, token: str, role: str) -> None:
        """Accept one more token (tests mint tokens as they go)."""
        self._tokens[token] = check_role(role, token)

    def authenticate(
        self, authorization: str | None, client_host: str | None
    ) -> tuple[str | None, str | None, bool]:
        """The global middleware: ``(401 message or None, the caller's role, loopback)``;
        only exactly ``Bearer <token>`` (one space, case sensitive) carries a token."""
        loopback = client_host in LOOPBACK_HOSTS
        if self.mode == "local":
            return None, None, loopback
        parts = (authorization or "").split(" ")
        token = parts[1] if len(parts) == 2 and parts[0] == "Bearer" and parts[1] else None
        role = self._tokens.get(token) if token else None
        if self.mode == "hybrid" and loopback:
            # Loopback callers may omit the token; a bad one is ignored, not refused.
            return None, role, loopback
        if token is None:
            return "authentication required", None, loopback
        return None if role else "invalid signature", role, loopback

    def require(self, permission: str, role: str | None, loopback: bool) -> str | None:
        """``requirePermission(p)``: ``None`` when allowed, else the 403 message."""
        if self.mode == "local" or (role is None and self.mode == "hybrid" and loopback):
            return None
        if role is None:
            return "authentication required"
        if permission in ROLE_PERMISSIONS[role]:
            return None
        return f"role '{role}' lacks '{permission}' permission"


#: A log stream: the event loop serving it, and its queue (``None`` ends it).
Subscriber = tuple[asyncio.AbstractEventLoop, "asyncio.Queue[dict[str, Any] | None]"]


class LogBook:
    """The newest ``capacity`` log entries, and everyone streaming new ones."""

    def __init__(self, clock: Callable[[], float], capacity: int = 2000) -> None:
        self._now = clock
        self._lock = threading.Lock()
        self._entries: deque[dict[str, Any]] = deque(maxlen=capacity)
        self.subscribers: list[Subscriber] = []

    def _push(self, entry: dict[str, Any] | None) -> None:
        """Hand an entry (or the end of stream) to every open stream, from any thread."""
        with self._lock:
            subscribers = list(self.subscribers)
        for loop, queue in subscribers:
            with contextlib.suppress(RuntimeError):  # a closed loop: the stream is gone
                loop.call_soon_threadsafe(queue.put_nowait, entry)

    def log(self, level: str, category: str, message: str, data: Any = None, **extra: Any) -> None:
        """Append a LogEntry (``extra``: ``duration`` in ms, an ``error``) and stream it."""
        entry: dict[str, Any] = {"timestamp": iso(self._now()), "level": level}
        entry.update(category=category, message=message)
        if data:
            entry["data"] = data
        if "duration" in extra:
            entry["duration"] = round(extra["duration"], 3)
        if error := extra.get("error"):
            entry["error"] = {"name": type(error).__name__, "message": str(error)}
        with self._lock:
            self._entries.append(entry)
        self._push(entry)

    def recent(
        self, limit: int, level: str | None, category: str | None, since: str | None
    ) -> list[dict[str, Any]]:
        """``logger.getRecent``: the newest matching entries, oldest first."""
        floor = LEVELS.index(level) if level in LEVELS else 0
        since_ts = parse_iso(since) if since else None
        with self._lock:
            entries = list(self._entries)
        out = []
        for entry in entries:
            ts = parse_iso(entry["timestamp"]) if since_ts is not None else None
            if LEVELS.index(entry["level"]) < floor or (category and entry["category"] != category):
                continue
            if ts is None or since_ts is None or ts >= since_ts:
                out.append(entry)
        return out[-limit:] if limit > 0 else []

    def subscribe(self) -> Subscriber:
        sub: Subscriber = (asyncio.get_running_loop(), asyncio.Queue())
        with self._lock:
            self.subscribers.append(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self.subscribers.remove(sub)

    def close_streams(self) -> None:
        """End every open stream (server shutdown, or a test that is done)."""
        self._push(None)


@dataclass(eq=False)
class Context:
    """The mock daemon's configuration; it makes the state all routes share."""

    now: Callable[[], float]
    auth: AuthPolicy
    db_path: str | os.PathLike[str] | None = None
    pipeline_enabled: bool = True
    version: tuple[int, int, int] = (0, 145, 0)
    synthesis_provider: str = "none"
    agent_id_env: str | None = None
    secrets: dict[str, str] = field(default_factory=dict)
    port: int | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)

    def __post_init__(self) -> None:
        self.store = MemoryStore(self.db_path, self.now)
        # Routes added after TS 0.109 (session transcript and search) are served.
        self.newer_routes = self.version[:2] > (0, 109)
        # 0.145's answers: secrets exec as a job, entity-only prompt injection,
        # recall timings and session dedupe, temporal and idempotent remember.
        self.v145 = self.version[:2] >= (0, 145)
        # A synthesis worker runs when the pipeline runs and synthesis has a provider.
        self.synthesis_worker = self.pipeline_enabled and self.synthesis_provider != "none"
        self.restart()

    def restart(self) -> None:
        """Start the daemon process's memory afresh: at start, and after a kill and
        restart, which keep only the database.

        Session claims and ended-session tombstones, presence, log lines, exec
        jobs and recall epochs are gone; ``/health``'s uptime starts again.
        """
        self.tracker = SessionTracker(self.now)
        self.presence = PresenceBoard(self.now)
        self.logs = LogBook(self.now)
        self.exec_jobs = ExecJobs(self.now)
        # Recall dedupe per (session key, agent): the context epoch, and the ids
        # recalled in each epoch.
        self.epochs: dict[tuple[str, str], int] = {}
        self.recalled: dict[tuple[str, str, int], set[str]] = {}
        self.started_at = self.now()

    def advance_epoch(self, session_key: str | None, agent_id: str) -> int | None:
        """``advanceRecallContextEpoch``: the session's next context epoch (``None``
        without a session key)."""
        key = (session_key or "").strip()
        if not key:
            return None
        slot = (key, agent_id.strip() or "default")
        self.epochs[slot] = self.epochs.get(slot, 0) + 1
        return self.epochs[slot]

    def agent(self, agent_id: Any, session_key: Any) -> str:
        """``resolveAgentId`` with this daemon's ``SIGNET_AGENT_ID``."""
        return resolve_agent_id(agent_id, session_key, self.agent_id_env)
