"""A sync provider serving an async session: each call on a worker thread.

Built-in providers have a real async twin; a user's own sync provider is
run here so it never blocks the event loop. The stream's chunks cross from
the worker thread through a queue, so text still arrives as it is made.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
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

        def pump() -> None:
            try:
                for chunk in self.sync.stream(messages, options):
                    loop.call_soon_threadsafe(queue.put_nowait, chunk)
            except BaseException as exc:
                loop.call_soon_threadsafe(queue.put_nowait, exc)
            loop.call_soon_threadsafe(queue.put_nowait, _END)

        # A consumer that stops early leaves the worker to finish the sync stream.
        loop.run_in_executor(None, pump)
        while (item := await queue.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item  # type: ignore[misc]

    async def available(self) -> bool:
        return await asyncio.to_thread(self.sync.available)
