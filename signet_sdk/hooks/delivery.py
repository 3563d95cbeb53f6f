"""How a lifecycle call reaches the daemon: the one delivery policy.

The hook runner, the adapter server and the in-process Hermes provider all
send through a :class:`Delivery`, so they cannot drift apart:

* **Writes go outbox-first.** A durable call (session end, checkpoint,
  compaction complete, remember) is snapshotted with its transcript and put
  in the durable outbox before anything is sent; then it is delivered now,
  or left to the detached sender (an event the harness kills early, a daemon
  that cannot take it yet). An entry whose send got no answer *settles*
  before it is sent again, and is resent so that the daemon recognises a
  repeat (:mod:`signet_sdk.hooks.entry`). A write that no outbox can hold
  (a state directory that is read-only, full, or not a folder) is sent
  directly instead, and that is said once, not once per write.
* **One id per native event**, when the event has one (a shim's transport
  makes it): its writes are stored under ids made from it, so the hook
  process a shim falls back to after its adapter server went away finds
  what the server stored, or sends what it cannot find as a repeat.
* **One circuit breaker** (:mod:`signet_sdk.hooks.breaker`, shared by every
  process through a small state file): while it is open a call is not made
  at all and raises :class:`~signet_sdk.wire.errors.BreakerOpenError`;
  every call's outcome opens or closes it.
* **Reads go straight to the daemon** over the standard-library transport,
  inside what is left of the event's deadline.

The hook path reads as one descent: the runner calls ``dispatch``, which
calls :meth:`Delivery.send`, which calls the outbox and the wire; nothing
here calls back into the runner. Standard library only: every hook imports
this.
"""

from __future__ import annotations

import os

from signet_sdk.hooks.sender import outbox_sender, spawn_flusher

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, TypeVar

    from signet_sdk.hooks.entry import EventWrites
    from signet_sdk.hooks.outbox import Entry, Outbox
    from signet_sdk.wire.config import ClientConfig
    from signet_sdk.wire.lifecycle import LifecycleCall

    T = TypeVar("T")

__all__ = ["STILL_PENDING", "Delivery"]

#: Outcomes of ``Outbox.deliver`` that leave the entry pending for a later sender.
STILL_PENDING = ("kept", "failed", "busy", "settling", "waiting")


class Delivery:
    """Sends one process's lifecycle calls to the daemon under the policy above.

    ``left`` gives the seconds a send may still take (the event's deadline,
    less what the caller keeps back to exit); None means no deadline.
    ``transcript_roots()`` gives the folders a transcript path may be read
    from (asked only when a write carries one: it may import the harness's
    path rules). ``event`` gives the ids of the event's writes, when the
    event has an id (:class:`~signet_sdk.hooks.entry.EventWrites`).
    """

    def __init__(
        self,
        config: ClientConfig,
        env: Mapping[str, str],
        *,
        log: Callable[[str], None],
        left: Callable[[], float | None] = lambda: None,
        transcript_roots: Callable[[], Sequence[str] | None] = lambda: None,
        outbox: Outbox | None = None,
        hold: Callable[[], Any] | None = None,
        event: EventWrites | None = None,
        held: Exception | None = None,
    ) -> None:
        self.config = config
        #: A context manager factory around the outbox write (the hook's deadline
        #: timer must not end the process halfway through writing an entry).
        self.hold = hold or _Unheld
        self.env = env
        self.log = log
        self.left = left
        self.transcript_roots = transcript_roots
        self._outbox = outbox
        self.event = event
        #: Why nothing may be sent (the daemon's address cannot be read): then
        #: writes are only kept in the outbox and reads fail with this error.
        self.held = held
        self._breaker: Any = False  # not looked up yet

    # -- the breaker -------------------------------------------------------

    def breaker(self) -> Any:
        if self._breaker is False:
            from signet_sdk.hooks.breaker import breaker_for

            try:
                self._breaker = breaker_for(self.env, self.config.base_url)
            except OSError as exc:  # an unusable state directory: no shared breaker
                self.log(f"circuit breaker unavailable: {exc}")
                self._breaker = None
        return self._breaker

    def guarded(self, call: Callable[[], T]) -> T:
        """Make one daemon call unless the breaker is open; tell the breaker how it went."""
        breaker = self.breaker()
        if breaker is not None:
            wait = breaker.open_for()
            if wait > 0:
                from signet_sdk.wire.errors import BreakerOpenError

                raise BreakerOpenError(wait, url=self.config.base_url)
        try:
            result = call()
        except Exception as exc:
            from signet_sdk.hooks.breaker import counts_as_failure

            if breaker is not None and counts_as_failure(exc):
                breaker.failed(self.log)
            raise
        if breaker is not None:
            breaker.succeeded()
        return result

    # -- reads -------------------------------------------------------------

    def read(self, call: LifecycleCall) -> Any:
        """A call that stores nothing: straight to the daemon, within what is left."""
        from signet_sdk.wire.lean import LeanClient

        client = LeanClient(self.config)

        def call_once() -> Any:
            answer = client.call(call.action, call.body, timeout=self.left())
            if isinstance(answer, str | bytes):  # a 2xx that is not JSON: not the daemon's answer
                from signet_sdk.wire.errors import APIResponseValidationError

                raise APIResponseValidationError(
                    f"{call.action}: the daemon's answer is not JSON",
                    method="POST",
                    url=self.config.base_url,
                    body=answer[:200],
                )
            return answer

        return self.guarded(call_once)

    # -- writes ------------------------------------------------------------

    def outbox(self) -> Outbox:
        """The outbox given, else the state directory's (checked when a write is put)."""
        if self._outbox is None:
            from signet_sdk.hooks.outbox import Outbox

            self._outbox = Outbox(env=self.env, log=self.log)
        return self._outbox

    def next_entry_id(self, call: LifecycleCall) -> str | None:
        """The id this write is stored under when the event has one, else None (a new id)."""
        return None if self.event is None else self.event.entry_id(call.action)

    def put(self, call: LifecycleCall, *, entry_id: str | None = None) -> Entry:
        """Snapshot the call's transcript and store the call durably (raises OSError).

        ``entry_id`` (from :meth:`next_entry_id`) finds the entry an earlier run
        of the same event stored, or stores this one under it.
        """
        from signet_sdk.runtime.transcripts import take_transcript

        body, snapshot = take_transcript(call.body, self.transcript_roots() or (), self.log)
        config = self.config
        with self.hold():
            return self.outbox().put(
                call.action,
                body,
                harness=config.harness,
                runtime_path=config.runtime_path,
                agent_id=config.agent_id,
                transcript=snapshot,
                entry_id=entry_id,
                repeat=self.event is not None and self.event.repeat,
            )

    def refused(self, exc: OSError) -> None:
        """The outbox cannot hold a write: said once while that lasts, not once per write."""
        if self.outbox().refused(exc):
            self.log(f"outbox unusable ({exc}): writes are sent directly, without a durable copy")

    def deliver(
        self,
        entry_id: str,
        answers: list[Any] | None = None,
        problems: list[Exception] | None = None,
    ) -> str:
        """Send one stored entry now; what the daemon does not take goes to the sender.

        The daemon's answer is appended to ``answers`` and a failed send's
        error to ``problems``; the outcome is ``Outbox.deliver``'s (``sent``,
        ``dead``, or one of :data:`STILL_PENDING`).
        """
        send = outbox_sender(self.config)

        def send_now(entry: Entry, body: dict[str, Any]) -> Any:
            try:
                result = self.guarded(lambda: send(entry, body, timeout=self.left()))
            except Exception as exc:
                if problems is not None:
                    problems.append(exc)
                raise
            if answers is not None:
                answers.append(result)
            return result

        outcome = self.outbox().deliver(entry_id, send_now)
        if outcome in STILL_PENDING:
            self.spawn_sender()
        return outcome

    def write(self, call: LifecycleCall, *, detached: bool = False) -> Any:
        """A durable call: outbox first, then sent now (or by the sender); the answer or None."""
        entry_id = self.next_entry_id(call)
        try:
            entry = self.put(call, entry_id=entry_id)
        except OSError as exc:
            # No safe place to keep it (a state directory that is read-only, full,
            # a link or not ours): send it now, once, rather than drop it.
            self.refused(exc)
            return self.direct(call, entry_id=entry_id)
        if detached:
            self.spawn_sender()
            return None
        answers: list[Any] = []
        self.deliver(entry.id, answers)
        return answers[0] if answers else None

    def direct(self, call: LifecycleCall, *, entry_id: str | None = None) -> Any:
        """Send a write now, once, with its transcript inline: for when no outbox can hold it.

        It is sent as the outbox would send an entry stored under ``entry_id``
        (a new id when None): the same keys for ``remember``, and, when the
        event may have run before (``event.repeat``), as a repeat.
        """
        import time

        from signet_sdk.hooks.entry import Entry, stamp_identity
        from signet_sdk.runtime.transcripts import fit_inline_transcript, take_transcript

        body, snapshot = take_transcript(call.body, self.transcript_roots() or (), self.log)
        if snapshot is not None:
            text, _ = fit_inline_transcript(body, snapshot.data)
            if text:
                body["transcript"] = text
        config = self.config
        entry = Entry(
            entry_id or f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(3).hex()}",
            call.action,
            body,
            config.harness,
            config.runtime_path,
            config.agent_id,
            time.time(),
            resend=self.event is not None and self.event.repeat,
        )
        stamp_identity(call.action, body, entry.id)
        send = outbox_sender(config)
        return self.guarded(lambda: send(entry, body, timeout=self.left()))

    def send(self, call: LifecycleCall, *, detached: bool = False) -> Any:
        """``send`` for dispatch: writes through the outbox, reads straight to the daemon."""
        if self.held is not None:
            return self.keep(call)
        return self.write(call, detached=detached) if call.durable else self.read(call)

    def keep(self, call: LifecycleCall) -> None:
        """While nothing may be sent: a write is kept in the outbox, a read fails."""
        if self.held is None or not call.durable:
            raise self.held or ValueError("keep() is for a delivery that is held")
        try:
            self.put(call, entry_id=self.next_entry_id(call))
        except OSError as exc:
            self.log(f"{call.action} could not be kept ({exc}) and cannot be sent: {self.held}")

    # -- the detached sender -----------------------------------------------

    def spawn_sender(self) -> None:
        """Start the detached outbox sender (one at a time); a failure leaves entries pending."""
        try:
            spawn_flusher(self.env)
        except Exception as exc:
            self.log(f"could not start the outbox sender (entries stay pending): {exc}")

    def flush_if_pending(self) -> bool:
        """Start the sender when older writes are still pending; True when some were."""
        try:
            pending = bool(self.outbox().pending())
        except OSError as exc:
            self.log(f"could not read the outbox (entries stay pending): {exc}")
            return False
        if pending:
            self.spawn_sender()
        return pending


class _Unheld:
    """No hold at all (``contextlib`` is not imported on the hook path)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
