"""The sync session: drives the plans of :mod:`signet_sdk.agent.plan` on threads and httpx.

``with agent.session(project=...) as chat`` opens a session (``/health``,
session-start) and ends it exactly once when the block is left, however it
is left. ``chat.send(text)`` runs one turn and returns its output;
``chat.stream(text)`` yields its events as they happen. A turn that fails
(the provider errs, the user presses Ctrl-C) is rolled back, so the model
never sees half a turn, and the session goes on.
"""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator
from contextlib import closing
from typing import TYPE_CHECKING, Any, Self

from signet_sdk.agent.context import StreamScrubber, scrub
from signet_sdk.agent.events import AgentEvent, AgentOutput
from signet_sdk.agent.plan import (
    Emit,
    Generate,
    Plan,
    Prepare,
    Read,
    RunTools,
    Write,
    compact_plan,
    turn_plan,
)
from signet_sdk.agent.runner import DEFERRABLE, SessionCore, incomplete
from signet_sdk.wire.errors import SignetError

if TYPE_CHECKING:
    from signet_sdk.agent.protocols import Provider
    from signet_sdk.agent.types import CompletionResult, ToolResult
    from signet_sdk.client.sync_client import AdapterClient
    from signet_sdk.models import RecallResult

__all__ = ["Session"]


class Session(SessionCore):
    """One conversation with memory, on the sync client (see the module docstring)."""

    provider: Provider
    client: AdapterClient

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        self.end(reason=self.exit_reason(exc_type))

    # -- turns -------------------------------------------------------------

    def send(self, text: str) -> AgentOutput:
        """Run one turn and return its output (the answer is streamed to no one)."""
        output: AgentOutput | None = None
        for event in self.stream(text):
            if event.type == "done":
                output = event.output
        assert output is not None
        return output

    def stream(self, text: str) -> Iterator[AgentEvent]:
        """Run one turn, yielding its events: text as it arrives, tools, notices, then ``done``."""
        self.begin_turn(text)
        plan = turn_plan(self.state, text)
        with self.turn_in_flight(plan):
            yield from self._drive(plan)

    def compact(self) -> str:
        """Summarise the history now (as when it grows past the threshold); the summary."""
        self.begin_turn(None)
        plan = compact_plan(self.state)
        with self.turn_in_flight(plan):
            gen = self._drive(plan)
            while True:
                try:
                    next(gen)  # (noted by the driver)
                except StopIteration as done:
                    summary: str = done.value
                    return summary

    def remember(self, content: str, *, tags: list[str] | None = None) -> None:
        """Store ``content`` as a memory: into the outbox now, to the daemon in order."""
        self.writer.submit(self.remember_call(content, tags))

    def recall(self, query: str, *, limit: int = 10) -> RecallResult:
        """Search memory now (raises the client's error when the daemon cannot answer)."""
        params = self.recall_params(query, limit)
        return self.guarded(lambda: self.client.recall(params))

    def open(self, plan: Plan) -> None:
        """Run the session's opening plan (health, session start), keeping its notices."""
        with closing(plan):
            for _ in self._drive(plan):  # its notices are noted by the driver
                pass

    def end(self, reason: str = "exit") -> None:
        """End the session: the transcript to the daemon, exactly once, through the outbox."""
        if self.finish_session(reason):
            self.client.close()
            if self.owns_provider:
                self.provider.close()  # type: ignore[attr-defined]

    # -- the driver --------------------------------------------------------

    def _drive(self, plan: Plan) -> Generator[AgentEvent, None, Any]:
        """Carry out a plan's effects; its return value is the generator's."""
        value: Any = None
        while True:
            try:
                effect = plan.send(value)
            except StopIteration as done:
                return done.value
            value = None
            if isinstance(effect, Emit):
                self.note(effect.event)
                yield effect.event
            elif isinstance(effect, Read):
                value = self._read(effect)
            elif isinstance(effect, Prepare):
                value = self._prepare(effect)
            elif isinstance(effect, Generate):
                try:
                    value = yield from self._generate(effect)
                except Exception as exc:
                    if not effect.fail_open:
                        raise
                    value = exc
            elif isinstance(effect, RunTools):
                value = tuple(self.tools.run(call, self.context) for call in effect.calls)
            elif isinstance(effect, Write):
                if effect.call.action in DEFERRABLE:
                    self.writer.defer(effect.call)
                else:
                    self.writer.submit(effect.call)

    def _read(self, read: Read) -> Any:
        method = getattr(self.client, read.method)
        try:
            if read.params is None:
                return self.guarded(method)
            return self.guarded(lambda: method(read.params))
        except SignetError as exc:
            return exc

    def _prepare(self, prepare: Prepare) -> tuple[Any, tuple[ToolResult, ...], tuple[str, ...]]:
        if not self.tools.research_tools():
            return self._read(prepare.read), (), ()
        box: dict[str, Any] = {}

        def research() -> None:
            try:
                box["done"] = self.tools.run_research(
                    prepare.text, self.context, self.limits.research_deadline
                )
            except Exception as exc:
                box["error"] = exc

        worker = threading.Thread(target=research, name="signet-research", daemon=True)
        worker.start()
        outcome = self._read(prepare.read)
        worker.join()
        return (outcome, *self.research_outcome(box))

    def _generate(self, generate: Generate) -> Generator[AgentEvent, None, CompletionResult]:
        if not self.streaming:
            result = self.provider.complete(generate.messages, generate.options)
            if (shown := scrub(result.content)) and not generate.aside:
                yield AgentEvent("text", shown)
            return result
        final: CompletionResult | None = None
        scrubber = StreamScrubber()
        with closing(self.provider.stream(generate.messages, generate.options)) as chunks:  # type: ignore[type-var]
            for chunk in chunks:
                if (
                    chunk.type == "text"
                    and (shown := scrubber.feed(chunk.text))
                    and not generate.aside
                ):
                    yield AgentEvent("text", shown)
                elif chunk.type == "done":
                    final = chunk.result
        if (tail := scrubber.end()) and not generate.aside:
            yield AgentEvent("text", tail)
        if final is None:
            raise incomplete(self.provider.id)
        return final
