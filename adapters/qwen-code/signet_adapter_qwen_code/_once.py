"""A compaction summary reported once, however many hook processes receive it.

The daemon keeps every compaction-complete it is sent as a memory of its
own. Qwen Code fires PostCompact once per compaction, but runs every
configured handler: installed from two environments (two different
``signet-sdk`` paths, one in the user's settings and one in the project's),
both would report the same summary. Before a summary is sent the hook
claims it: an empty file named after the session and a digest of the
summary, created with ``O_EXCL`` under ``<state dir>/qwen-code-compactions``.
Only the process that creates it sends. A claim that cannot be made (an
unwritable state directory) lets the summary through: a duplicate is better
than a loss. Claims older than 30 days are swept when a new one is made.

Standard library only: the hook process imports this.
"""

from __future__ import annotations

import os
import time

from signet_sdk.plugin import private_dir, state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["claim_summary"]

_FOLDER = "qwen-code-compactions"
_KEEP_SECONDS = 30 * 24 * 3600


def _key(session: str, summary: str) -> str:
    from hashlib import sha256

    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in session)[:80]
    return f"{safe}--{sha256(summary.encode('utf-8')).hexdigest()[:32]}"


def claim_summary(env: Mapping[str, str], session: str, summary: str) -> bool:
    """True when this process is the first to report ``summary`` for ``session``."""
    try:
        folder = private_dir(os.path.join(private_dir(state_dir(env)), _FOLDER))
    except OSError:
        return True
    path = os.path.join(folder, _key(session, summary))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        os.close(os.open(path, flags, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return True
    _sweep(folder, time.time() - _KEEP_SECONDS)
    return True


def _sweep(folder: str, before: float) -> None:
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if os.lstat(path).st_mtime < before:
                os.unlink(path)
        except OSError:
            continue
