"""What a test scripts a fake model server to do: answers, tool calls, faults, cut streams.

The values :class:`~signet_sdk.testing._fake_wire.ModelFake` queues, and the
defaults both fakes fall back on (the reply text, where a cut falls, how
text is streamed). Standard library only, like the servers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CallSpec",
    "Fault",
    "ScriptedCall",
    "ScriptedReply",
    "StreamCut",
    "default_cut",
    "default_reply",
    "fragments",
    "has_tools",
]


#: A tool call as a test writes it: (name, arguments) or (name, arguments, call id).
CallSpec = tuple[str, Mapping[str, Any] | str] | tuple[str, Mapping[str, Any] | str, str]


def has_tools(body: Any) -> bool:
    """Whether a request offers tools (a harness's main turn, as opposed to a summary or title)."""
    return isinstance(body, dict) and bool(body.get("tools"))


def fragments(text: str, parts: int = 3) -> list[str]:
    """``text`` in up to ``parts`` consecutive non-empty pieces, as a model streams it.

    Deterministic, so a stream can be asserted on; an empty text gives no piece.
    """
    if not text:
        return []
    size = -(-len(text) // min(parts, len(text)))
    return [text[i : i + size] for i in range(0, len(text), size)]


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """One tool call of a scripted answer.

    ``arguments`` given as a string go out verbatim where the wire carries
    the model's text (OpenAI's ``arguments``, malformed JSON included); the
    Anthropic fake takes only a JSON object, as the API parses the input.
    """

    name: str
    arguments: Mapping[str, Any] | str
    id: str | None = None

    @property
    def arguments_json(self) -> str:
        args = self.arguments
        return args if isinstance(args, str) else json.dumps(args)


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    """One whole answer: ``stop_reason`` is in the vendor's own words (None: what fits)."""

    text: str = ""
    tool_calls: tuple[ScriptedCall, ...] = ()
    stop_reason: str | None = None
    refusal: str | None = None
    usage: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class StreamCut:
    """Where a streamed answer stops (None: the default place), and the error it ends with."""

    after_events: int | None
    error_status: int | None = None


@dataclass(slots=True)
class Fault:
    """An error answer still to give ``left`` more times."""

    status: int
    message: str | None
    retry_after: str | None
    error_type: str | None
    left: int


def default_reply(body: dict[str, Any]) -> str:
    """The text a fake answers when nothing is queued: a greeting for a turn, or a summary."""
    return "Hello from the fake model." if has_tools(body) else "A fake summary."


def default_cut(kinds: Sequence[str | None]) -> int:
    """Where a cut falls when the test did not say: just after the first argument piece.

    ``kinds`` names what each event carries (``"arguments"``, ``"text"`` or
    None); without an argument piece the cut follows the first text piece,
    and without either it falls halfway.
    """
    for wanted in ("arguments", "text"):
        if wanted in kinds:
            return kinds.index(wanted) + 1
    return len(kinds) // 2
