"""``signet-sdk doctor``'s checks of the state directory (hooks.log, the outbox, the breaker).

It must be ours and private (0700, files 0600, no links), and able to take a
write: writable, on a disk that is not full, with the outbox a folder. A hook
never fails for want of it (each write is then sent directly, without a
durable copy), so this report is where a user learns of it.
"""

from __future__ import annotations

import os
import stat

from signet_sdk.cli.doctor import Finding

__all__ = ["state_findings"]


#: What a state directory that cannot hold the outbox costs, said with each such finding.
_DIRECT = "hooks send writes directly, without a durable copy"
#: Free space under which the state directory's disk counts as full: an entry
#: carries its transcript snapshot, and those run to megabytes.
_LOW_SPACE = 16 * 1024 * 1024


def state_findings() -> list[Finding]:
    """The state directory: private, writable, its disk not full, the outbox a folder."""
    from signet_sdk.runtime.files import state_dir

    root = state_dir()
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        parent = _nearest_existing(root)
        blocked = _unwritable(parent)
        if blocked is not None:
            return [_storage_finding(f"{root} cannot be created: {parent} {blocked}", root)]
        return [Finding("state", True, f"{root} not created yet (the first hook creates it)")]
    except OSError as exc:  # a file where one of its parents should be
        return [_storage_finding(f"{root} cannot be used: {exc}", root)]
    problems = []
    if not stat.S_ISDIR(st.st_mode):
        problems.append(f"{root} is not a directory (a link or a file); {_DIRECT}")
    elif hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        problems.append(f"{root} belongs to another user")
    else:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = os.path.join(folder, name)
                mode = os.lstat(path)
                want = 0o700 if stat.S_ISDIR(mode.st_mode) else 0o600
                if stat.S_ISLNK(mode.st_mode):
                    problems.append(f"{path} is a symlink")
                elif stat.S_IMODE(mode.st_mode) & ~want:
                    problems.append(f"{path} is {oct(stat.S_IMODE(mode.st_mode))}")
        if stat.S_IMODE(st.st_mode) & 0o077:
            problems.append(f"{root} is {oct(stat.S_IMODE(st.st_mode))}")
    storage = _storage(root) if stat.S_ISDIR(st.st_mode) else []
    if not problems and not storage:
        return [Finding("state", True, f"{root}: private (0700, files 0600)")]
    return [
        Finding(
            "state",
            False,
            p,
            f"remove what you did not put there; 'chmod -R go= {root}' narrows the modes",
        )
        for p in problems
    ] + storage


def _storage(root: str) -> list[Finding]:
    """Whether the state directory and its outbox can take a write: writable, not full,
    and the outbox a folder (a file in its way makes every write go without one)."""
    from signet_sdk.runtime.files import outbox_dir

    found = []
    blocked = _unwritable(root)
    if blocked is not None:
        found.append(_storage_finding(f"{root} {blocked}", root))
    outbox = outbox_dir(create=False)
    if os.path.lexists(outbox) and not os.path.isdir(outbox):
        found.append(_storage_finding(f"{outbox} is not a directory (a file is in the way)", root))
    elif blocked is None and os.path.isdir(outbox) and _unwritable(outbox) is not None:
        found.append(_storage_finding(f"{outbox} {_unwritable(outbox)}", root))
    try:
        vfs = os.statvfs(root)
    except OSError:
        return found
    free = vfs.f_bavail * vfs.f_frsize
    if free < _LOW_SPACE:
        found.append(_storage_finding(f"the disk holding {root} is full ({free} bytes free)", root))
    return found


def _storage_finding(problem: str, root: str) -> Finding:
    return Finding(
        "state",
        False,
        f"{problem}; {_DIRECT}",
        f"make room or make {root} a writable folder of yours (or set XDG_STATE_HOME to one)",
    )


def _nearest_existing(path: str) -> str:
    while not os.path.lexists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path


def _unwritable(path: str) -> str | None:
    """Why nothing can be written in the folder ``path``, or None when it can be."""
    if not os.path.isdir(path):
        return "is not a directory"
    try:
        read_only = bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    if read_only:
        return "is on a read-only file system"
    if not os.access(path, os.W_OK | os.X_OK):
        return "is read-only (not writable by this user)"
    return None
