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
import time

from signet_sdk.plugin import json_dumps, json_loads, private_dir, state_dir

from ._paths import KIMI_STATE, safe_name

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

_DAY = 24 * 3600
_KEEP = {"context": 30 * _DAY, "claims": 180 * _DAY, "transcripts": 30 * _DAY, "open": 30 * _DAY}
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:96]


def _folder(env: Mapping[str, str], name: str) -> str:
    base = private_dir(os.path.join(private_dir(state_dir(env)), KIMI_STATE))
    return private_dir(os.path.join(base, name))


def _replace(path: str, data: bytes) -> None:
    """Put ``data`` at ``path`` through a new 0600 file renamed over it (raises OSError)."""
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}-{os.urandom(3).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        try:  # noqa: SIM105 (no contextlib on the hook path)
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _read(path: str, limit: int = 1 << 22) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except OSError:
        return None
    try:
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def _unlink(path: str) -> None:
    try:  # noqa: SIM105 (no contextlib on the hook path)
        os.unlink(path)
    except OSError:
        pass


def _sweep(folder: str, keep: float) -> None:
    cutoff = time.time() - keep
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if os.lstat(path).st_mtime < cutoff:
                os.unlink(path)
        except OSError:
            continue


# -- the start context ---------------------------------------------------------


def keep_start_context(env: Mapping[str, str], session: str, text: str) -> None:
    """Hold ``text`` for the session's next prompt, and keep a copy (a failure only loses them)."""
    try:
        folder = _folder(env, "context")
        path = os.path.join(folder, _safe(session))
        _replace(path + ".start", text.encode("utf-8"))
        _replace(path, text.encode("utf-8"))
    except OSError:
        return
    _sweep(folder, _KEEP["context"])


def hold_start_context_again(env: Mapping[str, str], session: str) -> None:
    """Hold the session's start context for its next prompt again (after a compaction)."""
    path = os.path.join(state_dir(env), KIMI_STATE, "context", _safe(session))
    data = _read(path + ".start")
    if data:
        try:
            _replace(path, data)
        except OSError:
            return


def take_start_context(env: Mapping[str, str], session: str) -> str | None:
    """The held start context, removed as it is read; None when there is none."""
    folder = os.path.join(state_dir(env), KIMI_STATE, "context")
    path = os.path.join(folder, _safe(session))
    taken = f"{path}.taken-{os.getpid()}"
    try:
        os.rename(path, taken)  # only one hook gets it
    except OSError:
        return None
    data = _read(taken)
    _unlink(taken)
    return None if data is None else data.decode("utf-8", "replace")


# -- compaction claims -----------------------------------------------------------


def claim(env: Mapping[str, str], session: str, key: str) -> bool:
    """True when this process is the first to report the compaction ``key`` of ``session``."""
    try:
        folder = _folder(env, "claims")
    except OSError:
        return True
    path = os.path.join(folder, f"{_safe(session)}--{_safe(key)}")
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return True
    _sweep(folder, _KEEP["claims"])
    return True


def claimed(env: Mapping[str, str], session: str, key: str) -> bool:
    """Whether some hook has claimed the compaction ``key`` of ``session`` already."""
    folder = os.path.join(state_dir(env), KIMI_STATE, "claims")
    return os.path.lexists(os.path.join(folder, f"{_safe(session)}--{_safe(key)}"))


# -- conversations ---------------------------------------------------------------


def write_conversation(env: Mapping[str, str], session: str, data: bytes) -> str | None:
    """Keep ``data`` as the session's conversation file; its path, or None when it cannot be."""
    if not data or not safe_name(session):
        return None
    try:
        folder = _folder(env, "transcripts")
    except OSError:
        return None
    path = os.path.join(folder, f"{session}.jsonl")
    existed = os.path.lexists(path)
    if existed and _read(path, len(data) + 1) == data:
        return path  # unchanged since the last hook
    try:
        _replace(path, data)
    except OSError:
        return None
    if not existed:
        _sweep(folder, _KEEP["transcripts"])
    return path


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
    return f"{_safe(session)}--{pid if pid is not None else 'unknown'}.json"


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
    try:
        folder = _folder(env, "open")
        name = _marker_name(record.session, record.pid)
        _replace(os.path.join(folder, name), json_dumps(body).encode("utf-8"))
    except OSError:
        return
    _sweep(folder, _KEEP["open"])


def close_process(env: Mapping[str, str], session: str, pid: int | None) -> None:
    """Forget the process of ``session`` (its end is being sent)."""
    _unlink(os.path.join(state_dir(env), KIMI_STATE, "open", _marker_name(session, pid)))


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def open_processes(env: Mapping[str, str]) -> list[OpenProcess]:
    """Every recorded process, oldest first; unreadable records are skipped."""
    folder = os.path.join(state_dir(env), KIMI_STATE, "open")
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError:
        return []
    found = []
    for name in names:
        data = _read(os.path.join(folder, name), 1 << 16)
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
    path = os.path.join(state_dir(env), KIMI_STATE, "open", record.name)
    taken = f"{path}.taken-{os.getpid()}"
    try:
        os.rename(path, taken)
    except OSError:
        return False
    _unlink(taken)
    return True
