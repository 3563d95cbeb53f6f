"""A model in a few lines, for tests of code built on :mod:`signet_sdk.agent`.

``ScriptedProvider`` answers each model call with the next reply of its
script: a string (the answer's text), a :class:`CompletionResult`, an
exception (raised, as a provider error would be), or a function of the
request. Every request is kept (``requests``), so a test asserts exactly
what the model was sent. ``as_async()`` gives the async twin over the same
script and the same record, as the built-in providers do.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from signet_sdk.agent.threaded import ThreadedProvider
from signet_sdk.agent.types import (
    Chunk,
    CompletionOptions,
    CompletionResult,
    Message,
    ToolCall,
    Usage,
)

__all__ = ["ModelRequest", "ScriptedProvider", "tool_use"]

Reply = (
    str | CompletionResult | BaseException | Callable[[Sequence[Message], CompletionOptions], Any]
)


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One call the provider received."""

    messages: tuple[Message, ...]
    options: CompletionOptions
    streamed: bool


def tool_use(*calls: tuple[str, dict[str, Any]], text: str = "") -> CompletionResult:
    """A reply that calls tools: ``tool_use(("memory_store", {"content": "..."}))``."""
    made = tuple(
        ToolCall(f"call_{n}_{name}", name, dict(args)) for n, (name, args) in enumerate(calls)
    )
    return CompletionResult(text, made, "tool_use", Usage(10, 5))


class ScriptedProvider:
    """A :class:`~signet_sdk.agent.protocols.Provider` that plays a script (see module doc).

    When the script runs out, ``default`` answers (by default the text
    ``"ok"``). ``usage`` is reported for text replies.
    """

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        default: Reply = "ok",
        usage: Usage | None = None,
        model: str = "scripted",
    ) -> None:
        self.script: list[Reply] = list(replies)
        self.default = default
        self.usage = usage or Usage(10, 5)
        self.model = model
        self.requests: list[ModelRequest] = []
        self._lock = threading.Lock()

    @property
    def id(self) -> str:
        return f"scripted:{self.model}"

    def _answer(
        self, messages: Sequence[Message], options: CompletionOptions, streamed: bool
    ) -> CompletionResult:
        with self._lock:
            self.requests.append(ModelRequest(tuple(messages), options, streamed))
            reply = self.script.pop(0) if self.script else self.default
        if callable(reply) and not isinstance(reply, BaseException):
            reply = reply(messages, options)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, CompletionResult):
            return reply
        return CompletionResult(str(reply), (), "end_turn", self.usage, "end_turn", self.model)

    def complete(self, messages: Sequence[Message], options: CompletionOptions) -> CompletionResult:
        return self._answer(messages, options, streamed=False)

    def stream(self, messages: Sequence[Message], options: CompletionOptions) -> Iterator[Chunk]:
        result = self._answer(messages, options, streamed=True)
        half = len(result.content) // 2
        for piece in (result.content[:half], result.content[half:]):
            if piece:
                yield Chunk("text", piece)
        yield Chunk("done", result=result)

    def available(self) -> bool:
        return True

    def as_async(self) -> AsyncScriptedProvider:
        return AsyncScriptedProvider(self)


class AsyncScriptedProvider(ThreadedProvider):
    """The async twin: the same script, the same ``requests``; replies made on a worker thread.

    A worker thread because a reply function may block (a test holding a turn
    open); a stream's chunks are made there in one go.
    """

    sync: ScriptedProvider

    def __init__(self, sync: ScriptedProvider) -> None:
        super().__init__(sync)

    @property
    def requests(self) -> list[ModelRequest]:
        return self.sync.requests

    async def stream(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> AsyncIterator[Chunk]:
        chunks = await asyncio.to_thread(lambda: list(self.sync.stream(messages, options)))
        for chunk in chunks:
            yield chunk

    async def available(self) -> bool:
        return True

    def as_sync(self) -> ScriptedProvider:
        return self.sync
