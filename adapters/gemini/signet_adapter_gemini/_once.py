"""Each compression summary reported once, whichever Gemini hook process finds it first.

Gemini CLI 0.61 can run one event's hooks more than once: quitting the
interactive UI with ``/quit`` fires SessionEnd three times within a tenth of
a second (its exit cleanup runs from several places at once). The daemon
recognises a repeated session-end (its tombstone), but stores every
compaction-complete it is sent. So before a summary is sent, the hook
claims it: an empty file named after the session and the summary's message
id (Gemini gives every chat message its own id), created with ``O_EXCL``
under ``<state dir>/gemini-compactions``. Only the process that creates it
sends the summary. A claim that cannot be made (an unwritable state
directory) lets the summary go: a duplicate beats a loss. Claims older than
30 days are swept when a new one is made.

The same claim keeps an ``auto`` pre-compaction to one between two
compressions (its key names the latest summary): Gemini fires PreCompress
before every model request, and a compression it gives up on leaves the
token count that made it due.

Standard library only: the hook process imports this.
"""

from __future__ import annotations

from signet_sdk.plugin import StateFolder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["claim_summary"]

_FOLDER = "gemini-compactions"
_KEEP_DAYS = 30


def claim_summary(env: Mapping[str, str], session: str, message_id: str) -> bool:
    """True when this process is the first to report ``message_id`` (a summary, or a key)."""
    return StateFolder(env, _FOLDER, keep_days=_KEEP_DAYS).claim(session, message_id)
