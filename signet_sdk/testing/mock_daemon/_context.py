"""Everything a route handler may touch, in one object.

Handlers are plain functions ``(ctx, request) -> response``; the daemon owns
one :class:`Context` and passes it in. Keeping the state in one explicit
place (rather than module globals, as the real daemon does) lets tests run
many independent mock daemons in one process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._auth import AuthPolicy
from ._logs import LogBook
from ._rules import resolve_agent_id
from ._state import HookMemory, PresenceBoard, SessionTracker
from ._store import MemoryStore

#: The daemon release line the mock imitates unless told otherwise.
DAEMON_VERSION = "0.109"
#: Providers ``memory.pipelineV2.synthesis.provider`` accepts.
SYNTHESIS_PROVIDERS = frozenset(
    {"none", "llama-cpp", "ollama", "claude-code", "codex", "opencode", "anthropic", "openrouter"}
)


def parse_version(text: str) -> tuple[int, int, int]:
    """``"0.109"`` or ``"0.110.2"`` as a comparable triple (``ValueError`` otherwise)."""
    parts = text.split(".")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"version must look like 0.109 or 0.109.0, not {text!r}")
    major, minor, patch = (int(p) for p in [*parts, "0"][:3])
    return major, minor, patch


@dataclass(eq=False)
class Context:
    """The mock daemon's state and configuration, shared by all routes."""

    store: MemoryStore
    tracker: SessionTracker
    presence: PresenceBoard
    hooks: HookMemory
    logs: LogBook
    auth: AuthPolicy
    now: Callable[[], float]
    lock: threading.RLock
    pipeline_enabled: bool = True
    version: tuple[int, int, int] = (0, 109, 0)
    synthesis_provider: str = "none"
    agent_id_env: str | None = None
    secrets: dict[str, str] = field(default_factory=dict)
    started_at: float = 0.0
    port: int | None = None

    @property
    def newer_routes(self) -> bool:
        """Whether routes added after TS 0.109 are served (session transcript and search)."""
        return self.version[:2] > (0, 109)

    @property
    def synthesis_worker(self) -> bool:
        """A synthesis worker runs when the pipeline runs and synthesis has a provider."""
        return self.pipeline_enabled and self.synthesis_provider != "none"

    def agent(self, agent_id: Any, session_key: Any) -> str:
        """``resolveAgentId`` with this daemon's ``SIGNET_AGENT_ID``."""
        return resolve_agent_id(agent_id, session_key, self.agent_id_env)
