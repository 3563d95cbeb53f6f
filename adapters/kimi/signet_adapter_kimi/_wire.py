"""What a session's ``wire.jsonl`` says: its conversation and its compactions.

Kimi Code 2.1 records everything its main agent does, one JSON object a
line, in ``agents/main/wire.jsonl`` (append-only). Three kinds of record
matter here:

* ``{"type": "turn.prompt", "input": [{"type": "text", "text": ...}],
  "origin": {"kind": "user"}}``: what the user typed, once per turn. The
  context a UserPromptSubmit hook added is a separate record (origin
  ``hook_result``) and is left out, so memory never comes back as
  conversation.
* ``{"type": "agent.message.appended", "message": {"message": {"role":
  "assistant", "content": [...]}, "meta": {"source": "llm"}}}``: each
  answer of the model; its text parts are the assistant's words.
* ``{"type": "context.apply_compaction", "summary": ..., "time": ...}``:
  a compaction, with the summary the model wrote (``summary``; the
  ``contextSummary`` beside it adds Kimi's own preamble and a pointer back
  into the log). ``time`` (milliseconds) tells compactions apart.

Lines are picked by a byte search first and parsed only when they may be
one of these, so a long log costs little. Standard library only: the hook
process imports this.
"""

from __future__ import annotations

import os

from signet_sdk.plugin import json_dumps, json_loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = ["answered", "compactions", "conversation", "read_wire", "turns"]

_PROMPT = b'"turn.prompt"'
_MESSAGE = b'"agent.message.appended"'
_COMPACTION = b'"context.apply_compaction"'
_ASSISTANT = b'"assistant"'
#: The most of a log read at once: a longer one is read from the end.
READ_LIMIT = 64 * 1024 * 1024


def read_wire(path: str) -> bytes | None:
    """The log's whole lines (its last ``READ_LIMIT`` bytes at most), or None.

    A symlink, anything but a regular file, or a file that cannot be read
    gives None: the hook carries on without it.
    """
    import stat

    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        start = max(0, st.st_size - READ_LIMIT)
        os.lseek(fd, start, os.SEEK_SET)
        chunks = []
        left = st.st_size - start
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if start:
        cut = data.find(b"\n")
        data = data[cut + 1 :] if cut >= 0 else b""
    end = data.rfind(b"\n")
    return data[: end + 1]  # a line still being written is left for the next look


def _record(line: bytes) -> dict[str, Any] | None:
    try:
        item = json_loads(line)
    except ValueError:
        return None
    return item if isinstance(item, dict) else None


def _text(parts: Any) -> str:
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return ""
    texts = [p.get("text") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
    return "\n".join(t for t in texts if isinstance(t, str) and t)


def _turn(item: dict[str, Any]) -> tuple[str, str] | None:
    """``(role, text)`` of a user prompt or an assistant answer; None for anything else."""
    kind = item.get("type")
    if kind == "turn.prompt":
        origin = item.get("origin")
        if not isinstance(origin, dict) or origin.get("kind") != "user":
            return None
        text = _text(item.get("input"))
        return ("user", text) if text.strip() else None
    if kind == "agent.message.appended":
        outer = item.get("message")
        inner = outer.get("message") if isinstance(outer, dict) else None
        meta = outer.get("meta") if isinstance(outer, dict) else None
        if not isinstance(inner, dict) or inner.get("role") != "assistant":
            return None
        if isinstance(meta, dict) and meta.get("source") not in (None, "llm"):
            return None
        text = _text(inner.get("content"))
        return ("assistant", text) if text.strip() else None
    return None


def turns(lines: Iterable[bytes]) -> list[tuple[str, str]]:
    """The conversation as ``(role, text)``: the user's prompts and the model's answers."""
    out: list[tuple[str, str]] = []
    for line in lines:
        if _PROMPT not in line and (_MESSAGE not in line or _ASSISTANT not in line):
            continue  # (the user's own messages are echoed as events too: taken from prompts)
        item = _record(line)
        turn = None if item is None else _turn(item)
        if turn is not None:
            out.append(turn)
    return out


def conversation(said: Iterable[tuple[str, str]]) -> bytes:
    """``turns`` as JSON lines ``{"role": ..., "content": ...}``; empty when none."""
    out = [json_dumps({"role": role, "content": text}) for role, text in said]
    return ("\n".join(out) + "\n").encode("utf-8") if out else b""


def answered(said: list[tuple[str, str]]) -> bool:
    """Whether the conversation ends with an answer of the model (the turn a Stop ends)."""
    return bool(said) and said[-1][0] == "assistant"


def compactions(lines: Iterable[bytes]) -> list[tuple[str, str]]:
    """Every compaction of the main agent, oldest first: ``(its key, the summary)``."""
    found: list[tuple[str, str]] = []
    for line in lines:
        if _COMPACTION not in line:
            continue
        item = _record(line)
        if item is None or item.get("type") != "context.apply_compaction":
            continue
        if item.get("agentId", "main") != "main":
            continue
        summary = item.get("summary")
        if not isinstance(summary, str) or not summary.strip():
            continue
        stamp = item.get("time")
        key = str(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else ""
        found.append((key or f"n{len(found)}", summary.strip()))
    return found
