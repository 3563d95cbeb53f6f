"""Qwen Code sessions started and not yet ended: how a headless session still gets its end.

Qwen Code fires SessionEnd when its interactive UI closes a session
(``/quit``, ``/clear``, logging out) but not when a headless ``qwen -p`` run
finishes (0.24.4, measured), and not for a session whose terminal was
killed. The daemon would then never hear that those sessions ended. So:

* SessionStart (and every Stop, in case the hooks were installed mid-session)
  leaves a note for its session: one small JSON file per session under
  ``<state dir>/qwen-code-sessions/`` with the session id, the project, the
  session's record file (``transcript_path``) and the Qwen Code process the
  session runs in.
* SessionEnd removes its session's note: that end was sent by its own hook.
* Every SessionStart then looks at the other notes. A note whose process is
  gone belongs to a session that ended without SessionEnd; it is claimed
  (renamed, so two Qwen Code processes starting at once end it once) and
  its session-end is sent, with the record file Qwen Code left behind.
  A note whose process still runs (another terminal, ``qwen serve``) stays.
  The session that is starting is never ended, so ``--resume`` and
  ``--continue`` carry the same session on.

The process is ``QWEN_CODE_LAUNCHER_PID`` (Qwen Code's launcher, which
lives exactly as long as the session's process), else the hook's parent
(Qwen Code runs the hook through ``bash -c``, which runs a single command in
its own place). Where ``/proc`` says when a process started, that is noted
too, so a process number the system handed out again does not pass for the
session's process.

Nothing here raises: a note that cannot be written or read costs only that
session's deferred end, never the hook. Standard library only: the hook
process imports this.
"""

from __future__ import annotations

import os
import time

from signet_sdk.plugin import json_dumps, json_loads, private_dir, state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    #: One session's note: ``session``, ``project``, ``transcript``, ``pid``, ``started``.
    Note = dict[str, Any]

__all__ = ["SessionNotes", "notes_for", "process_started"]

_FOLDER = "qwen-code-sessions"
_SUFFIX = ".json"
#: A note left this long by a process that still runs is taken to be stale.
_KEEP_SECONDS = 30 * 24 * 3600


def process_started(pid: int) -> str:
    """When process ``pid`` started, in clock ticks since boot (``/proc``), or ``""``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("ascii", errors="replace")
    except OSError:
        return ""
    # The command name (field 2) is in parentheses and may hold spaces: split after it.
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else ""


def _running(pid: int, started: str) -> bool:
    """Whether process ``pid`` runs and is the one that started at ``started`` (if known)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass  # it exists, under another user
    if not started:
        return True
    now = process_started(pid)
    return not now or now == started


def _file_name(session: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session)[:120]
    return safe.lstrip(".") + _SUFFIX


class SessionNotes:
    """The notes in ``folder``, written for the Qwen Code process ``pid`` (started ``started``)."""

    def __init__(self, folder: str, pid: int, started: str = "") -> None:
        self.folder = folder
        self.pid = pid
        self.started = started

    def _path(self, session: str) -> str:
        return os.path.join(self.folder, _file_name(session))

    def _read(self, path: str) -> Note | None:
        try:
            with open(path, "rb") as fh:
                data = json_loads(fh.read())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and isinstance(data.get("session"), str) else None

    def note(self, session: str, project: str | None, transcript: str | None) -> None:
        """Say that ``session`` runs in this process now (written only when that changed)."""
        wanted: Note = {
            "session": session,
            "project": project,
            "transcript": transcript,
            "pid": self.pid,
            "started": self.started,
        }
        path = self._path(session)
        current = self._read(path)
        if current is not None and {k: current.get(k) for k in wanted} == wanted:
            return
        wanted["noted"] = int(time.time())
        try:
            private_dir(self.folder)
            temporary = f"{path}.{os.getpid()}.tmp"
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
            fd = os.open(temporary, flags, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(json_dumps(wanted).encode("utf-8"))
            os.replace(temporary, path)
        except OSError:
            return

    def drop(self, session: str) -> None:
        """Forget ``session``: its own SessionEnd reported its end."""
        try:
            os.unlink(self._path(session))
        except OSError:
            return

    def ended(self, current: str) -> list[Note]:
        """Claim the notes of sessions other than ``current`` whose process is gone.

        Each note returned is this process's alone to report: it was renamed
        away before being read, and removed after.
        """
        try:
            names = os.listdir(self.folder)
        except OSError:
            return []
        mine = _file_name(current)
        found: list[Note] = []
        for name in sorted(names):
            if not name.endswith(_SUFFIX) or name == mine:
                continue
            path = os.path.join(self.folder, name)
            note = self._read(path)
            if note is not None and self._alive(note, path):
                continue
            claimed = f"{path}.{os.getpid()}.ending"
            try:
                os.rename(path, claimed)
            except OSError:
                continue  # another process claimed it first
            taken = self._read(claimed)
            try:  # noqa: SIM105 (contextlib stays off the hook path)
                os.unlink(claimed)
            except OSError:
                pass
            if taken is not None and taken.get("session") != current:
                found.append(taken)
        return found

    def _alive(self, note: Mapping[str, Any], path: str) -> bool:
        pid, started = note.get("pid"), note.get("started")
        if isinstance(pid, bool) or not isinstance(pid, int):
            return False
        if not _running(pid, started if isinstance(started, str) else ""):
            return False
        try:
            age = time.time() - os.stat(path).st_mtime
        except OSError:
            return False
        return age < _KEEP_SECONDS


def notes_for(env: Mapping[str, str]) -> SessionNotes | None:
    """The notes of the Qwen Code process a hook runs for, or None when there is no folder.

    Only for hooks Qwen Code runs (``translator_for`` checks): a hook run any
    other way must never end a session it knows nothing about.
    """
    launcher = env.get("QWEN_CODE_LAUNCHER_PID", "").strip()
    pid = int(launcher) if launcher.isdigit() else os.getppid()
    try:
        folder = os.path.join(private_dir(state_dir(env)), _FOLDER)
    except OSError:
        return None
    return SessionNotes(folder, pid, process_started(pid))
