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

from signet_sdk.plugin import StateFolder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["claim_summary"]

_FOLDER = "qwen-code-compactions"
_KEEP_DAYS = 30


def claim_summary(env: Mapping[str, str], session: str, summary: str) -> bool:
    """True when this process is the first to report ``summary`` for ``session``."""
    from hashlib import sha256

    digest = sha256(summary.encode("utf-8")).hexdigest()[:32]
    return StateFolder(env, _FOLDER, keep_days=_KEEP_DAYS).claim(session, digest)
