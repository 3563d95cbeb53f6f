"""How a harness shim finds a running adapter server: environment, then a state file.

1. ``SIGNET_ADAPTER_URL`` (with ``SIGNET_ADAPTER_TOKEN`` when the server
   has a token): an explicit server.
2. ``${XDG_STATE_HOME:-~/.local/state}/signet-sdk/adapter-server.json``:
   written by a running ``signet-sdk serve`` (mode 0600: it may hold the
   token) as ``{"url", "port", "pid", "token"}``, removed when it exits. A
   file whose ``pid`` is not alive is stale and ignored. One server serves a
   state directory: ``serve`` holds an exclusive lock on
   ``adapter-server.owner`` there while it runs (:func:`claim`), and a
   second one exits at once. A server started in the background
   (``--idle-exit``) also exits within seconds once its state file is gone
   or names another server (:func:`state_owner`).
3. Otherwise the shim starts one (``signet-sdk serve --port 0 --idle-exit
   N``, detached, one at a time under ``adapter-server.lock``, with a fresh
   token in ``SIGNET_ADAPTER_SERVER_TOKEN`` that only the state file shares)
   and serves the event meanwhile by running ``signet-sdk hook <harness>
   <event>``, or skips it (fail open) when its deadline is too short.

The JavaScript transport (``signet_sdk/shims/transport.mjs``) follows the
same order; :func:`discover` is the same rule for Python callers.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from typing import Any

from signet_sdk.runtime.files import private_dir, state_dir, write_durably

__all__ = [
    "OWNER_FILE",
    "START_LOCK",
    "STATE_FILE",
    "claim",
    "discover",
    "remove_state",
    "state_owner",
    "state_path",
    "write_state",
]

STATE_FILE = "adapter-server.json"
#: Locked (``flock``, exclusive) by the one server of the state directory while it runs.
OWNER_FILE = "adapter-server.owner"
#: A shim's start lock (created exclusively while it starts a server); the
#: server removes it once its state file is written, so the next start after
#: this server has gone needs no stale-lock clean-up.
START_LOCK = "adapter-server.lock"


def state_path(env: Mapping[str, str] | None = None) -> str:
    return os.path.join(state_dir(env), STATE_FILE)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: not ours to use
        return False
    return True


def write_state(
    url: str, port: int, token: str | None, env: Mapping[str, str] | None = None
) -> str:
    """Record this server for shims (0600, atomically); returns the path."""
    path = state_path(env)
    private_dir(os.path.dirname(path))
    record = {"url": url, "port": port, "pid": os.getpid(), "token": token}
    write_durably(path, json.dumps(record).encode())
    with contextlib.suppress(OSError):  # nobody was starting one
        os.unlink(os.path.join(os.path.dirname(path), START_LOCK))
    return path


def remove_state(env: Mapping[str, str] | None = None) -> None:
    """Remove the state file if it is this process's."""
    path = state_path(env)
    try:
        with open(path, "rb") as fh:
            record = json.loads(fh.read())
        if record.get("pid") == os.getpid():
            os.unlink(path)
    except (OSError, ValueError):
        pass


def discover(env: Mapping[str, str] | None = None) -> tuple[str, str | None] | None:
    """``(url, token)`` of the server a shim should use, or None when none runs."""
    environ = os.environ if env is None else env
    url = environ.get("SIGNET_ADAPTER_URL", "").strip()
    if url:
        return url.rstrip("/"), environ.get("SIGNET_ADAPTER_TOKEN") or None
    try:
        with open(state_path(environ), "rb") as fh:
            record: Any = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("pid"), int):
        return None
    if not _alive(record["pid"]) or not isinstance(record.get("url"), str):
        return None
    token = record.get("token")
    return record["url"], token if isinstance(token, str) else None


def claim(env: Mapping[str, str] | None = None) -> int | None:
    """Make this process the one server of its state directory; None when another is.

    Returns a descriptor holding an exclusive lock on ``adapter-server.owner``
    (kept for the life of the process; the system drops the lock when the
    process ends, however it ends). Where locks are not available, every
    caller gets it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return -1
    directory = private_dir(state_dir(env))
    fd = os.open(os.path.join(directory, OWNER_FILE), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd


def state_owner(env: Mapping[str, str] | None = None) -> int | None:
    """The ``pid`` the state file names, or None when there is no readable state file."""
    try:
        with open(state_path(env), "rb") as fh:
            record: Any = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    pid = record.get("pid") if isinstance(record, dict) else None
    return pid if isinstance(pid, int) else None
