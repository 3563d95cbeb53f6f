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
  (``GET /api/sessions/summaries``) and sends only if it is not there, or
  if the daemon that stored it stopped before it could reset the session's
  transcript (stored twice rather than turns lost: see the sender).

One native event, one id, end to end. A shim's transport makes an id for
each native event (:func:`valid_event_id` gives its shape) and sends it with
the event (the :data:`EVENT_ID_HEADER` header); the adapter server stores the
event's writes under entry ids made from it (:class:`EventWrites`). When
that server goes away in the middle of the event, the transport runs the
event as a hook process with the same id (``signet-sdk hook --event-id``),
whose writes get the same entry ids: a write the server left in the outbox
is found there (and sent, or settled first if it was in doubt) rather than
stored again, and a write not found there may already have been delivered
and removed, so it is stored as a *repeat*: sent at once, but as the resend
of an in-doubt entry is (``remember`` keys are the entry id, so they match
the server's too; a compaction summary is looked up first).

Standard library only: the hook path imports this.
"""

from __future__ import annotations

import os

from signet_sdk.wire.record import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "EVENT_ID_HEADER",
    "SETTLE_SECONDS",
    "Entry",
    "EventWrites",
    "entry_of",
    "settle_seconds",
    "stamp_identity",
    "valid_event_id",
]


class Entry(Record):
    """One pending daemon call as stored on disk."""

    id: str
    action: str
    body: dict[str, Any]
    harness: str | None
    runtime_path: str | None
    agent_id: str | None
    created: float
    transcript: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    #: True when an earlier send may have reached the daemon (this one is a repeat).
    resend: bool = False
    #: True when the daemon answered an earlier send with a server error: its
    #: handler stopped early, perhaps after storing part of the write.
    after_error: bool = False


#: Seconds an in-doubt entry waits before it is sent again (``SIGNET_OUTBOX_SETTLE_SECONDS``).
SETTLE_SECONDS = 10.0

#: The request header that carries a native event's id to the adapter server.
EVENT_ID_HEADER = "x-signet-event-id"


def valid_event_id(value: object) -> bool:
    """Whether ``value`` is an event id: ``<unix time in ns, 20 digits>-<8 to 64 letters
    or digits>``, as the transport makes them.

    The time in front keeps the outbox in the order events happened, and the
    id becomes part of file names: nothing else is accepted.
    """
    if not isinstance(value, str) or not 29 <= len(value) <= 85:
        return False
    stamp, dash, rest = value[:20], value[20:21], value[21:]
    return stamp.isascii() and stamp.isdigit() and dash == "-" and rest.isascii() and rest.isalnum()


class EventWrites:
    """The outbox entry ids of one native event's writes, made from the event's id.

    The n-th write of an action gets ``<event id>-<action>`` (``-<n>`` after
    the first): the same ids wherever the event runs, as long as it makes the
    same calls. ``repeat`` says this run may follow one that delivered them.
    """

    __slots__ = ("_counts", "event_id", "repeat")

    def __init__(self, event_id: str, *, repeat: bool = False) -> None:
        if not valid_event_id(event_id):
            raise ValueError(f"not an event id: {event_id!r}")
        self.event_id = event_id
        self.repeat = repeat
        self._counts: dict[str, int] = {}

    def entry_id(self, action: str) -> str:
        """The id of this event's next ``action`` write."""
        n = self._counts.get(action, 0) + 1
        self._counts[action] = n
        return f"{self.event_id}-{action}" if n == 1 else f"{self.event_id}-{action}-{n}"


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
    from signet_sdk.hooks.process import seconds_setting

    return seconds_setting(os.environ.get("SIGNET_OUTBOX_SETTLE_SECONDS", ""), SETTLE_SECONDS)


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
        resend=bool(record.get("repeat")),
    )
