"""The undo record beside a settings file an installer edits, and the uninstall that reads it.

An installer that splices its members into one settings file (Gemini CLI's,
Qwen Code's) keeps, beside it, what the file was before and after its
install (``signet-sdk-install.json``, 0600: the settings may hold secrets).
Uninstall then puts back the exact bytes from before when the file is still
as the install left it; otherwise it removes only our members, through the
installer's own ``unmerge``, and keeps whatever the user changed since.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .files import InstallError, read_text, replace_text, text_diff

__all__ = ["RECORD", "read_record", "uninstall_file", "write_record"]

#: The undo record's name, beside the settings file it speaks of.
RECORD = "signet-sdk-install.json"

#: The settings text without our members; notes on what was kept and why.
Unmerge = Callable[[str], tuple[str, list[str]]]


def read_record(path: Path, managed_by: str | None = None) -> dict[str, Any] | None:
    """The record at ``path`` (None: none there, not an object, or another installer's).

    ``managed_by`` set: a record whose ``managedBy`` differs is not ours to
    act on. One that is not JSON is refused, naming it, rather than guessed at.
    """
    text = read_text(path)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        raise InstallError(f"{path}: not valid JSON; remove it and run again") from None
    if not isinstance(data, dict):
        return None
    if managed_by is not None and data.get("managedBy") != managed_by:
        return None
    return data


def write_record(path: Path, record: Mapping[str, Any]) -> None:
    """Keep ``record`` at ``path`` (0600 when new), replaced atomically."""
    replace_text(path, json.dumps(record, indent=2, ensure_ascii=False) + "\n", 0o600)


def uninstall_file(
    harness: str, path: Path, record: Mapping[str, Any] | None, unmerge: Unmerge, dry: bool
) -> int:
    """Uninstall our members from the settings file ``path``; the exit code (0).

    The record's ``before`` when the file is byte for byte its ``after``
    (no file at all when it did not exist), else ``unmerge``; its notes go
    to stderr. ``dry`` prints the diff and writes nothing; otherwise the
    record goes with our members.
    """
    record_path = path.with_name(RECORD)
    text = read_text(path)
    if text is None:
        sys.stdout.write(f"{path}: does not exist, nothing changed\n")
        if not dry and record is not None:
            record_path.unlink(missing_ok=True)
        return 0
    notes: list[str] = []
    new: str | None
    if record is not None and record.get("after") == text and "before" in record:
        new = record["before"] if record.get("existed", True) else None
    else:
        new, notes = unmerge(text)
    for note in notes:
        sys.stderr.write(f"signet-sdk uninstall {harness}: {note}\n")
    if new == text:
        sys.stdout.write(f"{path}: nothing of ours found, nothing changed\n")
        if not dry and record is not None:
            record_path.unlink(missing_ok=True)
        return 0
    if dry:
        sys.stdout.write(text_diff(path, text, new, "uninstall"))
        return 0
    if new is None:
        path.unlink()
    else:
        replace_text(path, new)
    record_path.unlink(missing_ok=True)
    sys.stdout.write(f"Signet hooks and memory tools removed from {path}\n")
    return 0
