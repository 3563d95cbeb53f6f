"""The runtime's interfaces: Provider (sync and async twins), Tool and Channel.

They are protocols: anything with these members plugs in, the built-in
providers and tools included. The loop (:mod:`signet_sdk.agent.session`)
only ever calls what is declared here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from signet_sdk.agent.types import Chunk, CompletionOptions, CompletionResult, Message

__all__ = ["AsyncProvider", "Channel", "Provider"]


@runtime_checkable
class Provider(Protocol):
    """A model behind one API: ``complete`` answers at once, ``stream`` piece by piece.

    ``stream`` yields text chunks and ends with one ``done`` chunk carrying
    the whole :class:`~signet_sdk.agent.types.CompletionResult`. Errors are
    the SDK's (:class:`~signet_sdk.wire.errors.APIError` and its subclasses),
    naming the provider's URL. ``available()`` says whether the provider can
    be called at all (a key is set, a local server answers) without spending
    tokens.
    """

    @property
    def id(self) -> str: ...

    def complete(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> CompletionResult: ...

    def stream(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> Iterator[Chunk]: ...

    def available(self) -> bool: ...


@runtime_checkable
class AsyncProvider(Protocol):
    """:class:`Provider`, awaited: the same names and the same request bytes."""

    @property
    def id(self) -> str: ...

    async def complete(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> CompletionResult: ...

    def stream(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> AsyncIterator[Chunk]: ...

    async def available(self) -> bool: ...


@runtime_checkable
class Channel(Protocol):
    """Where turns come from and answers go: a terminal, an HTTP client, a Python caller.

    ``receive()`` gives the next user turn's text, or None when the user is
    done; ``send(event)`` shows one agent event (streamed text, a tool call,
    a notice, the turn's end); ``on_close()`` is called once when the session
    ends, whatever ended it.
    """

    def receive(self) -> str | None: ...

    def send(self, event: Any) -> None: ...

    def on_close(self) -> None: ...


#: Arguments as a model gives them to a tool.
Arguments = Mapping[str, Any]
