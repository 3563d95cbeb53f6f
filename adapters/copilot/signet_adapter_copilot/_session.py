"""One look at a session's ``events.jsonl`` for one hook: what the translator's ``look`` does.

The file is the payload's ``transcriptPath`` when it names one, else
``$COPILOT_HOME/session-state/<sessionId>/events.jsonl``, read only inside
the transcript roots. Copilot writes it about 100 ms after the events
happen, so a hook that must see everything before it (``settle``: the end
of a turn, the end of the session) first waits, up to
:data:`SETTLE_SECONDS`, for its own ``hook.start`` line; the others
(sessionStart, userPromptSubmitted: the prompt is waiting) take the file as
it is, and whatever they cannot see yet the next hook finds. Then:

* the compactions written since the session's cursor
  (:func:`._events.compactions`), each claimed
  (:func:`._state.claim_compaction`) before it is returned, and the cursor
  moved past them;
* when asked, the whole conversation, written to the session's
  conversation file, whose path is returned; ``""`` when the file was read
  but holds no conversation (no message the user typed or the main agent
  wrote), or it cannot be kept: there is nothing to send, and Copilot's own
  log is never sent in its place.

Anything that cannot be read gives nothing (``None``): the hook carries on
without it.
Standard library only: the hook process imports this.
"""

from __future__ import annotations

import os
import time

from ._events import (
    allowed,
    compactions,
    conversation,
    lines_backward,
    lines_forward,
    open_events,
    own_line_written,
    whole_lines_end,
)
from ._paths import events_path, transcript_roots
from ._state import claim_compaction, read_cursor, write_conversation, write_cursor

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = ["SETTLE_SECONDS", "look_at_session"]

#: The longest a settling hook waits for Copilot to write its own ``hook.start``.
SETTLE_SECONDS = 1.5
#: How far from the end of the file a hook looks for its own ``hook.start``.
_OWN_LINE_WITHIN = 1 << 20


def _settle(
    path: str, roots: Sequence[str], event: str, payload: Mapping[str, Any], seconds: float
) -> None:
    """Wait until the file holds this hook's ``hook.start`` (or ``seconds`` have passed).

    Copilot makes the session's folder when the session starts, before any hook;
    without it, or outside the roots, there is nothing here to wait for.
    """
    if not allowed(path, roots) or not os.path.isdir(os.path.dirname(path)):
        return
    end = time.monotonic() + seconds
    while True:
        opened = open_events(path, roots)
        if opened is not None:
            fd, size = opened
            try:
                tail = lines_backward(fd, size, floor=max(0, size - _OWN_LINE_WITHIN))
                if own_line_written(tail, event, payload):
                    return
            except OSError:
                pass
            finally:
                os.close(fd)
        if time.monotonic() >= end:
            return
        time.sleep(0.02)


def look_at_session(
    env: Mapping[str, str],
    session: str,
    event: str,
    payload: Mapping[str, Any],
    *,
    with_conversation: bool,
    settle: float = 0.0,
) -> tuple[list[tuple[str, str]], str | None]:
    """The claimed compactions ``(event id, summary)`` and the conversation file's path.

    The path is None when the file could not be read (or no conversation was
    asked for), ``""`` when it was read and there is no conversation to send.
    """
    given = payload.get("transcriptPath")
    path = given if isinstance(given, str) and given else events_path(env, session)
    if path is None:
        return [], None
    roots = transcript_roots(env)
    if settle > 0:
        _settle(path, roots, event, payload, settle)
    opened = open_events(path, roots)
    if opened is None:
        return [], None
    fd, size = opened
    try:
        cursor = read_cursor(env, session)
        if cursor > size:
            cursor = 0  # not the file the cursor was for
        found = compactions(lines_forward(fd, size, start=cursor))
        end = whole_lines_end(fd, size, cursor)
        text = conversation(lines_forward(fd, size)) if with_conversation else b""
    except OSError:
        return [], None
    finally:
        os.close(fd)
    claimed = [item for item in found if claim_compaction(env, session, item[0])]
    if end > cursor:
        write_cursor(env, session, end)
    if not with_conversation:
        return claimed, None
    return claimed, (write_conversation(env, session, text) or "") if text else ""
