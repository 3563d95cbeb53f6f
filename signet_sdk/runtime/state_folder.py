"""A folder of a hook's own small files under the SDK's state folder: claims, cursors, copies.

Hooks of one harness run as separate processes, often several at once (two
hooks of one event, an install for the user and one for a project), and
must agree without a server: who reports a compaction's summary, which
conversation copy the daemon reads. The answers are files:

* a **claim** is an empty file created with ``O_EXCL``: only the process
  that creates it goes on. A claim that cannot be made (an unwritable state
  folder) lets the caller go on too: a duplicate beats a loss;
* a **kept file** is replaced whole through a new 0600 file renamed over
  it, so a reader sees the old bytes or the new ones, never half;
* every file is swept once older than the folder's ``keep_days``, whenever
  a new one is made there, so the folder never grows without end.

Folders are 0700 and checked as the SDK's own (:func:`private_dir`); a link
is never followed. Standard library only: every hook process may import it.
"""

from __future__ import annotations

import os
import time

from signet_sdk.runtime.files import private_dir, state_dir, write_durably

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["StateFolder"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DAY = 24 * 3600.0


def _safe(text: str) -> str:
    """``text`` fit to be part of a file name: other characters as ``_``, at most 96."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:96]


class StateFolder:
    """``<state dir>/<names...>``: where one harness's hooks keep claims and files.

    ``StateFolder(env, "kimi", "claims", keep_days=180)`` names the folder;
    it is made (each level 0700) when first written to, never by a reader.
    """

    __slots__ = ("_keep", "_names", "_root", "path")

    def __init__(self, env: Mapping[str, str], *names: str, keep_days: float) -> None:
        self._root = state_dir(env)
        self._names = names
        self._keep = keep_days * _DAY
        self.path = os.path.join(self._root, *names)

    def make(self) -> str:
        """The folder, made and checked if needed, each level (raises :class:`OSError`)."""
        folder = private_dir(self._root)
        for name in self._names:
            folder = private_dir(os.path.join(folder, name))
        return folder

    @staticmethod
    def fits(session: str) -> bool:
        """Whether ``session`` can name a file or folder as it is: no separator, no NUL,
        nothing hidden (so no ``..``).

        A harness's own session folders are named by its ids; one that does
        not fit is never joined to a path.
        """
        return bool(session) and not (
            os.sep in session
            or (os.altsep is not None and os.altsep in session)
            or "\x00" in session
            or session.startswith(".")
        )

    @staticmethod
    def name(*parts: str) -> str:
        """A file name made of ``parts`` (a session id, a key), joined as ``a--b``.

        Each part keeps letters, digits, ``-``, ``_`` and ``.`` (anything
        else becomes ``_``) and at most 96 of them, so no id can climb out
        of the folder or make a name too long.
        """
        return "--".join(_safe(p) for p in parts)

    def claim(self, *parts: str) -> bool:
        """True when this process is the first to claim ``parts`` (joined as ``a--b``).

        Also true when no claim can be made: the caller then goes on, as a
        duplicate is better than a loss.
        """
        try:
            folder = self.make()
        except OSError:
            return True
        path = os.path.join(folder, self.name(*parts))
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600))
        except FileExistsError:
            return False
        except OSError:
            return True
        self.sweep()
        return True

    def claimed(self, *parts: str) -> bool:
        """Whether some process has claimed ``parts`` already."""
        return os.path.lexists(os.path.join(self.path, self.name(*parts)))

    def replace(self, name: str, data: bytes) -> str:
        """Put ``data`` at ``name`` through a new 0600 file renamed over it; the path.

        Raises :class:`OSError`; no temporary file is left behind.
        """
        path = os.path.join(self.make(), name)
        write_durably(path, data, fsync=False)  # state a hook rebuilds: no wait on the disk
        return path

    def read(self, name: str, limit: int = 1 << 22) -> bytes | None:
        """Up to ``limit`` bytes of ``name`` (not a link); None when it cannot be read."""
        try:
            fd = os.open(os.path.join(self.path, name), os.O_RDONLY | _NOFOLLOW)
        except OSError:
            return None
        try:
            return os.read(fd, limit)
        except OSError:
            return None
        finally:
            os.close(fd)

    def keep(self, session: str, data: bytes, suffix: str = ".jsonl") -> str | None:
        """Keep ``data`` as ``<session><suffix>``; its path, or None when it cannot be.

        For a file a hook derives again and again (a conversation that only
        grows): unchanged bytes are not written again, and the folder is
        swept when the file is new. A session id that cannot name a file
        as it is gets None.
        """
        if not data or not self.fits(session):
            return None
        name = f"{session}{suffix}"
        path = os.path.join(self.path, name)
        existed = os.path.lexists(path)
        if existed and self.read(name, len(data) + 1) == data:
            return path  # unchanged since the last hook
        try:
            self.replace(name, data)
        except OSError:
            return None
        if not existed:
            self.sweep()
        return path

    def sweep(self) -> None:
        """Remove what was last changed more than ``keep_days`` ago (what it can)."""
        cutoff = time.time() - self._keep
        try:
            names = os.listdir(self.path)
        except OSError:
            return
        for name in names:
            path = os.path.join(self.path, name)
            try:
                if os.lstat(path).st_mtime < cutoff:
                    os.unlink(path)
            except OSError:
                continue
