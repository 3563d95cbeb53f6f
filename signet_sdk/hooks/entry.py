"""One outbox entry, and how the daemon recognises a repeat of it.

Every entry has an id from the moment the outbox writes it. A send that got
no answer leaves the entry *in doubt*; it is sent again only after it has
settled (``SETTLE_SECONDS``, or ``SIGNET_OUTBOX_SETTLE_SECONDS``), and then so
that the daemon can tell it is a repeat:

* ``remember``: the body carries ``sourceId`` (the entry id, unless the
  caller gave one) and ``idempotencyKey``; ``/api/memory/remember``
  answers a repeated ``(sourceType, sourceId)`` with the stored row
  (``deduped: true``), and the Rust daemon honours ``idempotencyKey``.
* ``session_end``: the daemon's 30-minute ended-session tombstone answers
  a repeat with ``duplicateSessionEnd: true``. It needs a runtime path (a
  harness whose plugin has none sends session-end at least once, not
  exactly once), and it lives in the daemon's memory: a repeat after the
  daemon restarted is summarised again.
* ``session_checkpoint_extract``: the transcript goes as a staged file,
  and the daemon's byte cursor makes a repeat a delta under 500 bytes
  (``skipped: true``). A transcript too large to stage goes inline, and an
  inline repeat is extracted again: at least once, not exactly once.
* ``compaction_complete``: the daemon has no de-duplication here, so the
  sender first looks for the summary among the session's summaries
  (``GET /api/sessions/summaries``) and sends only if it is not there.

Standard library only: the hook path imports this.
"""

from __future__ import annotations

import os

from signet_sdk.wire.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["SETTLE_SECONDS", "Entry", "entry_of", "settle_seconds", "stamp_identity"]


class Entry(Record):
    """One pending daemon call as stored on disk."""

    __slots__ = (
        "action",
        "agent_id",
        "body",
        "created",
        "harness",
        "id",
        "meta",
        "resend",
        "runtime_path",
        "transcript",
    )
    id: str
    action: str
    body: dict[str, Any]
    harness: str | None
    runtime_path: str | None
    agent_id: str | None
    created: float
    transcript: dict[str, Any] | None
    meta: dict[str, Any]
    #: True when an earlier send may have reached the daemon (this one is a repeat).
    resend: bool

    def __init__(
        self,
        id: str,
        action: str,
        body: dict[str, Any],
        harness: str | None,
        runtime_path: str | None,
        agent_id: str | None,
        created: float,
        transcript: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
        resend: bool = False,
    ) -> None:
        self._init(
            id=id,
            action=action,
            body=body,
            harness=harness,
            runtime_path=runtime_path,
            agent_id=agent_id,
            created=created,
            transcript=transcript,
            meta=meta or {},
            resend=resend,
        )


#: Seconds an in-doubt entry waits before it is sent again (``SIGNET_OUTBOX_SETTLE_SECONDS``).
SETTLE_SECONDS = 10.0


def stamp_identity(action: str, body: dict[str, Any], entry_id: str) -> dict[str, Any]:
    """Give a write the keys by which the daemon recognises a repeat of it.

    Only ``remember`` has such keys in the daemon's API: ``sourceId`` with
    ``sourceType`` (every version), and ``idempotencyKey``, which 0.145 and
    the Rust daemon de-duplicate on natively. A caller's own keys are kept:
    they are already the ones the caller wants.
    """
    if action == "remember":
        body.setdefault("sourceId", f"signet-sdk:{entry_id}")
        body.setdefault("idempotencyKey", entry_id)
    return body


def already_stored(action: str, body: Mapping[str, Any], error: str | None) -> bool:
    """Whether a 409 to a resend says the write is already stored, i.e. delivered.

    0.145 answers a memory write whose ``idempotencyKey`` is already taken
    (by the same write, chunked or not) with 409 "idempotencyKey already
    used ...": the key is this entry's own, so an earlier send landed.
    """
    return (
        action == "remember"
        and bool(body.get("idempotencyKey"))
        and "idempotencyKey already used" in (error or "")
    )


def settle_seconds() -> float:
    raw = os.environ.get("SIGNET_OUTBOX_SETTLE_SECONDS", "").strip()
    try:
        return min(max(float(raw), 0.0), 3600.0) if raw else SETTLE_SECONDS
    except ValueError:
        return SETTLE_SECONDS


def entry_of(record: Mapping[str, Any]) -> Entry:
    return Entry(
        id=str(record["id"]),
        action=str(record["action"]),
        body=dict(record["body"]),
        harness=record.get("harness"),
        runtime_path=record.get("runtimePath"),
        agent_id=record.get("agentId"),
        created=float(record.get("created", 0.0)),
        transcript=record.get("transcript"),
        meta=dict(record.get("meta") or {}),
    )
