"""The Kimi hooks' file work, behind the translator: :class:`HookFiles`.

The translator stays pure; everything it needs from disk goes through one
object, which :func:`~._translate.translator_for` builds for the hook
process:

* ``begin``: at SessionStart, once Kimi has the session on disk (its
  ``state.json``; a story or a vector has none, and so starts no sweep and
  leaves no record): end the sessions whose Kimi process has gone (see
  :func:`finished`), then record this process for the session.
* ``look``: one read of the session's ``wire.jsonl``: the compactions no
  hook has reported yet, each claimed before it is returned, and, when
  asked, the conversation written to the session's conversation file.
  ``turn_end`` (Stop) first waits, up to :data:`SETTLE_SECONDS`, for the
  log to end with an answer of the model: Kimi writes its log a moment
  after the events (under load, the whole first turn can still be on its
  way when Stop fires). A log that shows an earlier turn complete is taken
  as it is; the turn still on its way comes with the next look. A
  compaction found this way also holds the session's start context for the
  next prompt again: the compaction dropped it.
  ``settle`` (PostCompact) first waits, up to :data:`SETTLE_SECONDS`, for a
  compaction no hook has claimed: Kimi fires PostCompact as it finishes a
  compaction, and its record may still be on its way to the file.
* ``keep_context`` / ``take_context``: the start context held for the
  first prompt (:mod:`._state`), again only for a session Kimi has on disk.
* ``end``: at SessionEnd, forget this process's record.

Anything that cannot be read gives nothing: the hook carries on without it.
Standard library only: the hook process imports this.
"""

from __future__ import annotations

import os
import time

from ._paths import session_dir, wire_path
from ._process import alive, kimi_process
from ._state import (
    OpenProcess,
    claim,
    claimed,
    close_process,
    hold_start_context_again,
    keep_start_context,
    open_process,
    open_processes,
    take_process,
    take_start_context,
    write_conversation,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["IDLE_SECONDS", "SETTLE_SECONDS", "Ending", "HookFiles", "finished", "look"]

#: The longest PostCompact waits for the compaction's record to reach ``wire.jsonl``.
SETTLE_SECONDS = 1.5
#: A session whose process cannot be checked has ended once its log is this long idle
#: (the daemon's own claim on a session lasts as long).
IDLE_SECONDS = 4 * 3600.0
#: The most sessions one SessionStart ends (the rest wait for the next one).
MOST_ENDINGS = 8


class Ending:
    """A session whose process has gone: what its late session-end carries."""

    __slots__ = ("cwd", "session", "summaries", "transcript")

    def __init__(
        self, session: str, cwd: str, summaries: list[str], transcript: str | None
    ) -> None:
        self.session = session
        self.cwd = cwd
        #: Compaction summaries no hook had reported, claimed for this end.
        self.summaries = summaries
        self.transcript = transcript


def look(
    env: Mapping[str, str],
    session: str,
    folder: str | None,
    *,
    conversation: bool,
    settle: float = 0.0,
    answer: float = 0.0,
) -> tuple[list[str], str | None]:
    """The compaction summaries this hook claimed, and (``conversation``) the conversation file.

    ``settle``: wait up to that many seconds for a compaction no hook has
    claimed; ``answer``: for the conversation to end with the model's answer.
    """
    if folder is None:
        return [], None
    from ._wire import answered, compactions, read_wire, turns

    path = wire_path(folder)
    end = time.monotonic() + max(settle, answer)
    while True:
        data = read_wire(path)
        if data is None:
            return [], None
        lines = data.splitlines()
        found = compactions(lines)
        fresh = [(k, s) for k, s in found if not claimed(env, session, k)]
        said = turns(lines) if conversation else []
        done = answered(said) if answer else (bool(fresh) or not settle)
        if done or time.monotonic() >= end:
            break
        time.sleep(0.05)
    summaries = [summary for key, summary in fresh if claim(env, session, key)]
    if summaries:
        hold_start_context_again(env, session)  # the compaction dropped it from the context
    transcript = None
    if conversation:
        from ._wire import conversation as talk

        transcript = write_conversation(env, session, talk(said))
    return summaries, transcript


def _gone(record: OpenProcess) -> bool:
    """Whether the recorded process has ended (unknown: its log has long been idle)."""
    state = None if record.pid is None else alive(record.pid, record.started)
    if state is not None:
        return not state
    try:
        idle = time.time() - os.stat(wire_path(record.folder)).st_mtime
    except OSError:
        idle = time.time() - record.since
    return idle >= IDLE_SECONDS


def finished(env: Mapping[str, str], current: tuple[int, int | None] | None) -> list[Ending]:
    """The sessions whose recorded Kimi process has gone, each taken by this hook to end it.

    ``current`` is this hook's own Kimi process, which is never among them.
    Several gone processes of one session make one ending.
    """
    taken: dict[str, OpenProcess] = {}
    for record in open_processes(env):
        if current is not None and (record.pid, record.started) == current:
            continue
        if record.session not in taken and len(taken) >= MOST_ENDINGS:
            break
        if not _gone(record) or not take_process(env, record):
            continue
        taken.setdefault(record.session, record)
    endings = []
    for session, record in taken.items():
        folder = record.folder if os.path.isdir(record.folder) else None
        summaries, transcript = look(env, session, folder, conversation=True)
        endings.append(Ending(session, record.cwd, summaries, transcript))
    return endings


class HookFiles:
    """The translator's access to disk, for one hook process under ``env``."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self._folders: dict[str, str | None] = {}

    def folder(self, session: str, cwd: str | None) -> str | None:
        """Kimi's folder for ``session``, looked up once per process."""
        if session not in self._folders:
            self._folders[session] = session_dir(self.env, session, cwd)
        return self._folders[session]

    def begin(self, session: str, cwd: str | None) -> list[Ending]:
        """At SessionStart: the sessions to end late, then this process recorded."""
        folder = self.folder(session, cwd)
        if folder is None:
            return []  # not a session Kimi keeps: no sweep, no record
        current = kimi_process()
        endings = finished(self.env, current)
        pid, started = current if current is not None else (None, None)
        record = OpenProcess(session, cwd or "", folder, pid, started, time.time())
        open_process(self.env, record)
        return endings

    def look(
        self,
        session: str,
        cwd: str | None,
        *,
        conversation: bool,
        settle: bool = False,
        turn_end: bool = False,
    ) -> tuple[list[str], str | None]:
        """Unreported compactions (claimed) and, when asked, the conversation file.

        ``settle`` (PostCompact): wait for a compaction's record; ``turn_end``
        (Stop): wait for the log to end with the model's answer.
        """
        return look(
            self.env,
            session,
            self.folder(session, cwd),
            conversation=conversation,
            settle=SETTLE_SECONDS if settle else 0.0,
            answer=SETTLE_SECONDS if turn_end else 0.0,
        )

    def end(self, session: str) -> None:
        """At SessionEnd: this process no longer runs ``session``."""
        current = kimi_process()
        close_process(self.env, session, None if current is None else current[0])

    def keep_context(self, session: str, text: str) -> None:
        """Hold ``text`` for the first prompt, for a session Kimi keeps (not a story's)."""
        if self.folder(session, None) is not None:
            keep_start_context(self.env, session, text)

    def take_context(self, session: str) -> str | None:
        return take_start_context(self.env, session)
