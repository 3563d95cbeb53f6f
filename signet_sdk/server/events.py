"""Native events over HTTP: the hook runner's path, on the server's shared pool.

Every event goes through :func:`~signet_sdk.runtime.dispatch.dispatch_async`,
the function the hook runner's ``dispatch`` mirrors; only ``send`` differs.
Reads go straight to the daemon through the shared ``AsyncAdapterClient``.
Writes (session-end, checkpoints, compaction summaries, remember) follow the
one delivery policy the hook runner uses (``signet_sdk.hooks.delivery``:
outbox first, then delivered, the shared circuit breaker, what the daemon
cannot take now left pending for a detached sender), on a worker thread. An
event marked ``detach`` answers once its write is on disk and the server
delivers it in the background; an event marked ``flushes`` starts a
sender when older writes are still pending. The whole event runs inside its
deadline: past it the harness gets the neutral output and the reason.

An event sent with an id (a shim's transport makes one per native event)
stores its writes under ids made from it, the ids the hook process the shim
falls back to uses if this server goes away mid-event
(:class:`~signet_sdk.hooks.entry.EventWrites`). An id this server has run
already (a client that lost the answer and sent the event again) runs as a
repeat: what it finds in the outbox is not stored again, and the rest is sent
so that the daemon recognises it. A write the outbox cannot
hold (a state directory that is read-only, full, or a file) is sent directly,
within the event's deadline, and logged once: never an error to the harness.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from signet_sdk.hooks.delivery import STILL_PENDING
from signet_sdk.hooks.entry import EventWrites
from signet_sdk.hooks.process import hook_log
from signet_sdk.runtime.dispatch import Dispatched, dispatch_async, fail_open_output
from signet_sdk.runtime.events import async_client_sender
from signet_sdk.wire.errors import APITimeoutError
from signet_sdk.wire.lifecycle import LifecycleCall
from signet_sdk.wire.log import logger as log

if TYPE_CHECKING:
    from signet_sdk.client.async_client import AsyncAdapterClient
    from signet_sdk.hooks.delivery import Delivery
    from signet_sdk.hooks.outbox import Entry, Outbox
    from signet_sdk.runtime.plugin import HarnessPlugin

__all__ = ["EventRunner", "Handoff", "output_wire"]

#: Seconds kept back from the deadline for a write's own send, as the hook does.
_SEND_MARGIN = 0.05
#: How often an event marked ``flushes`` looks for writes left pending (a prompt
#: per second need not list the outbox each time).
_FLUSH_CHECK_SECONDS = 10.0
#: How many event ids a runner remembers, to know an event sent again.
_SEEN_EVENTS = 4096


class Handoff:
    """Background deliveries of the server, and the detached sender for what is left.

    ``spawn`` starts the hook runner's detached outbox sender (one at a time;
    it retries an unreachable daemon). ``drain`` runs on shutdown: it waits
    for deliveries still under way, then hands anything still pending to a
    sender, so stopping the server never strands a write.
    """

    def __init__(self, outbox: Outbox, env: Mapping[str, str]) -> None:
        self.outbox = outbox
        #: The sender's environment: it must reach the daemon this server uses.
        self.env = env
        self.tasks: set[asyncio.Task[Any]] = set()
        self.used = False

    def track(self, work: Awaitable[Any]) -> None:
        async def run() -> None:
            await work

        task = asyncio.ensure_future(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def spawn(self) -> None:
        from signet_sdk.hooks.sender import spawn_flusher

        try:
            spawn_flusher(dict(self.env))
        except Exception as exc:
            log.warning("could not start the outbox sender (entries stay pending): %s", exc)

    async def drain(self, timeout: float = 5.0) -> None:
        if self.tasks:
            await asyncio.wait(set(self.tasks), timeout=timeout)
        if self.used:
            left = await asyncio.to_thread(self.outbox.pending)
            if left:
                self.spawn()


class EventRunner:
    """Runs one plugin's native events for the server."""

    def __init__(
        self,
        plugin: HarnessPlugin,
        client: AsyncAdapterClient,
        handoff: Handoff,
        env: Mapping[str, str],
    ) -> None:
        self.plugin = plugin
        self.client = client
        self.handoff = handoff
        self.outbox = handoff.outbox
        self.env = env
        self.translator = plugin.make_translator(env)
        self._read = async_client_sender(client, plugin)
        self._next_flush_check = 0.0
        self._seen: OrderedDict[str, None] = OrderedDict()

    def deadline(self, event: str) -> float:
        spec = self.plugin.events.get(event)
        timeouts = self.client.config.timeouts
        return timeouts.for_class(spec.timeout_class if spec else "default") or 10.0

    async def run(
        self, event: str, payload: Mapping[str, Any], event_id: str | None = None
    ) -> tuple[Dispatched, list[str]]:
        """The event's outcome, and the ids of writes left pending in the outbox.

        ``event_id`` (already checked by ``valid_event_id``) names the event's writes.
        """
        writes = None
        if event_id is not None:
            writes = EventWrites(event_id, repeat=event_id in self._seen)
            self._seen[event_id] = None
            self._seen.move_to_end(event_id)
            if len(self._seen) > _SEEN_EVENTS:
                self._seen.popitem(last=False)
        seconds = self.deadline(event)
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        spec = self.plugin.events.get(event)
        if spec is not None and spec.flushes and loop.time() >= self._next_flush_check:
            # Beside the event, not before it: the answer never waits on the disk.
            self._next_flush_check = loop.time() + _FLUSH_CHECK_SECONDS
            self.handoff.track(self._replay_if_pending())
        pending: list[str] = []
        problems: list[Exception] = []
        detached = bool(spec and spec.detach)

        reads = 0

        async def send(call: LifecycleCall) -> Any:
            nonlocal reads
            if call.durable:
                return await self._durable(call, end, detached, pending, problems, writes)
            reads += 1
            if reads == 1:  # it starts with the event: the event's deadline is its own
                return await self._read(call)
            # A later read gets what is left of the event. The event's own timeout
            # cannot be relied on to stop it: a call whose deadline passes at the
            # same moment may take that cancellation as its own timeout, and the
            # event would go on to its next call.
            left = end - loop.time()
            if left <= _SEND_MARGIN:
                raise APITimeoutError(
                    f"the event's deadline of {seconds:.1f}s passed before {call.action}",
                    method="POST",
                    url=self.client.config.base_url,
                )
            timed = self.client.with_options(timeout=left)
            return await async_client_sender(timed, self.plugin)(call)

        try:
            run = await asyncio.wait_for(
                dispatch_async(self.translator, event, payload, send), timeout=seconds
            )
        except TimeoutError:
            reason = TimeoutError(f"deadline of {seconds:.1f}s reached")
            run = Dispatched(fail_open_output(self.translator, event, payload), [], [], reason)
        if run.error is None and problems:
            # The write is safe in the outbox, but the daemon has not taken it.
            run = Dispatched(run.output, run.calls, run.results, problems[0])
        if run.error is not None:
            # The line a hook process writes for the same event: hooks.log is where a
            # user looks, whichever path the event took.
            why = "payload rejected" if not run.calls else "daemon call failed"
            hook_log(
                f"{why}, failed open: {run.error}",
                harness=self.plugin.name,
                event=event,
                env=self.env,
            )
        return run, list(pending)

    async def _replay_if_pending(self) -> None:
        try:
            pending = await asyncio.to_thread(self.outbox.pending)
        except OSError as exc:
            log.warning("could not read the outbox (entries stay pending): %s", exc)
            return
        if pending:
            self.handoff.used = True
            self.handoff.spawn()

    def _say(self, action: str) -> Callable[[str], None]:
        def say(message: str) -> None:
            log.warning("%s %s: %s", self.plugin.name, action, message)

        return say

    def _delivery(self, end: float | None, writes: EventWrites | None = None) -> Delivery:
        """The delivery policy for one write, its sends inside what is left of ``end``."""
        from signet_sdk.hooks.delivery import Delivery

        loop = asyncio.get_running_loop()

        def left() -> float | None:
            return None if end is None else max(end - loop.time() - _SEND_MARGIN, _SEND_MARGIN)

        say = self._say("write")
        return Delivery(
            self.client.config,
            self.handoff.env,  # a sender it starts must reach this server's daemon
            log=say,
            left=left,
            transcript_roots=lambda: self.plugin.transcript_roots(self.env),
            outbox=self.outbox,
            event=writes,
        )

    async def _durable(
        self,
        call: LifecycleCall,
        end: float,
        detached: bool,
        pending: list[str],
        problems: list[Exception],
        writes: EventWrites | None = None,
    ) -> Any:
        """Hand one write to the outbox, then deliver it now (or in the background).

        When the outbox cannot hold it, it is sent now, inside the event's deadline.
        """
        delivery = self._delivery(None if detached else end, writes)
        entry_id = delivery.next_entry_id(call)
        try:
            entry = await asyncio.to_thread(delivery.put, call, entry_id=entry_id)
        except OSError as exc:
            delivery.refused(exc)
            direct = self._delivery(end, writes)
            return await asyncio.to_thread(direct.direct, call, entry_id=entry_id)
        self.handoff.used = True
        pending.append(entry.id)
        if detached:
            self.handoff.track(self._deliver(delivery, entry, [], []))
            return None
        answers: list[Any] = []
        outcome = await self._deliver(delivery, entry, answers, problems)
        if outcome not in STILL_PENDING:
            pending.remove(entry.id)
        return answers[0] if answers else None

    async def _deliver(
        self, delivery: Delivery, entry: Entry, answers: list[Any], problems: list[Exception]
    ) -> str:
        return await asyncio.to_thread(delivery.deliver, entry.id, answers, problems)


def output_wire(run: Dispatched, pending: list[str]) -> dict[str, Any]:
    """The answer of an event route: the structured output, why it is degraded, what is pending.

    ``pending`` lists the writes the daemon has not taken yet: they are safe in
    the outbox and a sender delivers them.
    """
    return {**run.output.to_wire(), "degraded": run.degraded, "pending": pending}
