"""The values the runtime passes between its parts: messages, tool calls, results, chunks.

Every provider codec, tool and driver speaks these, and nothing else: the
loop never sees a vendor's wire shape. They are frozen dataclasses with
slots (cheap to make on every turn, compared by value in tests).

A conversation is a list of :class:`Message`: ``user`` (text, plus the tool
results it carries back), ``assistant`` (text, plus the tool calls it made).
Codecs turn that list into Anthropic content blocks or OpenAI chat messages;
the same list always gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "STOP_REASONS",
    "Chunk",
    "CompletionOptions",
    "CompletionResult",
    "Message",
    "StopReason",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Usage",
]

#: Why a model stopped, normalized across providers. ``pause_turn`` is
#: Anthropic's "call me again to go on"; ``refusal`` ends the turn.
StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn"]
STOP_REASONS: tuple[StopReason, ...] = (
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "refusal",
    "pause_turn",
)


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens of one model call (or a sum of several): fresh input, output, cache reads and writes.

    ``input`` counts the prompt tokens that were neither read from nor written
    to the cache (Anthropic's ``input_tokens``; OpenAI's ``prompt_tokens``
    less its cached part), so the four add up to what the call processed.
    """

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
        )

    @property
    def prompt_total(self) -> int:
        """Every prompt token of the call: fresh, read from cache and written to it."""
        return self.input + self.cache_read + self.cache_write

    def as_dict(self) -> dict[str, int]:
        return {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
        }


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call a model made: its id, the tool's name and the parsed arguments.

    ``error`` is set when the model's arguments were not a JSON object; the
    call is then answered with that error (the model can fix it) instead of
    being run. ``raw_arguments`` keeps what the model sent, so the call goes
    back to it byte for byte in the next request.
    """

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    raw_arguments: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool call gave back to the model: text (JSON for structured results)."""

    call_id: str
    name: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a conversation, provider-neutral.

    * ``role="user"``: ``text`` the user's words (and this turn's fenced
      context), ``tool_results`` the answers to the previous assistant
      message's calls (sent before the text).
    * ``role="assistant"``: ``text`` what the model said, ``tool_calls`` what
      it asked to run.
    """

    role: Literal["user", "assistant"]
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What a model is told of one tool: name, description and the JSON Schema of its input."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class CompletionOptions:
    """Everything of a model call besides its messages.

    ``system`` is the stable system prompt (the cached prefix); ``tools`` are
    offered in the order given (the registry sorts them, so the prefix stays
    byte-stable). ``cache_key`` names the conversation for providers that
    route cache hits by key (OpenAI's ``prompt_cache_key``); Anthropic gets
    cache breakpoints on the tools, the system prompt and the newest message.
    ``timeout`` is the call's one deadline in seconds (connect to the last
    byte of a non-streamed answer; to the first byte of a streamed one).
    """

    system: str = ""
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    cache_key: str | None = None
    timeout: float | None = 120.0


@dataclass(frozen=True, slots=True)
class CompletionResult:
    """One model call's answer: text, tool calls, why it stopped, tokens used.

    ``raw_stop_reason`` is the provider's own word (``stop``, ``tool_calls``,
    ``end_turn`` ...), kept for logs; the loop reads ``stop_reason``.
    """

    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: StopReason = "end_turn"
    usage: Usage = field(default_factory=Usage)
    raw_stop_reason: str | None = None
    model: str | None = None

    def as_message(self) -> Message:
        """The assistant message this answer adds to the conversation."""
        return Message("assistant", self.content, self.tool_calls)


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of a streamed answer.

    ``type="text"``: ``text`` is the next part of the answer. ``type="done"``:
    the last chunk of every stream, ``result`` the whole answer (text, tool
    calls, stop reason, usage) as :meth:`Provider.complete` would give it. A
    stream that ends without a ``done`` chunk was cut, and raises instead.
    """

    type: Literal["text", "done"]
    text: str = ""
    result: CompletionResult | None = None
