"""Reading, replacing and diffing the files a harness installer manages.

Every installer refuses rather than guesses: a file it cannot read is an
:class:`InstallError` naming the path; a file it replaces is swapped in
atomically (written beside it, fsynced, renamed), so a crash leaves the old
bytes or the new ones, never half of each; and ``--dry-run`` shows the same
unified diff whatever the harness.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from . import json5edit as j5

__all__ = [
    "InstallError",
    "backup",
    "marked",
    "missing_folders",
    "parse_config",
    "parse_json",
    "read_text",
    "remove_empty_folders",
    "remove_file",
    "replace_text",
    "text_diff",
    "write_or_remove",
]


class InstallError(Exception):
    """A file cannot be changed safely; the message names the path and the problem."""


def read_text(path: Path) -> str | None:
    """The file's text, or None when it does not exist; unreadable is an :class:`InstallError`."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"{path}: cannot read: {exc}") from None


def parse_config(path: Path, text: str, syntax: str, objects: Sequence[str] = ()) -> j5.Node:
    """``text`` (of the config file ``path``) parsed, once it is safe to edit.

    Refuses, naming the file: text that does not parse (``syntax`` names
    the format the user should fix), a top level that is not an object, or
    a top-level member named in ``objects`` that is there but not an object
    (the installer would have to replace the user's value to add its own).
    """
    try:
        root = j5.parse(text)
    except j5.Json5Error as exc:
        raise InstallError(f"{path}: not valid {syntax} ({exc}); fix it and run again") from None
    if root.kind != "object":
        raise InstallError(f"{path}: the top level is not an object; left untouched")
    for name in objects:
        node = j5.find(root, [name])
        if node is not None and node.kind != "object":
            raise InstallError(f"{path}: '{name}' is not an object; left untouched")
    return root


def parse_json(path: Path, text: str | None, error: type[Exception] = InstallError) -> Any:
    """``text`` (of the JSON file ``path``) parsed; ``{}`` when there is no file or a blank one.

    Text that does not parse is ``error`` naming the file, line and column,
    so the user knows what to fix before running again.
    """
    if text is None or not text.strip():
        return {}
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        # Past Python's recursion limit: refused by name, never a traceback.
        raise error(f"{path}: nested too deeply to edit; left untouched") from None


def replace_text(path: Path, text: str, mode: int = 0o644) -> None:
    """Replace ``path`` atomically with ``text``, keeping what the user chose for the file.

    An existing file keeps its mode (a user's 0600 config stays 0600); a new
    one gets ``mode``. A link is followed: its target is replaced and the
    link stays, so a config kept in a dotfiles repository and linked into
    place is still linked afterwards. A file whose lines all end in CRLF
    keeps CRLF: :func:`read_text` hands every installer ``\\n`` line ends,
    and they are turned back here, so an install then an uninstall gives
    back the same bytes.
    """
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        mode = path.stat().st_mode & 0o7777
    if _crlf_only(path):
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def remove_file(path: Path) -> None:
    """Take away the file :func:`replace_text` wrote at ``path``; none there is no error.

    Through a link it is the link's target that goes, and the link stays:
    an install through a link whose target did not exist yet created that
    target, so giving back the absent file means removing the target, not
    the user's link (which would leave our entries in the target, still
    live once the link is made again).
    """
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    path.unlink(missing_ok=True)


def write_or_remove(path: Path, text: str | None, mode: int = 0o644) -> None:
    """``path`` holding ``text``, or no file there when ``text`` is None.

    What every installer's write of a planned change is, and what putting
    one back is: :func:`replace_text` (``mode`` for a new file) or
    :func:`remove_file` (a link kept, its target gone).
    """
    if text is None:
        remove_file(path)
    else:
        replace_text(path, text, mode)


def _crlf_only(path: Path) -> bool:
    """Whether ``path`` has line ends and every one of them is CRLF (False when unreadable)."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    ends = data.count(b"\n")
    return ends > 0 and data.count(b"\r\n") == ends


def marked(path: Path, marker: str) -> bool:
    """Whether ``path`` is a regular file (not a link) whose first line holds ``marker``.

    An installer writes its marker into the first line of the file the
    harness loads, and owns a place only where it finds it: a file the
    user put there, or a link to one, is never taken over or removed.
    """
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8") as fh:
            return marker in fh.readline()
    except (OSError, UnicodeDecodeError):
        return False


def backup(path: Path) -> Path:
    """Copy ``path`` to ``<name>.bak-<UTC time>`` (``-<n>`` added while taken); the copy's path.

    Taken before an installer replaces a file the user edits by hand, so
    the user's own version stays one ``mv`` away whatever the installer did.
    """
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    copy = path.with_name(f"{path.name}.bak-{stamp}")
    n = 1
    while copy.exists():
        copy = path.with_name(f"{path.name}.bak-{stamp}-{n}")
        n += 1
    shutil.copy2(path, copy)
    return copy


def text_diff(
    path: Path, old: str | None, new: str | None, verb: str | None = None, *, named: bool = False
) -> str:
    """A unified diff from ``old`` to ``new`` (None: the file is absent on that side).

    An absent side is named ``/dev/null``, unless ``named``: then both sides
    carry the path (the form the settings-file installers have always printed).
    """
    after = str(path) if verb is None else f"{path} (after {verb})"
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        fromfile=str(path) if old is not None or named else "/dev/null",
        tofile=after if new is not None or named else "/dev/null",
    )
    return "".join(lines)


def missing_folders(path: Path) -> list[str]:
    """The folders above ``path`` that do not exist yet, deepest first.

    Writing ``path`` creates them; an installer notes them before its first
    write, so that its uninstall can take them away again
    (:func:`remove_empty_folders`).
    """
    out: list[str] = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        out.append(str(folder))
        folder = folder.parent
    return out


def remove_empty_folders(folders: Iterable[str | os.PathLike[str]]) -> None:
    """Remove ``folders``, deepest first, each only while it is empty.

    One the user has put something in stays, and with it the folders above it.
    """
    for folder in sorted({Path(f) for f in folders}, key=lambda f: len(f.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            continue
