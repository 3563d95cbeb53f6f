"""The process side of a hook: its off switches, its log, its stdin, its children.

Standard library only: a hook process imports this on every prompt.
"""

from __future__ import annotations

import os
import time

from signet_sdk.wire import jsonfast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = [
    "STDIN_LIMIT",
    "STDIN_TIMEOUT",
    "StdinError",
    "bypassed",
    "child_env",
    "hook_log",
    "read_payload",
    "seconds_setting",
    "spawn_detached",
]

STDIN_LIMIT = 16 * 1024 * 1024
#: How long to wait for the payload; a harness that keeps stdin open must not hang us.
STDIN_TIMEOUT = 2.0
#: Seconds kept back from the deadline to hand unsent work to a flusher and exit.
_LOG_MAX_BYTES = 1024 * 1024


def seconds_setting(raw: str, default: float, most: float = 3600.0) -> float:
    """A variable's seconds, kept between 0 and ``most``; ``default`` when blank or no number.

    ``nan`` counts as no number: it would pass the clamp unchanged (every
    comparison with it is false): a flusher given it retries for ever, a
    settle time of it lets no in-doubt write wait, and a breaker cooldown of
    it never skips the daemon.
    """
    try:
        seconds = float(raw) if raw.strip() else default
    except ValueError:
        return default
    if seconds != seconds:  # nan; math.isnan would import math on every prompt
        return default
    return min(max(seconds, 0.0), most)


def bypassed(env: Mapping[str, str]) -> bool:
    """The documented off switches: ``SIGNET_BYPASS=1`` and the recursion guard."""
    return env.get("SIGNET_BYPASS") == "1" or env.get("SIGNET_NO_HOOKS") == "1"


def hook_log(
    message: str, *, harness: str = "-", event: str = "-", env: Mapping[str, str] | None = None
) -> None:
    """Append one line to ``hooks.log``; never raises (logging must not break a hook)."""
    try:
        from signet_sdk.runtime.files import private_dir, state_dir

        # Our own 0700 directory (a symlink or another user's directory is refused),
        # and O_NOFOLLOW: a link planted as hooks.log is never written through.
        directory = private_dir(state_dir(env))
        path = os.path.join(directory, "hooks.log")
        try:
            if os.lstat(path).st_size > _LOG_MAX_BYTES:
                os.replace(path, os.path.join(directory, "hooks.log.1"))
        except FileNotFoundError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        text = " ".join(message.split())[:2000]
        line = f"{stamp} {harness} {event} pid={os.getpid()} {text}\n"
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o600)
        try:
            os.write(fd, line.encode("utf-8", errors="replace"))
        finally:
            os.close(fd)
    except Exception:
        pass


class StdinError(Exception):
    """The payload on stdin could not be read as one JSON object."""


def read_payload(fd: int = 0, *, limit: int = STDIN_LIMIT, timeout: float = STDIN_TIMEOUT) -> Any:
    """Read and parse the JSON payload on ``fd`` within ``timeout`` seconds.

    Stops at EOF, at ``timeout``, or as soon as the bytes so far parse as a
    complete JSON value, whichever comes first.
    """
    import select

    chunks: list[bytes] = []
    total = 0
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        try:
            ready, _, _ = select.select([fd], [], [], left)
        except (OSError, ValueError) as exc:
            raise StdinError(f"stdin is not readable: {exc}") from None
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError as exc:
            raise StdinError(f"stdin read failed: {exc}") from None
        if not chunk:
            break
        total += len(chunk)
        if total > limit:
            raise StdinError(f"payload larger than {limit} bytes")
        chunks.append(chunk)
        if chunk.rstrip().endswith((b"}", b"]")):
            try:
                return jsonfast.loads_payload(b"".join(chunks))
            except ValueError:
                continue
    data = b"".join(chunks)
    if not data.strip():
        raise StdinError("no payload on stdin" + (" (timed out)" if left <= 0 else ""))
    try:
        return jsonfast.loads_payload(data)
    except ValueError as exc:
        raise StdinError(f"payload is not JSON: {exc}") from None


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    out = dict(os.environ if env is None else env)
    out["SIGNET_NO_HOOKS"] = "1"
    return out


def spawn_detached(argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """Start ``argv`` in its own session, detached from our stdio; returns its pid.

    A new session keeps it alive when the harness kills the hook's process
    group; /dev/null stdio and closed descriptors keep the harness from
    waiting on a pipe the child would otherwise hold open. ``os.posix_spawnp``
    does it without importing ``subprocess`` (with ``signal``, ``selectors``,
    ``threading`` and ``re`` behind it) on a hook's critical path; descriptors
    other than stdio are not inherited (Python opens them close-on-exec).
    """
    spawn = getattr(os, "posix_spawnp", None)
    if spawn is not None:
        devnull = os.devnull
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0),
        ]
        pid: int = spawn(argv[0], list(argv), child_env(env), file_actions=actions, setsid=True)
        return pid
    import subprocess

    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        start_new_session=True,
        env=child_env(env),
    )
    # Never waited for on purpose: it outlives this process. Marking it done
    # keeps Popen's destructor from warning about a child still running.
    proc.returncode = 0
    return proc.pid
