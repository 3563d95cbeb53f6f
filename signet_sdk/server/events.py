"""Native events over HTTP: the hook runner's path, on the server's shared pool.

Every event goes through :func:`~signet_sdk.runtime.dispatch.dispatch_async`,
the function the hook runner's ``dispatch`` mirrors; only ``send`` differs.
Reads go straight to the daemon through the shared ``AsyncAdapterClient``.
Writes (session-end, checkpoints, compaction summaries, remember) follow the
hook runner's outbox rules: the call is put in the durable outbox first,
then delivered; what the daemon cannot take now stays queued for a detached
sender. An event marked ``detach`` answers once its write is on disk and the
server delivers it in the background; an event marked ``replay`` starts a
sender when older writes are still queued. The whole event runs inside its
deadline: past it the harness gets the neutral output and the reason.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from signet_sdk.runtime.dispatch import Dispatched, dispatch_async
from signet_sdk.runtime.events import async_client_sender
from signet_sdk.wire.lifecycle import LifecycleCall
from signet_sdk.wire.log import logger as log

if TYPE_CHECKING:
    from signet_sdk.client.async_client import AsyncAdapterClient
    from signet_sdk.hooks.outbox import Entry, Outbox
    from signet_sdk.runtime.plugin import HarnessPlugin

__all__ = ["EventRunner", "Handoff", "default_outbox_dir", "output_wire"]

#: Seconds kept back from the deadline for a write's own send, as the hook does.
_SEND_MARGIN = 0.05
#: How often an event marked ``replay`` looks for writes left queued (a prompt
#: per second need not list the outbox each time).
_REPLAY_CHECK_SECONDS = 10.0
#: Outcomes of ``Outbox.deliver`` that leave the entry queued for a later sender.
_STILL_QUEUED = ("kept", "failed", "busy", "settling")


class Handoff:
    """Background deliveries of the server, and the detached sender for what is left.

    ``spawn`` starts the hook runner's detached outbox sender (one at a time;
    it retries an unreachable daemon). ``drain`` runs on shutdown: it waits
    for deliveries still under way, then hands anything still queued to a
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
        from signet_sdk.hooks.runner import spawn_flusher

        try:
            spawn_flusher(dict(self.env))
        except Exception as exc:
            log.warning("could not start the outbox sender (entries stay queued): %s", exc)

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
        self._next_replay_check = 0.0

    def deadline(self, event: str) -> float:
        spec = self.plugin.events.get(event)
        timeouts = self.client.config.timeouts
        return timeouts.for_class(spec.timeout_class if spec else "default") or 10.0

    async def run(self, event: str, payload: Mapping[str, Any]) -> tuple[Dispatched, list[str]]:
        """The event's outcome, and the ids of writes left queued in the outbox."""
        seconds = self.deadline(event)
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        spec = self.plugin.events.get(event)
        if spec is not None and spec.replay and loop.time() >= self._next_replay_check:
            # Beside the event, not before it: the answer never waits on the disk.
            self._next_replay_check = loop.time() + _REPLAY_CHECK_SECONDS
            self.handoff.track(self._replay_if_pending())
        queued: list[str] = []
        problems: list[Exception] = []
        detached = bool(spec and spec.detach)

        async def send(call: LifecycleCall) -> Any:
            if call.durable:
                return await self._durable(call, end, detached, queued, problems)
            return await self._read(call)

        try:
            run = await asyncio.wait_for(
                dispatch_async(self.translator, event, payload, send), timeout=seconds
            )
        except TimeoutError:
            reason = TimeoutError(f"deadline of {seconds:.1f}s reached")
            run = Dispatched(self.translator.neutral(event), [], [], reason)
        if run.error is None and problems:
            # The write is safe in the outbox, but the daemon has not taken it.
            run = Dispatched(run.output, run.calls, run.results, problems[0])
        return run, list(queued)

    async def _replay_if_pending(self) -> None:
        try:
            pending = await asyncio.to_thread(self.outbox.pending)
        except OSError as exc:
            log.warning("could not read the outbox (entries stay queued): %s", exc)
            return
        if pending:
            self.handoff.used = True
            self.handoff.spawn()

    def _say(self, action: str) -> Callable[[str], None]:
        def say(message: str) -> None:
            log.warning("%s %s: %s", self.plugin.name, action, message)

        return say

    def _put(self, call: LifecycleCall) -> Entry:
        """Snapshot the transcript and store the call durably (in a worker thread)."""
        from signet_sdk.runtime.transcripts import take_transcript

        roots = self.plugin.transcript_roots(self.env) or ()
        body, snapshot = take_transcript(call.body, roots, self._say(call.action))
        config = self.client.config
        return self.outbox.put(
            call.action,
            body,
            harness=config.harness,
            runtime_path=config.runtime_path,
            agent_id=config.agent_id,
            transcript=snapshot,
        )

    async def _durable(
        self,
        call: LifecycleCall,
        end: float,
        detached: bool,
        queued: list[str],
        problems: list[Exception],
    ) -> Any:
        """Hand one write to the outbox, then deliver it now (or in the background)."""
        entry = await asyncio.to_thread(self._put, call)
        self.handoff.used = True
        queued.append(entry.id)
        if detached:
            self.handoff.track(self._deliver(entry, None, [], []))
            return None
        answers: list[Any] = []
        outcome = await self._deliver(entry, end, answers, problems)
        if outcome not in _STILL_QUEUED:
            queued.remove(entry.id)
        return answers[0] if answers else None

    async def _deliver(
        self, entry: Entry, end: float | None, answers: list[Any], problems: list[Exception]
    ) -> str:
        from signet_sdk.hooks.runner import outbox_sender

        lean = outbox_sender(self.client.config)
        loop = asyncio.get_running_loop()

        def send_now(e: Entry, body: dict[str, Any]) -> Any:
            left = None if end is None else max(end - loop.time() - _SEND_MARGIN, _SEND_MARGIN)
            try:
                answer = lean(e, body, left)
            except Exception as exc:
                problems.append(exc)
                raise
            answers.append(answer)
            return answer

        outcome = await asyncio.to_thread(self.outbox.deliver, entry.id, send_now)
        if outcome in _STILL_QUEUED:
            self.handoff.spawn()
        return outcome


def output_wire(run: Dispatched, queued: list[str]) -> dict[str, Any]:
    """The answer of an event route: the structured output, why it is degraded, what is queued.

    ``queued`` lists the writes the daemon has not taken yet: they are safe in
    the outbox and a sender delivers them.
    """
    return {**run.output.to_wire(), "degraded": run.degraded, "queued": queued}


def default_outbox_dir(env: Mapping[str, str]) -> str:
    """The hook runner's outbox: ``${XDG_STATE_HOME:-~/.local/state}/signet-sdk/outbox``."""
    from signet_sdk.runtime.files import state_dir

    return os.path.join(state_dir(env), "outbox")
