"""Native events over HTTP: the hook runner's path, on the server's shared pool.

Reads go straight to the daemon through the shared ``AsyncAdapterClient``.
Writes (session-end, checkpoints, compaction summaries, remember) go to the
durable outbox first, exactly as the hook runner does, then are delivered;
a write the daemon cannot take now stays queued and a detached sender
retries it. The whole event runs inside its deadline: past it the harness
gets the neutral output and the reason, never a hang.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from signet_sdk.runtime.dispatch import Dispatched, dispatch_async
from signet_sdk.runtime.native import NativeOutput
from signet_sdk.wire.lifecycle import LifecycleCall
from signet_sdk.wire.log import logger as log

if TYPE_CHECKING:
    from signet_sdk.client.async_client import AsyncAdapterClient
    from signet_sdk.hooks.outbox import Entry, Outbox
    from signet_sdk.runtime.plugin import HarnessPlugin

__all__ = ["EventRunner"]


class EventRunner:
    """Runs one plugin's native events for the server."""

    def __init__(
        self,
        plugin: HarnessPlugin,
        client: AsyncAdapterClient,
        outbox: Outbox,
        env: Mapping[str, str],
    ) -> None:
        self.plugin = plugin
        self.client = client
        self.outbox = outbox
        self.env = env
        self.translator = plugin.make_translator(env)

    def deadline(self, event: str) -> float:
        spec = self.plugin.events.get(event)
        timeouts = self.client.config.timeouts
        return timeouts.for_class(spec.timeout_class if spec else "default") or 10.0

    async def run(self, event: str, payload: Mapping[str, Any]) -> tuple[Dispatched, list[str]]:
        """The event's outcome, and the ids of writes left queued in the outbox."""
        seconds = self.deadline(event)
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        queued: list[str] = []
        send = self._sender(end, queued)
        try:
            run = await asyncio.wait_for(
                dispatch_async(self.translator, event, payload, send), timeout=seconds
            )
        except TimeoutError:
            reason = TimeoutError(f"deadline of {seconds:.1f}s reached")
            run = Dispatched(self.translator.neutral(event), [], [], reason)
        if queued:
            self._hand_off()
        return run, list(queued)

    def _sender(self, end: float, queued: list[str]) -> Callable[[LifecycleCall], Awaitable[Any]]:
        async def send(call: LifecycleCall) -> Any:
            if call.durable:
                return await self._durable(call, end, queued)
            result = await self.client.call_lifecycle(call)
            return result.model_dump(mode="json", by_alias=True, exclude_unset=True)

        return send

    async def _durable(self, call: LifecycleCall, end: float, queued: list[str]) -> Any:
        from signet_sdk.runtime.transcripts import take_transcript

        def say(message: str) -> None:
            log.warning("%s %s: %s", self.plugin.name, call.action, message)

        roots = self.plugin.transcript_roots(self.env) or ()
        body, snapshot = take_transcript(call.body, roots, say)
        config = self.client.config
        entry = await asyncio.to_thread(
            self.outbox.put,
            call.action,
            body,
            harness=config.harness,
            runtime_path=config.runtime_path,
            agent_id=config.agent_id,
            transcript=snapshot,
        )
        queued.append(entry.id)
        from signet_sdk.hooks.runner import outbox_sender

        answers: list[Any] = []
        lean = outbox_sender(config)
        loop = asyncio.get_running_loop()

        def deliver() -> str:
            def send_now(e: Entry, b: dict[str, Any]) -> Any:
                answer = lean(e, b, max(end - loop.time() - 0.05, 0.05))
                answers.append(answer)
                return answer

            return self.outbox.deliver(entry.id, send_now)

        outcome = await asyncio.to_thread(deliver)
        if outcome == "sent":
            queued.remove(entry.id)
        return answers[0] if answers else None

    def _hand_off(self) -> None:
        """Something stayed queued: a detached sender retries it (as a hook would)."""
        from signet_sdk.hooks.runner import spawn_flusher

        try:
            spawn_flusher(dict(self.env))
        except OSError as exc:
            log.warning("could not start the outbox sender (entries stay queued): %s", exc)


def output_wire(run: Dispatched, queued: list[str]) -> dict[str, Any]:
    """The answer of an event route: the structured output, why it is degraded, what is queued.

    ``queued`` lists the writes the daemon has not taken yet: they are safe in
    the outbox and a detached sender delivers them.
    """
    output: NativeOutput = run.output
    return {**output.to_wire(), "degraded": run.degraded, "queued": queued}


def default_outbox_dir(env: Mapping[str, str]) -> str:
    from signet_sdk.runtime.files import state_dir

    return os.path.join(state_dir(env), "outbox")
