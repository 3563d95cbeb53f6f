"""What the sync and async sessions share: the session's parts and its bookkeeping.

Neither driver decides anything about the conversation (the plans do);
this is the rest both need: opening and ending exactly once, rolling back
a failed turn, the circuit breaker around daemon reads, the live record a
killed process leaves behind.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from signet_sdk.agent.durable import SessionFiles, SessionWriter, session_end_call
from signet_sdk.agent.events import AgentEvent, Limits
from signet_sdk.agent.state import SessionState
from signet_sdk.agent.types import ToolResult, Usage
from signet_sdk.wire.errors import APIConnectionError
from signet_sdk.wire.lifecycle import LifecycleCall

if TYPE_CHECKING:
    from signet_sdk.agent.plan import Plan
    from signet_sdk.agent.tools import CallContext, ToolRegistry

__all__ = ["DEFERRABLE", "SessionCore", "TurnRunningError", "check_text", "incomplete"]

log = logging.getLogger("signet_sdk.agent")
T = TypeVar("T")

#: Writes a turn hands to the writer thread to store (see ``SessionWriter.defer``).
DEFERRABLE = frozenset({"session_checkpoint_extract"})

#: Seconds a session's end waits for its writes before leaving them to the sender.
END_WAIT_SECONDS = 5.0


class TurnRunningError(RuntimeError):
    """A turn was started while another ran in the same session (one at a time)."""


def check_text(text: str, what: str = "text") -> None:
    """Refuse text that cannot be sent as UTF-8 (a lone surrogate: undecodable input).

    The model server and the daemon both take JSON in UTF-8; caught here, it is
    a ValueError naming the prompt instead of a serializer's error mid-turn.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"{what}: not valid text (character {exc.start} is a lone surrogate, "
            "as from input that is not UTF-8)"
        ) from None


def incomplete(provider: str) -> APIConnectionError:
    return APIConnectionError(
        f"{provider}: the stream ended without its final answer", method="POST", url=provider
    )


class SessionCore:
    """The parts of one session and the bookkeeping both drivers share."""

    def __init__(
        self,
        *,
        provider: Any,
        client: Any,
        tools: ToolRegistry,
        context: CallContext,
        state: SessionState,
        writer: SessionWriter,
        files: SessionFiles,
        limits: Limits,
        streaming: bool,
        notices: list[str] | None = None,
        end_wait: float = END_WAIT_SECONDS,
    ) -> None:
        self.provider = provider
        self.client = client
        self.tools = tools
        self.context = context
        self.state = state
        self.writer = writer
        self.files = files
        self.limits = limits
        self.streaming = streaming
        self.end_wait = end_wait
        self.running = False
        self.ended = False
        #: Whether ``provider`` is a twin the agent made for this session (closed at its end).
        self.owns_provider = False
        #: Every notice of the session so far (daemon down, a read skipped ...).
        self.notices: list[str] = notices if notices is not None else []

    @property
    def key(self) -> str:
        """The session key the daemon knows this session by (give it to ``resume``)."""
        return self.state.key

    @property
    def usage(self) -> Usage:
        """Tokens used by every model call of the session so far, summaries included."""
        return self.state.usage

    @property
    def memory_online(self) -> bool:
        """False from a start the daemon did not answer until a turn opens the session there."""
        return self.state.memory_online

    def note(self, event: AgentEvent) -> None:
        if event.type == "notice":
            self.notices.append(event.text)
            log.info("signet: %s", event.text)

    def check_open(self) -> None:
        """Refuse a session that has ended: a turn, a compaction, a memory read or write."""
        if self.ended:
            raise RuntimeError(f"session {self.key} has ended; open a new one or resume it")

    def begin_turn(self, text: str | None) -> None:
        self.check_open()
        if self.running:
            raise TurnRunningError(f"a turn is already running in session {self.key}")
        if text is not None and not text.strip():
            raise ValueError("text: a turn needs some text")
        if text is not None:
            check_text(text)
        self.running = True

    def state_mark(self) -> tuple[int, int, Usage]:
        return len(self.state.history), len(self.state.turn_starts), self.state.usage

    @contextmanager
    def turn_in_flight(self, plan: Plan) -> Iterator[None]:
        """A turn begun (:meth:`begin_turn`) whose ``plan`` runs in the block, either driver's.

        The plan is closed however the block is left; a turn that fails or is
        cancelled is rolled back (:meth:`turn_failed`), so the model never sees
        half a turn; and the session is free for the next turn.
        """
        mark = self.state_mark()
        self.state.turn_open = True
        try:
            with closing(plan):
                yield
        except BaseException as exc:
            self.turn_failed(mark, exc)
            raise
        finally:
            self.state.turn_open = False
            self.running = False

    def turn_failed(self, mark: tuple[int, int, Usage], exc: BaseException) -> None:
        """Undo a turn the model did not finish (one it answered stays)."""
        length, starts, _ = mark
        self.state.rollback(length, starts)
        why = "cancelled" if isinstance(exc, KeyboardInterrupt | GeneratorExit) else "failed"
        log.info("signet: turn %s in session %s: %r", why, self.key, exc)

    def remember_call(self, content: str, tags: list[str] | None = None) -> LifecycleCall:
        """The durable remember of ``/remember`` (the user's own words, not the model's)."""
        self.check_open()
        if not content.strip():
            raise ValueError("content: nothing to remember")
        body: dict[str, Any] = {"content": content.strip(), "sessionKey": self.key}
        if self.state.project:
            body["project"] = self.state.project
        if tags:
            body["tags"] = ",".join(tags)
        return LifecycleCall("remember", body)

    def recall_params(self, query: str, limit: int) -> Any:
        from signet_sdk.models import RecallParams

        self.check_open()
        if not query.strip():
            raise ValueError("query: nothing to look for")
        return RecallParams(query=query.strip(), limit=limit, project=self.state.project)

    def guarded(self, call: Callable[[], T]) -> T:
        """A daemon read behind the breaker every hook shares (open: not even tried)."""
        return self.writer.delivery.guarded(call)

    def research_outcome(
        self, box: dict[str, Any]
    ) -> tuple[tuple[ToolResult, ...], tuple[str, ...]]:
        error = box.get("error")
        if error is not None:
            return (), (f"memory: research skipped ({error})",)
        found = box.get("done")
        return _split_research(found)

    @staticmethod
    def exit_reason(exc_type: type[BaseException] | None) -> str:
        if exc_type is None:
            return "exit"
        if issubclass(exc_type, KeyboardInterrupt):
            return "interrupted"
        return "error"

    def finish_session(self, reason: str) -> bool:
        """Put the session end in the outbox (once), drop the live record, wait a moment.

        False when the session had already ended.
        """
        if self.ended:
            return False
        self.ended = True
        state = self.state
        self.writer.submit(
            session_end_call(state.key, state.transcript_path, state.project, reason)
        )
        self.files.drop_live()
        self.files.release()
        if not self.writer.finish(self.end_wait):
            self.notices.append("memory: the session end waits in the outbox")
        return True


def _split_research(found: Any) -> tuple[tuple[ToolResult, ...], tuple[str, ...]]:
    """The registry's research answer as (results, one notice per tool left out)."""
    if found is None:
        return (), ()
    skipped = getattr(found, "skipped", ())
    notices = tuple(f"research: {s.name} left out ({s.reason})" for s in skipped)
    return tuple(found), notices
