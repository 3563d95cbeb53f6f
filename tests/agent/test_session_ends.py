"""What a session owns, and what it refuses, once it has ended.

A session ends once; after that every way in (a turn, a compaction, a
memory read or write) is refused with the same error, sync or async. The
provider twin an agent made for the other kind of session (a sync provider
serving ``async_session()``, or the reverse) is the session's own, and is
closed with it; the provider the user gave stays open.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.agent import Agent
from signet_sdk.agent.providers import (
    AnthropicProvider,
    AsyncAnthropicProvider,
    AsyncOpenAIProvider,
    OpenAIProvider,
)
from signet_sdk.agent.types import Chunk, CompletionOptions, CompletionResult, Message
from signet_sdk.testing.fake_anthropic import FakeAnthropic
from signet_sdk.testing.fake_openai import FakeOpenAI
from signet_sdk.testing.mock_daemon import MockDaemon

ENDED = r"session \S+ has ended"


@pytest.fixture
def fake() -> Iterator[Any]:
    with FakeAnthropic() as server:
        yield server


def test_a_sync_providers_async_twin_is_closed_with_its_session(
    fake: Any,
    mock_daemon: tuple[MockDaemon, str],
    agent_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    closed: list[object] = []
    real_aclose = AsyncAnthropicProvider.aclose

    async def aclose(self: AsyncAnthropicProvider) -> None:
        closed.append(self)
        await real_aclose(self)

    monkeypatch.setattr(AsyncAnthropicProvider, "aclose", aclose)
    given = AnthropicProvider("m", api_key="k", base_url=fake.base_url)
    agent = Agent(given, daemon_url=mock_daemon[1], env=agent_env)

    async def main() -> Any:
        async with agent.async_session(project=str(tmp_path)) as chat:
            await chat.send("hello")
        return chat.provider

    twin = asyncio.run(main())
    assert isinstance(twin, AsyncAnthropicProvider) and closed == [twin]
    assert not given._transport.io.client.is_closed  # the user's own: theirs to close
    given.close()


def test_an_async_providers_sync_twin_is_closed_with_its_session(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str], tmp_path: Path
) -> None:
    with FakeOpenAI() as server:
        given = AsyncOpenAIProvider("m", api_key="k", base_url=server.base_url)
        agent = Agent(given, daemon_url=mock_daemon[1], env=agent_env)
        with agent.session(project=str(tmp_path)) as chat:
            assert chat.send("hello").content
        twin = chat.provider
        assert isinstance(twin, OpenAIProvider)
        assert twin._transport.io.client.is_closed


def test_memory_calls_after_the_end_are_refused_as_turns_are(
    fake: Any, mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str], tmp_path: Path
) -> None:
    daemon, url = mock_daemon
    with AnthropicProvider("m", api_key="k", base_url=fake.base_url) as provider:
        chat = Agent(provider, daemon_url=url, env=agent_env).session(project=str(tmp_path))
        chat.end()
        chat.end()  # twice: nothing more happens
        for late in (
            lambda: chat.send("hi"),
            chat.compact,
            lambda: chat.remember("the deploy runs on Fridays"),
            lambda: chat.recall("deploy"),
        ):
            with pytest.raises(RuntimeError, match=ENDED):
                late()
    assert len(daemon.requests_to("/api/hooks/session-end")) == 1
    assert daemon.requests_to("/api/hooks/remember") == []


def test_async_memory_calls_after_the_end_are_refused_as_turns_are(
    fake: Any, mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str], tmp_path: Path
) -> None:
    daemon, url = mock_daemon

    async def main() -> None:
        async with AsyncAnthropicProvider("m", api_key="k", base_url=fake.base_url) as provider:
            chat = await Agent(provider, daemon_url=url, env=agent_env).async_session(
                project=str(tmp_path)
            )
            await chat.end()
            await chat.end()
            for late in (
                lambda: chat.send("hi"),
                chat.compact,
                lambda: chat.remember("the deploy runs on Fridays"),
                lambda: chat.recall("deploy"),
            ):
                with pytest.raises(RuntimeError, match=ENDED):
                    await late()

    asyncio.run(main())
    assert len(daemon.requests_to("/api/hooks/session-end")) == 1
    assert daemon.requests_to("/api/hooks/remember") == []


class SlowSyncProvider:
    """A user's own sync provider whose answer streams slowly: twenty chunks, 50 ms apart."""

    id = "slow:m"

    def __init__(self) -> None:
        self.pulled = 0
        self.closed = threading.Event()

    def complete(self, messages: Sequence[Message], options: CompletionOptions) -> CompletionResult:
        return CompletionResult("whole")

    def stream(self, messages: Sequence[Message], options: CompletionOptions) -> Iterator[Chunk]:
        try:
            for i in range(20):
                time.sleep(0.05)
                self.pulled += 1
                yield Chunk("text", f"w{i} ")
            yield Chunk("done", result=CompletionResult("whole"))
        finally:
            self.closed.set()

    def available(self) -> bool:
        return True


def test_a_cancelled_async_turn_stops_a_sync_providers_stream(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str], tmp_path: Path
) -> None:
    """The worker thread that reads a sync provider for an async session stops with the turn:
    it does not read (and pay for) the rest of the answer, nor hold up the loop's shutdown."""
    model = SlowSyncProvider()
    agent = Agent(model, daemon_url=mock_daemon[1], env=agent_env)

    async def main() -> None:
        async with agent.async_session(project=str(tmp_path)) as chat:
            async for event in chat.stream("hello"):
                if event.type == "text":
                    break  # the caller stops reading: the turn is cancelled

    asyncio.run(main())
    assert model.closed.wait(2.0)
    assert model.pulled < 5
