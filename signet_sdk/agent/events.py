"""What a session tells its caller: events while a turn runs, the output once it ends.

A channel (the terminal, the HTTP server, a Python caller iterating
``chat.stream``) shows :class:`AgentEvent` values as they come; ``chat.send``
returns the turn's :class:`AgentOutput`. Events carry plain data so they
serialize as one JSON object each (``signet-sdk chat --json``, server-sent
events) with :meth:`AgentEvent.as_dict`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from signet_sdk.agent.types import StopReason, ToolCall, ToolResult, Usage

__all__ = ["AgentEvent", "AgentOutput", "Compaction", "EventType", "Limits"]

#: ``text``: a piece of the answer. ``tool_call`` / ``tool_result``: a tool ran.
#: ``notice``: one line about memory (daemon down, a read skipped, a write
#: queued) that never stops the chat. ``compacted``: the history was replaced
#: by a summary. ``error``: the turn failed (the session goes on).
#: ``done``: the turn's end, with its output.
EventType = Literal["text", "tool_call", "tool_result", "notice", "compacted", "error", "done"]


@dataclass(frozen=True, slots=True)
class AgentOutput:
    """One turn's result: the answer's text and what it took.

    ``content`` is the final answer (the text of the last model call, with
    any memory fences scrubbed); ``tool_calls`` and ``tool_results`` every
    call made during the turn, in order; ``model_calls`` how many times the
    model was asked; ``usage`` the turn's tokens; ``notices`` the memory
    lines the turn produced.
    """

    content: str
    stop_reason: StopReason | Literal["max_model_calls", "cancelled", "error"] = "end_turn"
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    model_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    notices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AgentEvent:
    """One thing that happened during a turn (see :data:`EventType`)."""

    type: EventType
    text: str = ""
    tool_call: ToolCall | None = None
    tool_result: ToolResult | None = None
    output: AgentOutput | None = None

    def as_dict(self) -> dict[str, Any]:
        """The event as JSON-ready data: ``{"type": ..., ...}`` with only what it carries."""
        out: dict[str, Any] = {"type": self.type}
        if self.text:
            out["text"] = self.text
        if self.tool_call is not None:
            call = self.tool_call
            out["tool_call"] = {"id": call.id, "name": call.name, "arguments": dict(call.arguments)}
        if self.tool_result is not None:
            res = self.tool_result
            out["tool_result"] = {
                "id": res.call_id,
                "name": res.name,
                "content": res.content,
                "is_error": res.is_error,
            }
        if self.output is not None:
            o = self.output
            out["output"] = {
                "content": o.content,
                "stop_reason": o.stop_reason,
                "model_calls": o.model_calls,
                "tool_calls": [c.name for c in o.tool_calls],
                "usage": o.usage.as_dict(),
                "notices": list(o.notices),
            }
        return out


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one turn.

    ``max_model_calls``: model calls per turn (a tool loop that goes on
    longer ends the turn with ``stop_reason="max_model_calls"``).
    ``research_deadline``: seconds the before-generation tools may take in
    all. ``max_tokens``: the answer's token cap per model call.
    """

    max_model_calls: int = 10
    research_deadline: float = 2.0
    max_tokens: int = 4096

    def __post_init__(self) -> None:
        if self.max_model_calls < 1:
            raise ValueError("max_model_calls: must be at least 1")
        if self.research_deadline <= 0:
            raise ValueError("research_deadline: must be positive")
        if self.max_tokens < 1:
            raise ValueError("max_tokens: must be at least 1")


@dataclass(frozen=True, slots=True)
class Compaction:
    """When the history is summarised: past ``at_tokens`` prompt tokens, keeping ``keep_turns``.

    The count is the prompt size the provider reported for the turn's last
    model call (fresh, cached and cache-written tokens together). None never
    compacts on its own; ``chat.compact()`` still does.
    """

    at_tokens: int | None = 100_000
    keep_turns: int = 4

    def __post_init__(self) -> None:
        if self.at_tokens is not None and self.at_tokens < 1:
            raise ValueError("at_tokens: must be positive or None")
        if self.keep_turns < 0:
            raise ValueError("keep_turns: must not be negative")
