"""What the Copilot hooks keep under the SDK's state folder.

* **Claims.** A compaction's summary is reported by whichever reporting
  hook first finds it in ``events.jsonl``, but two hooks can find it at
  once: sessionStart and userPromptSubmitted run together, and a hook
  installed for the user and for a trusted project runs twice. The daemon
  stores every compaction-complete it is sent, so a summary is claimed
  first: an empty file named after the session and the compaction's event
  id, created with ``O_EXCL`` under ``<state dir>/copilot-compactions``.
  Only the process that creates it reports the summary, and it hands the
  write to the durable outbox right after. A claim that cannot be made (an
  unwritable state directory) lets the summary go: a duplicate beats a loss.
* **Cursors.** Beside the claims, ``<session>.cursor`` holds how far into
  the session's ``events.jsonl`` compactions were looked for (the end of
  the last whole line read), so each hook reads only what was written since
  the last one, however long the session.
* **Conversations.** The conversation derived from a session's
  ``events.jsonl`` is written to ``<state dir>/copilot-transcripts/
  <session>.jsonl`` (0600, in a 0700 folder, replaced atomically), which
  is what checkpoints and the session end hand to the daemon. It only
  grows as the session goes on, so the daemon's byte cursor sees each turn
  once.

Claims and cursors are swept 180 days after their last change (a session
resumed after that could report an old summary again), conversations after
30 days (they are rebuilt when needed), each when a new file is made there.
Standard library only: the hook process imports this.
"""

from __future__ import annotations

from signet_sdk.plugin import StateFolder

from ._paths import CONVERSATIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["claim_compaction", "read_cursor", "write_conversation", "write_cursor"]

_CLAIMS = "copilot-compactions"
#: Claims and cursors outlive any session that may still be resumed.
_KEEP_CLAIMS_DAYS = 180
#: A conversation file is rebuilt from events.jsonl whenever it is needed.
_KEEP_CONVERSATIONS_DAYS = 30


def _claims(env: Mapping[str, str]) -> StateFolder:
    return StateFolder(env, _CLAIMS, keep_days=_KEEP_CLAIMS_DAYS)


def claim_compaction(env: Mapping[str, str], session: str, event_id: str) -> bool:
    """True when this process is the first to report the compaction ``event_id``."""
    return _claims(env).claim(session, event_id)


def read_cursor(env: Mapping[str, str], session: str) -> int:
    """How far into the session's events.jsonl compactions were already looked for (bytes)."""
    text = (_claims(env).read(f"{StateFolder.name(session)}.cursor", 32) or b"").strip()
    return int(text) if text.isdigit() else 0


def write_cursor(env: Mapping[str, str], session: str, offset: int) -> None:
    """Remember ``offset`` as looked at; a failure only means looking again (claims hold)."""
    try:  # noqa: SIM105 (no contextlib on the hook path)
        _claims(env).replace(f"{StateFolder.name(session)}.cursor", str(offset).encode())
    except OSError:
        pass


def write_conversation(env: Mapping[str, str], session: str, data: bytes) -> str | None:
    """Keep ``data`` as the session's conversation file; its path, or None when it cannot be."""
    folder = StateFolder(env, CONVERSATIONS, keep_days=_KEEP_CONVERSATIONS_DAYS)
    return folder.keep(session, data)
