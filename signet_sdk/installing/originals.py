"""The user's original bytes of a config file, kept beside it until uninstall puts them back.

An installer that edits a file the user also edits (a TOML config, a hook
file, an MCP file) keeps what the file was before its first change as
``<file>.signet-sdk-orig``: the exact text, or, for a file that was not
there, a record of its absence and of the folders the install creates for
it. Uninstall removes only what the installer added; when the rest is what
it was, :func:`restored` gives back those exact bytes (or no file at all),
so a user who installed and uninstalled sees nothing changed. A file the
user edited since keeps their edit: only our part goes.

One record format for every installer, so an uninstall from a newer version
reads what an older one kept.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import cli
from .cli import Change
from .files import missing_folders, read_text, remove_empty_folders, remove_file, replace_text

__all__ = [
    "ORIGINAL_SUFFIX",
    "apply_keeping",
    "kept",
    "original_path",
    "original_record",
    "restored",
    "write_keeping",
]

#: Added to the file's name for the copy of its original bytes.
ORIGINAL_SUFFIX = ".signet-sdk-orig"
_ABSENT = "\x00absent\n"


def original_path(path: Path) -> Path:
    """Where ``path``'s original is kept: beside it, as ``<name>.signet-sdk-orig``."""
    return path.with_name(path.name + ORIGINAL_SUFFIX)


def original_record(path: Path, before: str | None, *, folders: bool = True) -> str:
    """What to keep for ``path`` whose text is ``before`` (None: it does not exist).

    Taken before anything is written. For an absent file, ``folders`` adds
    the missing folders above it (the install will create them), so an
    uninstall that removes the file removes them too, while empty.
    """
    if before is not None:
        return before
    created = missing_folders(path) if folders else []
    return _ABSENT + "".join(f"{c}\n" for c in created)


def kept(path: Path) -> tuple[bool, str | None]:
    """Whether an original was kept for ``path``, and its text (None: the file was absent)."""
    saved = read_text(original_path(path))
    if saved is None:
        return False, None
    return True, None if saved.startswith(_ABSENT) else saved


def _created_folders(path: Path) -> list[Path]:
    """The folders the install created for ``path``, deepest first."""
    saved = read_text(original_path(path)) or ""
    if not saved.startswith(_ABSENT):
        return []
    return [Path(line) for line in saved[len(_ABSENT) :].splitlines() if line]


def restored(path: Path, text: str | None, normal: Callable[[str | None], Any]) -> str | None:
    """After uninstall: the original bytes when the rest is unchanged from them, else ``text``.

    ``normal`` maps a file's text (None: no file) to what it means, so an
    uninstall that leaves, say, an empty object where there was no file
    still counts as unchanged.
    """
    was_kept, original = kept(path)
    if not was_kept:
        return text
    return original if normal(original) == normal(text) else text


def write_keeping(change: Change, verb: str, record: str) -> None:
    """Write ``change``, keeping the first original (``record``) beside the file.

    Install keeps ``record`` (0600: it may hold the user's secrets, as the
    file does) unless an earlier install already did, then replaces the
    file atomically (0600 when new). Uninstall drops the record;
    ``after`` None removes the file and then the folders its install
    created, deepest first, while they are empty.
    """
    path, orig = change.path, original_path(change.path)
    if verb == "install" and not orig.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_text(orig, record, 0o600)
    if change.after is not None:
        replace_text(path, change.after, 0o600)
        if verb == "uninstall":
            orig.unlink(missing_ok=True)
        return
    folders = _created_folders(path)
    remove_file(path)
    orig.unlink(missing_ok=True)
    remove_empty_folders(folders)


def apply_keeping(harness: str, verb: str, changes: list[Change], dry_run: bool) -> bool | None:
    """:func:`.cli.apply` the ``changes``, each written by :func:`write_keeping`.

    Every file's record is taken before the first write, so the folders an
    install creates for one file are not mistaken for the user's by the
    next. Each write is reported as ``Signet <what> installed into <path>``
    (``removed from``; ``(file removed)`` when the file goes).
    """
    done = "installed into" if verb == "install" else "removed from"
    records = {c.path: original_record(c.path, c.before) for c in changes}

    def write(change: Change) -> str:
        write_keeping(change, verb, records[change.path])
        where = change.path if change.after is not None else f"{change.path} (file removed)"
        return f"Signet {change.what} {done} {where}\n"

    return cli.apply(harness, verb, changes, dry_run, write)
