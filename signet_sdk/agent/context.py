"""Where memory goes in a model request, so the prompt cache stays valid.

The system prompt is the cached prefix: the agent's instructions and the
daemon's ``stableSystemPrompt``, nothing that changes during a session (no
clock, no per-turn recall). Everything that changes (the session's opening
context, each turn's recall, the before-generation tools' results) goes in
the newest user message only, inside a fence, so request N+1 is request N
plus new messages, byte for byte.

A fence is ``<signet-memory kind="...">`` ... ``</signet-memory>``; text
inside that would close it early is escaped. The model's answer is scrubbed
of fences (a model may echo them) before it reaches the user or the
transcript.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from signet_sdk.agent.types import ToolResult

__all__ = ["FENCE_TAG", "StreamScrubber", "compose_turn", "fence", "scrub", "system_prompt"]

FENCE_TAG = "signet-memory"
_CLOSE = f"</{FENCE_TAG}"
_ESCAPED_CLOSE = f"<\\/{FENCE_TAG}"
_FENCE_RE = re.compile(rf"<{FENCE_TAG}\b[^>]*>.*?</{FENCE_TAG}>\s*", re.DOTALL)


def fence(kind: str, text: str) -> str:
    """``text`` inside a memory fence labelled ``kind`` (a closing tag inside is escaped)."""
    body = text.strip().replace(_CLOSE, _ESCAPED_CLOSE)
    return f'<{FENCE_TAG} kind="{kind}">\n{body}\n</{FENCE_TAG}>'


def scrub(text: str) -> str:
    """``text`` without memory fences: what the user and the transcript get."""
    if FENCE_TAG not in text:
        return text
    return _FENCE_RE.sub("", text).strip()


class StreamScrubber:
    """:func:`scrub` for text that arrives in pieces: fences never reach the screen.

    Text that could be the start of a fence is held back until the next
    piece shows whether it is one; everything inside a fence is dropped.
    ``end()`` gives what was held back when the stream is over.
    """

    _OPEN = f"<{FENCE_TAG}"
    _CLOSE = f"</{FENCE_TAG}>"

    def __init__(self) -> None:
        self._held = ""
        self._inside = False

    def feed(self, text: str) -> str:
        held = self._held + text
        out: list[str] = []
        while held:
            if self._inside:
                end = held.find(self._CLOSE)
                if end < 0:  # keep only what could be the start of the closing tag
                    held = held[-(len(self._CLOSE) - 1) :]
                    break
                held = held[end + len(self._CLOSE) :].lstrip()
                self._inside = False
                continue
            start = held.find(self._OPEN)
            if start >= 0:
                out.append(held[:start])
                held = held[start:]
                self._inside = True
                continue
            keep = _partial_prefix(held, self._OPEN)
            out.append(held[: len(held) - keep])
            held = held[len(held) - keep :]
            break
        self._held = held
        return "".join(out)

    def end(self) -> str:
        """What was held back, unless it was inside a fence that never closed."""
        rest, self._held = ("" if self._inside else self._held), ""
        return rest


def _partial_prefix(text: str, tag: str) -> int:
    """The length of the longest end of ``text`` that begins ``tag``."""
    for size in range(min(len(text), len(tag) - 1), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


def system_prompt(instructions: str, stable: str | None) -> str:
    """The cached prefix: instructions, then the daemon's stable system prompt if it sent one."""
    parts = [p.strip() for p in (instructions, stable or "") if p and p.strip()]
    return "\n\n".join(parts)


def _research_text(results: Sequence[ToolResult]) -> str:
    lines = []
    for result in results:
        lines.append(f"{result.name}: {result.content}")
    return "\n".join(lines)


def compose_turn(
    text: str,
    *,
    session_context: str = "",
    turn_context: str = "",
    research: Sequence[ToolResult] = (),
    summary: str = "",
) -> str:
    """The user message of one turn: fenced context first, then the user's words.

    ``session_context`` is the session start's per-session context (given on
    the first turn only), ``summary`` a compaction summary or a resumed
    session's earlier conversation, ``turn_context`` the prompt-submit recall,
    ``research`` the before-generation tools' results. Empty parts are left
    out, so a turn with no memory is the user's text alone.
    """
    parts = []
    if summary.strip():
        parts.append(fence("summary", summary))
    if session_context.strip():
        parts.append(fence("session", session_context))
    if turn_context.strip():
        parts.append(fence("turn", turn_context))
    if research:
        parts.append(fence("research", _research_text(research)))
    parts.append(text)
    return "\n\n".join(parts)


def transcript_line(role: str, text: str) -> str:
    """One line of the session's JSONL transcript (what the daemon reduces to turns)."""
    return json.dumps({"role": role, "content": text}, ensure_ascii=False) + "\n"
