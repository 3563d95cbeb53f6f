"""What the Kimi hooks keep under the SDK's state folder (``<state dir>/kimi``).

* **Start context** (``context/<session>``): what the daemon answered a
  SessionStart, until the session's next UserPromptSubmit takes it. Kimi
  hands only UserPromptSubmit's output to the model, so the session's start
  context reaches it with the first prompt. Taking is a rename, so two
  hooks never both deliver it; a newer SessionStart replaces what an older
  one left. A copy (``context/<session>.start``) stays: after a compaction,
  which drops it from the model's context with everything else but the
  user's own messages, it is held again for the next prompt.
* **Open processes** (``open/<session>--<pid>.json``): each Kimi process a
  session runs in, recorded by its SessionStart (the session, its folder,
  the process id and start time) and removed by its SessionEnd or once the
  session's end has been sent for it. Whoever takes a marker (a rename,
  again) sends that end; nobody else does.
* **Claims** (``claims/<session>--<key>``): a compaction's summary is
  reported by whichever hook first finds it in ``wire.jsonl``
  (PostCompact, Stop, SessionEnd, a late end); an empty file created with
  ``O_EXCL`` claims it. A claim that cannot be made (an unwritable state
  folder) lets the summary go: a duplicate beats a loss.
* **Conversations** (``transcripts/<session>.jsonl``): the conversation
  derived from ``wire.jsonl``, the transcript checkpoints and session ends
  hand to the daemon. It only grows as the session goes on, so the daemon's
  byte cursor sees each turn once.

Folders are 0700 and files 0600. Claims are swept after 180 days, start
contexts, conversations and open-process records after 30 days, each when
a new file is made beside them. Standard library only: the hook
process imports this.
"""

from __future__ import annotations

import os

from signet_sdk.plugin import StateFolder, json_dumps, json_loads

from ._paths import KIMI_STATE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "OpenProcess",
    "claim",
    "claimed",
    "close_process",
    "hold_start_context_again",
    "keep_start_context",
    "open_process",
    "open_processes",
    "take_process",
    "take_start_context",
    "write_conversation",
]

#: Days each folder keeps what was last changed before then.
_KEEP_DAYS = {"context": 30, "claims": 180, "transcripts": 30, "open": 30}


def _folder(env: Mapping[str, str], name: str) -> StateFolder:
    return StateFolder(env, KIMI_STATE, name, keep_days=_KEEP_DAYS[name])


def _unlink(path: str) -> None:
    try:  # noqa: SIM105 (no contextlib on the hook path)
        os.unlink(path)
    except OSError:
        pass


# -- the start context ---------------------------------------------------------


def keep_start_context(env: Mapping[str, str], session: str, text: str) -> None:
    """Hold ``text`` for the session's next prompt, and keep a copy (a failure only loses them)."""
    folder, name = _folder(env, "context"), StateFolder.name(session)
    try:
        folder.replace(name + ".start", text.encode("utf-8"))
        folder.replace(name, text.encode("utf-8"))
    except OSError:
        return
    folder.sweep()


def hold_start_context_again(env: Mapping[str, str], session: str) -> None:
    """Hold the session's start context for its next prompt again (after a compaction)."""
    folder, name = _folder(env, "context"), StateFolder.name(session)
    data = folder.read(name + ".start")
    if data:
        try:
            folder.replace(name, data)
        except OSError:
            return


def take_start_context(env: Mapping[str, str], session: str) -> str | None:
    """The held start context, removed as it is read; None when there is none."""
    folder, name = _folder(env, "context"), StateFolder.name(session)
    taken = f"{name}.taken-{os.getpid()}"
    try:
        os.rename(os.path.join(folder.path, name), os.path.join(folder.path, taken))
    except OSError:  # only one hook gets it
        return None
    data = folder.read(taken)
    _unlink(os.path.join(folder.path, taken))
    return None if data is None else data.decode("utf-8", "replace")


# -- compaction claims -----------------------------------------------------------


def claim(env: Mapping[str, str], session: str, key: str) -> bool:
    """True when this process is the first to report the compaction ``key`` of ``session``."""
    return _folder(env, "claims").claim(session, key)


def claimed(env: Mapping[str, str], session: str, key: str) -> bool:
    """Whether some hook has claimed the compaction ``key`` of ``session`` already."""
    return _folder(env, "claims").claimed(session, key)


# -- conversations ---------------------------------------------------------------


def write_conversation(env: Mapping[str, str], session: str, data: bytes) -> str | None:
    """Keep ``data`` as the session's conversation file; its path, or None when it cannot be."""
    return _folder(env, "transcripts").keep(session, data)


# -- open processes --------------------------------------------------------------


class OpenProcess:
    """One Kimi process of a session, as its SessionStart recorded it."""

    __slots__ = ("cwd", "folder", "name", "pid", "session", "since", "started")

    def __init__(
        self,
        session: str,
        cwd: str,
        folder: str,
        pid: int | None,
        started: int | None,
        since: float,
        name: str = "",
    ) -> None:
        self.session = session
        self.cwd = cwd
        #: Kimi's folder for the session (``state.json``, ``agents/main/wire.jsonl``).
        self.folder = folder
        self.pid = pid
        self.started = started
        self.since = since
        #: The record's file name in ``open/``.
        self.name = name

    def __repr__(self) -> str:
        return f"OpenProcess({self.session!r}, pid={self.pid!r})"


def _marker_name(session: str, pid: int | None) -> str:
    return f"{StateFolder.name(session)}--{pid if pid is not None else 'unknown'}.json"


def open_process(env: Mapping[str, str], record: OpenProcess) -> None:
    """Record that ``record.session`` runs in ``record.pid`` (a failure only loses the record)."""
    body = {
        "session": record.session,
        "cwd": record.cwd,
        "folder": record.folder,
        "pid": record.pid,
        "started": record.started,
        "since": record.since,
    }
    folder = _folder(env, "open")
    try:
        folder.replace(_marker_name(record.session, record.pid), json_dumps(body).encode("utf-8"))
    except OSError:
        return
    folder.sweep()


def close_process(env: Mapping[str, str], session: str, pid: int | None) -> None:
    """Forget the process of ``session`` (its end is being sent)."""
    _unlink(os.path.join(_folder(env, "open").path, _marker_name(session, pid)))


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def open_processes(env: Mapping[str, str]) -> list[OpenProcess]:
    """Every recorded process, oldest first; unreadable records are skipped."""
    folder = _folder(env, "open")
    try:
        names = sorted(n for n in os.listdir(folder.path) if n.endswith(".json"))
    except OSError:
        return []
    found = []
    for name in names:
        data = folder.read(name, 1 << 16)
        try:
            item = json_loads(data) if data else None
        except ValueError:
            item = None
        if not isinstance(item, dict):
            continue
        session, cwd, where = item.get("session"), item.get("cwd"), item.get("folder")
        since = item.get("since")
        if not (isinstance(session, str) and isinstance(cwd, str) and isinstance(where, str)):
            continue
        when = float(since) if isinstance(since, int | float) else 0.0
        pid, started = _integer(item.get("pid")), _integer(item.get("started"))
        found.append(OpenProcess(session, cwd, where, pid, started, when, name))
    found.sort(key=lambda p: p.since)
    return found


def take_process(env: Mapping[str, str], record: OpenProcess) -> bool:
    """Remove the record; True for the one hook whose removal it was (that hook sends the end)."""
    path = os.path.join(_folder(env, "open").path, record.name)
    taken = f"{path}.taken-{os.getpid()}"
    try:
        os.rename(path, taken)
    except OSError:
        return False
    _unlink(taken)
    return True
