"""Which Kimi Code process a hook runs for, and whether that process is still running.

Kimi Code fires no SessionEnd when ``kimi -p`` finishes (2.1.0 disposes the
app without closing the session), so the end of such a process is noticed
later, by the next SessionStart: it ends the sessions whose process has
gone. For that, each SessionStart records the process it runs for.

Kimi runs each hook command through ``/bin/sh -c`` (node's ``shell:
true``), so the hook's parent is that shell, or Kimi itself where the shell
replaces itself with the command (bash does). On Linux the parent is read
from ``/proc``: a shell parent is stepped over, and the process's start
time (field 22 of ``/proc/<pid>/stat``, in clock ticks since boot) is kept
with its id, so an id the system has handed to a new process is not taken
for Kimi still running. Elsewhere the parent's id is used as it is, and
its start time is unknown. On Windows no process can be checked without
side effects (``os.kill`` would end it), so every check there is "unknown".

Standard library only: the hook process imports this.
"""

from __future__ import annotations

import os

__all__ = ["alive", "kimi_process"]

#: Process names of the shells Kimi's hook commands run under.
_SHELLS = frozenset({"sh", "dash", "bash", "zsh", "ash", "ksh", "busybox"})


def _stat(pid: int) -> tuple[str, int, int] | None:
    """``(name, parent id, start time)`` from ``/proc/<pid>/stat``, or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    head, sep, rest = raw.rpartition(b")")
    fields = rest.split()
    if not sep or len(fields) < 20 or b"(" not in head:
        return None
    name = head.partition(b"(")[2].decode("utf-8", "replace")
    try:
        return name, int(fields[1]), int(fields[19])
    except ValueError:
        return None


def kimi_process() -> tuple[int, int | None] | None:
    """``(process id, start time or None)`` of the Kimi process running this hook."""
    if os.name == "nt":
        return None
    pid = os.getppid()
    if pid <= 1:
        return None  # the parent has gone already: nothing to watch
    found = _stat(pid)
    if found is None:
        return pid, None  # no /proc: the parent as it is
    name, parent, started = found
    if name in _SHELLS and parent > 1:
        above = _stat(parent)
        if above is not None:
            return parent, above[2]
    return pid, started


def alive(pid: int, started: int | None) -> bool | None:
    """Whether the process is still running: True, False, or None when it cannot be told."""
    if os.name == "nt" or pid <= 1:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # another user's process: Kimi ran as this one, so the id was reused
    except OSError:
        return None
    if started is None:
        return True
    found = _stat(pid)  # a start time was read from /proc, so /proc is there
    return found is not None and found[2] == started
