"""The ``signet-sdk`` command an installer writes into a harness's files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["sdk_command"]

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
