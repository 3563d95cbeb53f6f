"""What the Copilot hooks keep under the SDK's state folder.

* **Claims.** A compaction's summary is reported by whichever reporting
  hook first finds it in ``events.jsonl``, but two hooks can find it at
  once: sessionStart and userPromptSubmitted run together, and a hook
  installed for the user and for a trusted project runs twice. The daemon
  stores every compaction-complete it is sent, so a summary is claimed
  first: an empty file named after the session and the compaction's event
  id, created with ``O_EXCL`` under ``<state dir>/copilot-compactions``.
  Only the process that creates it reports the summary, and it hands the
  write to the durable outbox right after. A claim that cannot be made (an
  unwritable state directory) lets the summary go: a duplicate beats a loss.
* **Cursors.** Beside the claims, ``<session>.cursor`` holds how far into
  the session's ``events.jsonl`` compactions were looked for (the end of
  the last whole line read), so each hook reads only what was written since
  the last one, however long the session.
* **Conversations.** The conversation derived from a session's
  ``events.jsonl`` is written to ``<state dir>/copilot-transcripts/
  <session>.jsonl`` (0600, in a 0700 folder, replaced atomically), which
  is what checkpoints and the session end hand to the daemon. It only
  grows as the session goes on, so the daemon's byte cursor sees each turn
  once.

Claims and cursors are swept 180 days after their last change (a session
resumed after that could report an old summary again), conversations after
30 days (they are rebuilt when needed), each when a new file is made there.
Standard library only: the hook process imports this.
"""

from __future__ import annotations

import os
import time

from signet_sdk.plugin import private_dir, state_dir

from ._paths import CONVERSATIONS, safe_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["claim_compaction", "read_cursor", "write_conversation", "write_cursor"]

_CLAIMS = "copilot-compactions"
#: Claims and cursors outlive any session that may still be resumed.
_KEEP_CLAIMS = 180 * 24 * 3600
#: A conversation file is rebuilt from events.jsonl whenever it is needed.
_KEEP_CONVERSATIONS = 30 * 24 * 3600


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:96]


def _folder(env: Mapping[str, str], name: str) -> str:
    return private_dir(os.path.join(private_dir(state_dir(env)), name))


def claim_compaction(env: Mapping[str, str], session: str, event_id: str) -> bool:
    """True when this process is the first to report the compaction ``event_id``."""
    try:
        folder = _folder(env, _CLAIMS)
    except OSError:
        return True
    path = os.path.join(folder, f"{_safe(session)}--{_safe(event_id)}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        os.close(os.open(path, flags, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return True
    _sweep(folder, _KEEP_CLAIMS)
    return True


def _cursor_path(env: Mapping[str, str], session: str) -> str:
    return os.path.join(_folder(env, _CLAIMS), f"{_safe(session)}.cursor")


def read_cursor(env: Mapping[str, str], session: str) -> int:
    """How far into the session's events.jsonl compactions were already looked for (bytes)."""
    try:
        fd = os.open(_cursor_path(env, session), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return 0
    try:
        text = os.read(fd, 32).strip()
    except OSError:
        return 0
    finally:
        os.close(fd)
    return int(text) if text.isdigit() else 0


def write_cursor(env: Mapping[str, str], session: str, offset: int) -> None:
    """Remember ``offset`` as looked at; a failure only means looking again (claims hold)."""
    try:  # noqa: SIM105 (no contextlib on the hook path)
        _replace(_cursor_path(env, session), str(offset).encode())
    except OSError:
        pass


def write_conversation(env: Mapping[str, str], session: str, data: bytes) -> str | None:
    """Keep ``data`` as the session's conversation file; its path, or None when it cannot be."""
    if not data or not safe_name(session):
        return None
    try:
        folder = _folder(env, CONVERSATIONS)
    except OSError:
        return None
    path = os.path.join(folder, f"{session}.jsonl")
    existed = os.path.lexists(path)
    if existed and _holds(path, data):
        return path  # unchanged since the last hook
    try:
        _replace(path, data)
    except OSError:
        return None
    if not existed:
        _sweep(folder, _KEEP_CONVERSATIONS)
    return path


def _replace(path: str, data: bytes) -> None:
    """Put ``data`` at ``path`` through a new 0600 file renamed over it (raises OSError)."""
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}-{os.urandom(3).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, 0o600)
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


def _holds(path: str, data: bytes) -> bool:
    """Whether the file at ``path`` (not a link) holds exactly ``data``."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        return os.fstat(fd).st_size == len(data) and os.read(fd, len(data) + 1) == data
    except OSError:
        return False
    finally:
        os.close(fd)


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
