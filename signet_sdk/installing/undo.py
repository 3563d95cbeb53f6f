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

from .files import InstallError, read_text, replace_text, text_diff, write_or_remove

__all__ = ["RECORD", "install_file", "read_record", "uninstall_file", "write_record"]

#: The undo record's name, beside the settings file it speaks of.
RECORD = "signet-sdk-install.json"

#: The settings text without our members; notes on what was kept and why.
Unmerge = Callable[[str], tuple[str, list[str]]]
#: Further record fields, given the earlier install's record when the file is as it left it.
MoreFields = Callable[[Mapping[str, Any] | None], Mapping[str, Any]]


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


def install_file(
    path: Path,
    text: str | None,
    new: str,
    created: list[list[str]],
    *,
    managed_by: str,
    restart_note: str,
    dry: bool,
    without_ours: Callable[[str], str] | None = None,
    more: MoreFields | None = None,
) -> int:
    """Write ``new``, the settings ``text`` with our members merged in, and its record; 0.

    The record keeps what the file was before our first install: when it is
    still as an earlier install of ours left it, that install's ``before``
    (and the members it ``created``, ahead of those this merge created);
    otherwise the file as found, less our members when ``without_ours`` is
    given (ours from an install whose record is gone or was edited since do
    not count as the user's). ``more`` gives fields after the common ones.
    ``dry`` prints the diff and writes nothing.
    """
    record_path = path.with_name(RECORD)
    old = read_record(record_path, managed_by)
    if new == text:
        sys.stdout.write(f"{path}: already up to date, nothing changed\n")
        return 0
    if dry:
        sys.stdout.write(text_diff(path, text, new, "install"))
        return 0
    earlier = old if old is not None and old.get("after") == text else None
    if earlier is not None:
        before, existed = earlier.get("before"), bool(earlier.get("existed", True))
        created = [c for c in earlier.get("created") or [] if c not in created] + created
    elif text is None or not text.strip() or without_ours is None:
        before, existed = text, text is not None
    else:
        before, existed = without_ours(text), True
    record = {
        "managedBy": managed_by,
        "file": str(path),
        "existed": existed,
        "before": before,
        "after": new,
        "created": created,
        **(more(earlier) if more is not None else {}),
    }
    write_record(record_path, record)
    replace_text(path, new)
    sys.stdout.write(f"Signet hooks and memory tools installed into {path}\n")
    sys.stdout.write(f"{restart_note}\n")
    return 0


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
    elif not text.strip():
        new = text  # a blank file holds nothing of ours (and nothing to parse)
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
    write_or_remove(path, new)
    record_path.unlink(missing_ok=True)
    sys.stdout.write(f"Signet hooks and memory tools removed from {path}\n")
    return 0
