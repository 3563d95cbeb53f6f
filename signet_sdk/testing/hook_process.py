"""Running ``signet-sdk hook <harness> <event>`` as a harness does, and reading what it left.

A command-hook harness starts the hook command the installer registered
for every event, writes the event's JSON to its stdin and reads stdout.
:func:`run_hook` does the same in a subprocess (the ``signet-sdk`` beside
this interpreter), so a test sees exactly the bytes the harness would;
:func:`outbox_left`, :func:`outbox_entries` and :func:`hook_log_lines` read
what it (or an in-process adapter's writer) left in the state directory of
the environment it ran in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "HookRun",
    "hook_command",
    "hook_log_lines",
    "outbox_entries",
    "outbox_left",
    "run_hook",
    "sdk_state_dir",
]

SIGNET_SDK = str(Path(sys.executable).parent / "signet-sdk")


@dataclass
class HookRun:
    returncode: int
    stdout: bytes
    stderr: bytes
    seconds: float


def hook_command(harness: str) -> list[str]:
    """The command an installer registers for ``harness``, without the event."""
    return [SIGNET_SDK, "hook", harness]


def run_hook(
    harness: str,
    event: str | None,
    payload: Any,
    *,
    daemon_url: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> HookRun:
    """Run the installed hook command once, as the harness does (``payload`` JSON on stdin)."""
    full = dict(os.environ)
    if daemon_url:
        full["SIGNET_DAEMON_URL"] = daemon_url
    full.update(env or {})
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    argv = [*hook_command(harness), *([event] if event else [])]
    start = time.monotonic()
    proc = subprocess.run(argv, input=data, capture_output=True, env=full, timeout=timeout)
    return HookRun(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)


def sdk_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """The state directory a hook run under ``env`` (default: this process's) uses."""
    from signet_sdk.runtime.files import state_dir

    return Path(state_dir(os.environ if env is None else env))


def hook_log_lines(env: Mapping[str, str] | None = None) -> list[str]:
    path = sdk_state_dir(env) / "hooks.log"
    return path.read_text().splitlines() if path.exists() else []


def _outbox_files(env: Mapping[str, str] | None) -> list[Path]:
    """The outbox's entry files, oldest first (a write in progress is a dot file: left out)."""
    outbox = sdk_state_dir(env) / "outbox"
    if not outbox.exists():
        return []
    return sorted(p for p in outbox.glob("*.json") if not p.name.startswith("."))


def outbox_left(timeout: float = 10.0, env: Mapping[str, str] | None = None) -> list[str]:
    """Wait up to ``timeout`` for detached senders to drain the outbox; what is left."""
    end = time.monotonic() + timeout
    left: list[str] = []
    while True:
        left = [p.name for p in _outbox_files(env)]
        if not left or time.monotonic() >= end:
            return left
        time.sleep(0.05)


def outbox_entries(env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The writes waiting in the outbox now, oldest first, each as stored (``action``, ``body``)."""
    entries = []
    for path in _outbox_files(env):
        try:
            entries.append(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            continue  # delivered (and removed) between the listing and the read
    return entries
