"""The open sessions of the server's agent: one turn at a time each, ended exactly once.

An HTTP client opens a session and comes back for each turn, so the server
holds the :class:`~signet_sdk.agent.AsyncSession` objects between requests.
Each turn runs as its own task, apart from the request that asked for it:
the request relays the turn's events, and cancelling the task (the client
went away, the session is deleted, the server stops) is what rolls the turn
back. A session ends on ``DELETE``, after ``idle_seconds`` without a turn,
or when the server stops, whichever comes first, and only once: it leaves
the table before its end is sent, so nothing else can reach it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from signet_sdk.agent.events import AgentEvent
from signet_sdk.wire.log import logger as log

if TYPE_CHECKING:
    from signet_sdk.agent.agent import Agent
    from signet_sdk.agent.async_session import AsyncSession

__all__ = ["DEFAULT_IDLE_SECONDS", "AgentSessions", "Refusal", "RunningTurn"]

#: A session nobody has sent a turn to for this long is ended (its memory extracted).
DEFAULT_IDLE_SECONDS = 30 * 60.0
#: The idle check runs at least this often, so a session ends at most this late.
_MAX_CHECK_SECONDS = 30.0
#: The opening request's fields: a ValueError naming one of them is the caller's to fix.
_OPEN_FIELDS = ("project", "key", "resume")


class Refusal(Exception):
    """A request the sessions cannot serve: the HTTP status, the message, what helps the caller."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


@dataclass(eq=False)
class RunningTurn:
    """One turn in flight: its number in the session, its task, the events it has produced.

    ``events`` ends with None once the task is over, whatever ended it; a
    cancelled turn's last event is an ``error`` saying why.
    """

    key: str
    number: int
    events: asyncio.Queue[AgentEvent | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    #: Why the turn was cancelled, for its ``error`` event.
    cancelled_because: str = "it was cancelled"

    def cancel(self, because: str) -> None:
        """Cancel the turn (it is rolled back); it ends on its own task, soon after."""
        if self.task is not None and not self.task.done():
            self.cancelled_because = because
            self.task.cancel()

    async def stop(self, because: str) -> None:
        """Cancel the turn and wait until the session is free again."""
        task = self.task
        if task is None or task.done():
            return
        self.cancel(because)
        with contextlib.suppress(asyncio.CancelledError):
            await task


@dataclass(eq=False)
class _OpenSession:
    session: AsyncSession
    last_used: float
    turns_started: int = 0
    turn: RunningTurn | None = None


class AgentSessions:
    """The server's table of open agent sessions (see the module docstring).

    ``clock`` is what idleness is measured with (``time.monotonic``).
    """

    def __init__(
        self,
        agent: Agent,
        *,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not idle_seconds > 0:
            raise ValueError(
                f"agent_idle: must be a positive number of seconds, not {idle_seconds}"
            )
        self.agent = agent
        self.idle_seconds = float(idle_seconds)
        self._clock = clock
        self._open: dict[str, _OpenSession] = {}
        self._opening: set[str] = set()
        self._reaper: asyncio.Task[None] | None = None
        self._closing = False

    def __repr__(self) -> str:
        return f"AgentSessions(open={len(self._open)}, idle_seconds={self.idle_seconds:g})"

    # -- opening -------------------------------------------------------------

    async def open(
        self, *, project: str | None, key: str | None, resume: str | None
    ) -> AsyncSession:
        """Open (or resume) a session and keep it; :class:`Refusal` when it cannot be."""
        wanted = resume or key
        if wanted is not None and (wanted in self._open or wanted in self._opening):
            raise Refusal(409, f"session {wanted} is already open here", key=wanted)
        if self._closing:
            raise Refusal(503, "the server is stopping; no new sessions")
        if wanted is not None:
            self._opening.add(wanted)
        try:
            session = await self.agent.async_session(project=project, key=key, resume=resume)
        except Exception as exc:
            from signet_sdk.agent.durable import SessionKeyInUseError

            if isinstance(exc, SessionKeyInUseError):  # open in another process
                raise Refusal(409, str(exc), key=wanted) from exc
            named = str(exc).partition(":")[0]
            if isinstance(exc, ValueError) and named in _OPEN_FIELDS:  # the request's fault
                raise Refusal(422, str(exc), field=named) from exc
            log.warning("agent session did not open: %r", exc)
            raise Refusal(500, f"the session could not be opened: {exc}") from exc
        finally:
            if wanted is not None:
                self._opening.discard(wanted)
        if self._closing:  # the server began stopping while this one opened
            await self._end_quietly(session, "shutdown")
            raise Refusal(503, "the server is stopping; no new sessions")
        self._open[session.key] = _OpenSession(session, self._clock())
        self._watch_idle()
        return session

    # -- turns -----------------------------------------------------------------

    def start_turn(self, key: str, text: str) -> RunningTurn:
        """Start a turn in session ``key`` now; its events arrive on the returned turn's queue."""
        entry = self._entry(key)
        if entry.turn is not None:
            number = entry.turn.number
            raise Refusal(
                409,
                f"turn {number} is still running in session {key}; one turn at a time",
                key=key,
                turn=number,
            )
        entry.turns_started += 1
        turn = RunningTurn(key, entry.turns_started)
        entry.turn = turn
        entry.last_used = self._clock()
        turn.task = asyncio.create_task(
            self._run(entry, turn, text), name=f"turn {key}#{turn.number}"
        )
        return turn

    async def _run(self, entry: _OpenSession, turn: RunningTurn, text: str) -> None:
        try:
            async for event in entry.session.stream(text):
                turn.events.put_nowait(event)
        except Exception as exc:  # a provider or the session failed: the session goes on
            log.info("agent turn %s#%d failed: %r", turn.key, turn.number, exc)
            turn.events.put_nowait(AgentEvent("error", str(exc) or type(exc).__name__))
        except asyncio.CancelledError:
            why = f"turn {turn.number} cancelled: {turn.cancelled_because}; it was rolled back"
            turn.events.put_nowait(AgentEvent("error", why))
            raise
        finally:
            turn.events.put_nowait(None)
            if entry.turn is turn:
                entry.turn = None
            entry.last_used = self._clock()

    # -- listing and ending ----------------------------------------------------

    def describe(self) -> list[dict[str, Any]]:
        """Each open session: its key, the running turn's number (or None), its idle seconds."""
        now = self._clock()
        return [
            {
                "key": key,
                "running_turn": entry.turn.number if entry.turn is not None else None,
                "idle_seconds": 0.0 if entry.turn is not None else round(now - entry.last_used, 3),
            }
            for key, entry in self._open.items()
        ]

    async def end(self, key: str, reason: str = "exit") -> None:
        """End session ``key``: its running turn cancelled, then its end sent to the daemon.

        The session leaves the table first, so a second call (or a turn
        posted meanwhile) finds nothing: 404. Raises when the end could not
        be put in the outbox.
        """
        entry = self._open.pop(key, None)
        if entry is None:
            raise Refusal(404, f"no open session {key} here", key=key)
        if entry.turn is not None:
            await entry.turn.stop("the session was ended")
        await entry.session.end(reason=reason)

    async def aclose(self) -> None:
        """End every open session once (running turns cancelled first); called on shutdown."""
        self._closing = True
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None
        entries = list(self._open.values())
        self._open.clear()
        await asyncio.gather(*(self._end_entry(entry, "shutdown") for entry in entries))

    def _entry(self, key: str) -> _OpenSession:
        entry = self._open.get(key)
        if entry is None:
            raise Refusal(404, f"no open session {key} here", key=key)
        return entry

    async def _end_entry(self, entry: _OpenSession, reason: str) -> None:
        if entry.turn is not None:
            await entry.turn.stop("the server is stopping")
        await self._end_quietly(entry.session, reason)

    @staticmethod
    async def _end_quietly(session: AsyncSession, reason: str) -> None:
        try:
            await session.end(reason=reason)
        except Exception as exc:  # nobody to answer: the live record lets the next start retry
            log.warning("agent session %s did not end cleanly: %r", session.key, exc)

    # -- idleness ----------------------------------------------------------------

    def _watch_idle(self) -> None:
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.create_task(self._reap(), name="agent idle sessions")

    async def _reap(self) -> None:
        every = max(min(self.idle_seconds / 2, _MAX_CHECK_SECONDS), 0.01)
        while self._open:
            await asyncio.sleep(every)
            stale = [key for key, entry in self._open.items() if self._idle(entry)]
            for key in stale:
                entry = self._open.get(key)
                # an earlier end took a while: this one may have been used since
                if entry is not None and self._idle(entry):
                    del self._open[key]
                    log.info("agent session %s idle for %gs: ended", key, self.idle_seconds)
                    await self._end_entry(entry, "idle")

    def _idle(self, entry: _OpenSession) -> bool:
        return entry.turn is None and self._clock() - entry.last_used >= self.idle_seconds
