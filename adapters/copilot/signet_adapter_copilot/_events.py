"""What a Copilot CLI session's ``events.jsonl`` tells a hook.

Copilot CLI appends every session event to ``events.jsonl``, one JSON
object per line (``{"type": ..., "data": {...}, "id": ..., "timestamp":
..., "parentId": ...}``, with a top-level ``agentId`` on a subagent's
events). It logs a ``hook.start`` line (with the hook's input) before it
runs a hook, but it writes the file a moment later: 1.0.102 flushes once
the session has been quiet for about 100 ms, so a hook that starts right
after a turn may find the file without that turn, or without the file.
Three things are read from it:

* **Whether this hook's own ``hook.start`` is written yet**
  (:func:`own_line_written`): once it is, so is everything before it.
* **Compactions** (:func:`compactions`): Copilot runs no hook after a
  compaction; its summary is a ``session.compaction_complete`` line
  (``data.summaryContent``). Only the main agent's successful ones count.
* **The conversation** (:func:`conversation`): the user's and the main
  agent's messages (``user.message`` without a ``source``,
  ``assistant.message`` with text), in order, as ``{"role": ..., "content":
  ...}`` lines: the JSON-lines conversation the daemon reduces to turns.
  The rest of the file (system prompts, tool calls, model snapshots,
  subagents' work) is left out.

The file is read only inside the adapter's transcript roots, never through
a symlink, and only up to its size when it was opened (Copilot keeps
appending; a last line without its newline is not read). Standard library
only: the hook process imports this.
"""

from __future__ import annotations

import os
import stat

from signet_sdk.plugin import json_dumps, json_loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from typing import Any

__all__ = [
    "allowed",
    "compactions",
    "conversation",
    "lines_backward",
    "lines_forward",
    "open_events",
    "own_line_written",
    "whole_lines_end",
]

#: Bytes read per step; a whole line is rebuilt across steps.
_CHUNK = 1 << 18
_HOOK_START = b'"hook.start"'
_COMPACTED = b'"session.compaction_complete"'
_MESSAGES = (b'"user.message"', b'"assistant.message"')


def allowed(path: str, roots: Sequence[str]) -> bool:
    """Whether ``path`` is absolute and resolves inside one of ``roots``."""
    if not os.path.isabs(path) or "\x00" in path:
        return False
    try:
        real = os.path.realpath(path)
    except ValueError:  # a name no file can have (a lone surrogate): not inside any root
        return False
    for root in roots:
        base = os.path.realpath(root)
        if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def open_events(path: str, roots: Sequence[str]) -> tuple[int, int] | None:
    """``(fd, size)`` of the events file at ``path``, or None when it may not or cannot be read.

    The path must be absolute, resolve inside ``roots``, not be a symlink
    and be a regular file. The caller closes the descriptor.
    """
    if not allowed(path, roots):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return None
    return fd, st.st_size


def lines_backward(fd: int, size: int, chunk: int = _CHUNK, floor: int = 0) -> Iterator[bytes]:
    """The file's lines, last first, down to offset ``floor`` (the last may be unfinished)."""
    end, carry = size, b""
    while end > floor:
        start = max(floor, end - chunk)
        data = os.pread(fd, end - start, start) + carry
        parts = data.split(b"\n")
        carry = parts.pop(0) if start > floor else b""
        for line in reversed(parts):
            if line:
                yield line
        end = start
    if carry:
        yield carry


def lines_forward(fd: int, size: int, chunk: int = _CHUNK, start: int = 0) -> Iterator[bytes]:
    """The file's whole lines from ``start`` on, first first, up to ``size`` bytes.

    A last line without its newline (one Copilot is still writing) is left out.
    """
    offset, carry = start, b""
    while offset < size:
        data = os.pread(fd, min(chunk, size - offset), offset)
        if not data:
            break
        offset += len(data)
        parts = (carry + data).split(b"\n")
        carry = parts.pop()
        for line in parts:
            if line:
                yield line


def whole_lines_end(fd: int, size: int, start: int = 0) -> int:
    """The offset just after the last newline between ``start`` and ``size`` (else ``start``)."""
    end = size
    while end > start:
        begin = max(start, end - _CHUNK)
        data = os.pread(fd, end - begin, begin)
        cut = data.rfind(b"\n")
        if cut >= 0:
            return begin + cut + 1
        end = begin
    return start


def _record(line: bytes, kind: str) -> dict[str, Any] | None:
    """The line as an event of type ``kind``, or None (another type, or not whole JSON)."""
    try:
        record = json_loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("type") != kind:
        return None
    return record if isinstance(record.get("data"), dict) else None


def own_line_written(lines: Iterable[bytes], event: str, payload: Mapping[str, Any]) -> bool:
    """Whether the file (``lines``, last first) holds this hook's own ``hook.start`` yet.

    Copilot logs that line before it runs the hook, but writes the file a
    moment later; once it is there, so is everything the session did before
    the hook (the turn's messages, a compaction's summary). It is matched by
    hook type and by the input's ``timestamp`` and ``sessionId`` (the whole
    input when the payload has no timestamp).
    """
    for line in lines:
        if _HOOK_START not in line:
            continue
        record = _record(line, "hook.start")
        if record is None or "agentId" in record:
            continue
        data = record["data"]
        if data.get("hookType") == event and _is_own(data.get("input"), payload):
            return True
    return False


def _is_own(given: Any, payload: Mapping[str, Any]) -> bool:
    if not isinstance(given, dict):
        return False
    stamp = payload.get("timestamp")
    if isinstance(stamp, int) and not isinstance(stamp, bool):
        same = given.get("timestamp") == stamp
        return same and given.get("sessionId") == payload.get("sessionId")
    return given == dict(payload)


def _summary(record: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(event id, summary)`` of the main agent's successful compaction, else None."""
    if "agentId" in record:
        return None  # a subagent compacted its own context
    data = record["data"]
    summary, event_id = data.get("summaryContent"), record.get("id")
    if data.get("success") is False or not isinstance(event_id, str) or not event_id:
        return None
    if not isinstance(summary, str) or not summary.strip():
        return None
    return event_id, summary


def compactions(lines: Iterable[bytes]) -> list[tuple[str, str]]:
    """The main agent's compactions in ``lines``, in order, as ``(event id, summary)``."""
    found = []
    for line in lines:
        if _COMPACTED not in line:
            continue
        record = _record(line, "session.compaction_complete")
        summary = None if record is None else _summary(record)
        if summary is not None:
            found.append(summary)
    return found


_ROLES = {"user.message": "user", "assistant.message": "assistant"}


def _message(line: bytes) -> tuple[str, str] | None:
    """``(role, text)`` of a message the user typed or the main agent wrote, else None."""
    try:
        record = json_loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or "agentId" in record:
        return None  # not an event, or a subagent's
    kind, data = record.get("type"), record.get("data")
    role = _ROLES.get(kind) if isinstance(kind, str) else None
    if role is None or not isinstance(data, dict):
        return None
    if role == "user" and (data.get("source") or data.get("isAutopilotContinuation")):
        return None  # injected (a skill, another agent, autopilot), not typed by the user
    content = data.get("content")
    return (role, content) if isinstance(content, str) and content.strip() else None


def conversation(lines: Iterable[bytes]) -> bytes:
    """The main conversation as JSON lines ``{"role": ..., "content": ...}``; empty when none."""
    out: list[str] = []
    for line in lines:
        if not any(marker in line for marker in _MESSAGES):
            continue
        message = _message(line)
        if message is not None:
            out.append(json_dumps({"role": message[0], "content": message[1]}))
    return ("\n".join(out) + "\n").encode("utf-8") if out else b""
