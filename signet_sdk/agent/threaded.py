"""A sync provider serving an async session: each call on a worker thread.

Built-in providers have a real async twin; a user's own sync provider is
run here so it never blocks the event loop. The stream's chunks cross from
the worker thread through a queue, so text still arrives as it is made; a
consumer that stops reading stops the worker at the next chunk.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from signet_sdk.agent.protocols import Provider
    from signet_sdk.agent.types import Chunk, CompletionOptions, CompletionResult, Message

__all__ = ["ThreadedProvider"]

_END = object()


class ThreadedProvider:
    """``AsyncProvider`` over a sync :class:`~signet_sdk.agent.protocols.Provider`."""

    def __init__(self, provider: Provider) -> None:
        self.sync = provider

    @property
    def id(self) -> str:
        return self.sync.id

    async def complete(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> CompletionResult:
        return await asyncio.to_thread(self.sync.complete, messages, options)

    async def stream(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> AsyncIterator[Chunk]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        stop = threading.Event()

        def put(item: object) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is closed: no one reads any more
                stop.set()

        def pump() -> None:
            chunks: Iterator[Chunk] | None = None
            try:
                chunks = iter(self.sync.stream(messages, options))
                for chunk in chunks:
                    if stop.is_set():
                        break
                    put(chunk)
            except BaseException as exc:
                put(exc)
            finally:
                close = getattr(chunks, "close", None)
                if close is not None:
                    close()  # the sync stream's connection, given back now
            put(_END)

        # A consumer that stops early (a cancelled turn) stops the worker at its
        # next chunk: the rest of the answer is neither read nor waited for.
        loop.run_in_executor(None, pump)
        try:
            while (item := await queue.get()) is not _END:
                if isinstance(item, BaseException):
                    raise item
                yield item  # type: ignore[misc]
        finally:
            stop.set()

    async def available(self) -> bool:
        return await asyncio.to_thread(self.sync.available)
