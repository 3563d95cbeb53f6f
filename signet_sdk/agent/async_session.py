"""The async session: the same plans as the sync one, driven on the event loop.

``async with agent.async_session(project=...) as chat`` and the same names
awaited: ``await chat.send(text)``, ``async for event in chat.stream(text)``.
Prompt-submit and the before-generation tools run as concurrent tasks; a
model answer's tool calls run concurrently too, their results kept in call
order, so the next model request is byte for byte the sync session's.
Durable writes go to the outbox on a worker thread (an fsync must not stall
the loop). Cancelling the task that runs a turn rolls the turn back.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
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
    from signet_sdk.agent.protocols import AsyncProvider
    from signet_sdk.agent.types import CompletionResult, ToolResult
    from signet_sdk.client.async_client import AsyncAdapterClient
    from signet_sdk.models import RecallResult

__all__ = ["AsyncSession"]


class AsyncSession(SessionCore):
    """One conversation with memory, on the async client (see the module docstring)."""

    provider: AsyncProvider
    client: AsyncAdapterClient

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        await self.end(reason=self.exit_reason(exc_type))

    async def send(self, text: str) -> AgentOutput:
        """Run one turn and return its output."""
        output: AgentOutput | None = None
        async for event in self.stream(text):
            if event.type == "done":
                output = event.output
        assert output is not None
        return output

    async def stream(self, text: str) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding its events as they happen."""
        self.begin_turn(text)
        plan = turn_plan(self.state, text)
        with self.turn_in_flight(plan):
            async for event in self._drive(plan, {}):
                yield event

    async def compact(self) -> str:
        """Summarise the history now; the summary ("" when there was nothing to do)."""
        self.begin_turn(None)
        plan = compact_plan(self.state)
        box: dict[str, Any] = {}
        with self.turn_in_flight(plan):
            async for _ in self._drive(plan, box):  # its notices are noted by the driver
                pass
        summary: str = box.get("return", "")
        return summary

    async def remember(self, content: str, *, tags: list[str] | None = None) -> None:
        """Store ``content`` as a memory: into the outbox now, to the daemon in order."""
        await asyncio.to_thread(self.writer.submit, self.remember_call(content, tags))

    async def recall(self, query: str, *, limit: int = 10) -> RecallResult:
        """Search memory now (raises the client's error when the daemon cannot answer)."""
        answer = await self._read(Read("recall", self.recall_params(query, limit), "recall"))
        if isinstance(answer, BaseException):
            raise answer
        result: RecallResult = answer
        return result

    async def open(self, plan: Plan) -> None:
        """Run the session's opening plan (health, session start), keeping its notices."""
        try:
            async for _ in self._drive(plan, {}):  # its notices are noted by the driver
                pass
        finally:
            plan.close()

    async def end(self, reason: str = "exit") -> None:
        """End the session: the transcript to the daemon, exactly once, through the outbox."""
        if await asyncio.to_thread(self.finish_session, reason):
            await self.client.aclose()
            if self.owns_provider:
                await self.provider.aclose()  # type: ignore[attr-defined]

    # -- the driver --------------------------------------------------------

    async def _drive(self, plan: Plan, box: dict[str, Any]) -> AsyncIterator[AgentEvent]:
        """Carry out a plan's effects; its return value lands in ``box["return"]``."""
        value: Any = None
        while True:
            try:
                effect = plan.send(value)
            except StopIteration as done:
                box["return"] = done.value
                return
            value = None
            if isinstance(effect, Emit):
                self.note(effect.event)
                yield effect.event
            elif isinstance(effect, Read):
                value = await self._read(effect)
            elif isinstance(effect, Prepare):
                value = await self._prepare(effect)
            elif isinstance(effect, Generate):
                got: dict[str, Any] = {}
                try:
                    async for event in self._generate(effect, got):
                        yield event
                except Exception as exc:
                    if not effect.fail_open:
                        raise
                    got["result"] = exc
                value = got["result"]
            elif isinstance(effect, RunTools):
                value = tuple(
                    await asyncio.gather(
                        *(self.tools.arun(call, self.context) for call in effect.calls)
                    )
                )
            elif isinstance(effect, Write):
                if effect.call.action in DEFERRABLE:
                    self.writer.defer(effect.call)  # no I/O here: the writer thread stores it
                else:
                    await asyncio.to_thread(self.writer.submit, effect.call)

    async def _read(self, read: Read) -> Any:
        method = getattr(self.client, read.method)
        breaker = self.writer.delivery.breaker()
        if breaker is not None and breaker.open_for() > 0:
            try:  # the breaker raises its own error; keep the message the sync side gives
                self.guarded(lambda: None)
            except SignetError as exc:
                return exc
        try:
            answer = await (method() if read.params is None else method(read.params))
        except SignetError as exc:
            if breaker is not None:
                from signet_sdk.hooks.breaker import counts_as_failure

                if counts_as_failure(exc):
                    breaker.failed(lambda line: None)
            return exc
        if breaker is not None:
            breaker.succeeded()
        return answer

    async def _prepare(
        self, prepare: Prepare
    ) -> tuple[Any, tuple[ToolResult, ...], tuple[str, ...]]:
        if not self.tools.research_tools():
            return await self._read(prepare.read), (), ()
        box: dict[str, Any] = {}

        async def research() -> None:
            try:
                box["done"] = await self.tools.arun_research(
                    prepare.text, self.context, self.limits.research_deadline
                )
            except Exception as exc:
                box["error"] = exc

        outcome, _ = await asyncio.gather(self._read(prepare.read), research())
        return (outcome, *self.research_outcome(box))

    async def _generate(self, generate: Generate, got: dict[str, Any]) -> AsyncIterator[AgentEvent]:
        if not self.streaming:
            result = await self.provider.complete(generate.messages, generate.options)
            if (shown := scrub(result.content)) and not generate.aside:
                yield AgentEvent("text", shown)
            got["result"] = result
            return
        final: CompletionResult | None = None
        scrubber = StreamScrubber()
        chunks = self.provider.stream(generate.messages, generate.options)
        try:
            async for chunk in chunks:
                if (
                    chunk.type == "text"
                    and (shown := scrubber.feed(chunk.text))
                    and not generate.aside
                ):
                    yield AgentEvent("text", shown)
                elif chunk.type == "done":
                    final = chunk.result
        finally:
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()
        if (tail := scrubber.end()) and not generate.aside:
            yield AgentEvent("text", tail)
        if final is None:
            raise incomplete(self.provider.id)
        got["result"] = final
