"""The ``signet-sdk`` command an installer writes into a harness's files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from signet_sdk.wire.config import Timeouts

__all__ = ["hook_timeouts", "sdk_command"]

_PROGRAM = "signet-sdk"


def sdk_command(python: str | None = None) -> list[str]:
    """The ``signet-sdk`` command of ``python``'s environment, as absolute words.

    No PATH lookup: the harness runs it from its own environment, where the
    user's PATH may differ. The console script beside the interpreter when
    there is one, else ``<python> -m signet_sdk``.
    """
    exe = os.path.abspath(python or sys.executable)
    script = Path(exe).parent / _PROGRAM
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [exe, "-m", "signet_sdk"]


def hook_timeouts(env: Mapping[str, str] | None = None) -> Timeouts:
    """The deadlines the hooks will run with under ``env`` (its variables, else the defaults).

    An installer registers each hook with the harness's own timeout a
    margin above these, so the harness never kills a hook still inside its
    deadline.
    """
    from signet_sdk.wire.config import resolve_config

    return resolve_config(env=dict(env or {})).timeouts
