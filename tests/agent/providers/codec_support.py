"""Decoding a scripted stream with a vendor's codec, for the Anthropic and OpenAI codec tests.

Both vendors' tests script the same answer as a stream ("Storing two ✓" and two
parallel tool calls), each in its own wire form; what it decodes to differs only
in the vendor's ids, usage, stop reason and model.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from signet_sdk.agent.providers import IncompleteStreamError
from signet_sdk.agent.types import Chunk, CompletionResult, ToolCall, Usage


def decode(codec: Any, lines: list[str]) -> list[Chunk]:
    """Every chunk ``codec``'s stream decoder gives for ``lines``, fed one at a time."""
    decoder = codec.decoder()
    chunks = [chunk for line in lines for chunk in decoder.feed(line)]
    return chunks + decoder.end()


def cut_progress(codec: Any, lines: list[str]) -> str:
    """How far a stream cut after ``lines`` got, as the IncompleteStreamError it raises says."""
    with pytest.raises(IncompleteStreamError) as caught:
        decode(codec, lines)
    return caught.value.progress


def assert_storing_two(
    chunks: list[Chunk], calls: tuple[ToolCall, ...], usage: Usage, raw_stop: str, model: str
) -> None:
    """The scripted parallel stream decoded: its two text pieces, then the whole result."""
    assert chunks[:-1] == [Chunk("text", "Storing "), Chunk("text", "two ✓")]
    assert chunks[-1] == Chunk(
        "done",
        result=CompletionResult(
            content="Storing two ✓",
            tool_calls=calls,
            stop_reason="tool_use",
            usage=usage,
            raw_stop_reason=raw_stop,
            model=model,
        ),
    )


def bodies_each_extending_the_last(body_bytes: Any, conversation: list[Any]) -> list[bytes]:
    """The request bodies for each longer prefix of ``conversation``, checked to nest.

    Request N, less its closing ``]}``, must begin request N+1: the cached prefix holds.
    """
    bodies: list[bytes] = [body_bytes(conversation[: n + 1]) for n in range(len(conversation))]
    for before, after in itertools.pairwise(bodies):
        assert after.startswith(before[:-2] + b",")
    return bodies
