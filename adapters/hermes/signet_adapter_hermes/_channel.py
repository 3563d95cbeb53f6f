"""How the provider's events reach the daemon: dispatch within a deadline, then ``Delivery``.

The provider decides nothing here; it hands each Hermes hook's payload to
:meth:`Channel.run`, which runs the core's ``dispatch`` with the pure
translator on a worker thread and gives up waiting at the event's deadline.
Every call then follows the one delivery policy the hook runner and the
adapter server use (``signet_sdk.hooks.delivery.Delivery``):

* a read goes to the daemon through one sync ``AdapterClient`` (its own
  timeouts and retries apply), unless the circuit breaker every hook
  process shares is open (``SIGNET_BREAKER_FAILURES`` failures in a row
  open it for ``SIGNET_BREAKER_COOLDOWN`` seconds);
* a write (``LifecycleCall.durable``) is put in the durable outbox,
  ``${XDG_STATE_HOME:-~/.local/state}/signet-sdk/outbox``, and delivered by
  one background thread in the order written (settled and resent as the
  daemon recognises a repeat); what the daemon does not take is left to
  the detached outbox sender, also started on shutdown.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from signet_sdk.hooks.delivery import STILL_PENDING, Delivery
from signet_sdk.hooks.writer import OrderedWriter
from signet_sdk.plugin import LifecycleCall, dispatch

from ._translate import TRANSLATOR

__all__ = ["BREAKER_SECONDS", "HARNESS", "Channel"]

log = logging.getLogger("signet_adapter_hermes")

HARNESS = "hermes-agent"
#: How long the shared breaker stays open by default, and the least time
#: between two starts of the detached sender for writes left pending.
BREAKER_SECONDS = 30.0


def _delivery_failed(entry_id: str, exc: BaseException) -> None:
    log.warning("signet: delivering %s failed: %s", entry_id, exc)


class Channel:
    """The provider's way to the daemon (see the module docstring)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self._lock = threading.Lock()
        self._client: Any = None
        self._delivery: Delivery | None = None
        self._writer = OrderedWriter(self._deliver, on_error=_delivery_failed)
        self._pending = False
        self._spawned = 0.0

    # -- the pieces, made on first use --------------------------------------

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                from signet_sdk import create_adapter

                self._client = create_adapter(HARNESS, env=self.env)
            return self._client

    @property
    def delivery(self) -> Delivery:
        """The delivery policy, on this provider's client settings and outbox."""
        if self._delivery is None:
            config = self.client.config  # (takes the lock itself)
            timeout = config.timeouts.for_class("default")
            made = Delivery(
                config,
                self.env,
                log=lambda line: log.info("signet: %s", line),
                left=lambda: timeout,
            )
            with self._lock:
                if self._delivery is None:
                    self._delivery = made
        return self._delivery

    @property
    def outbox(self) -> Any:
        return self.delivery.outbox()

    def deadline(self, event: str) -> float:
        """The event's budget in seconds, from its timeout class and ``SIGNET_*_TIMEOUT``."""
        from . import PLUGIN

        try:
            spec = PLUGIN.events.get(event)
            timeouts = self.client.config.timeouts
            seconds: float = timeouts.for_class(spec.timeout_class if spec else "default") or 10.0
        except Exception:
            seconds = 10.0
        return seconds

    # -- one event -------------------------------------------------------

    def run(self, event: str, payload: Mapping[str, Any], seconds: float | None = None) -> Any:
        """One hook through dispatch, within its deadline: the output's data, or None."""
        limit = self.deadline(event) if seconds is None else seconds
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["run"] = dispatch(TRANSLATOR, event, payload, self.send)
            except BaseException as exc:  # never into Hermes
                box["error"] = exc

        worker = threading.Thread(target=work, name=f"signet-{event}", daemon=True)
        worker.start()
        worker.join(limit)
        run = box.get("run")
        if run is None:
            why = box.get("error") or f"deadline of {limit:.1f}s reached"
            log.warning("signet: %s failed open: %s", event, why)
            return TRANSLATOR.fail_open(event, payload).data
        if run.error is not None:
            log.warning("signet: %s failed open: %s", event, run.error)
        return run.output.data

    def send(self, call: LifecycleCall) -> Any:
        """``send`` for dispatch: writes to the outbox, reads to the daemon (breaker first)."""
        if call.durable:
            self.write(call)
            return None
        from signet_sdk.plugin import client_sender

        from . import PLUGIN

        read = client_sender(self.client, PLUGIN)
        return self.delivery.guarded(lambda: read(call))

    # -- writes ----------------------------------------------------------

    def write(self, call: LifecycleCall) -> None:
        """Put one write in the durable outbox; the writer thread delivers it."""
        entry = self.delivery.put(call)
        self._writer.submit(entry.id)

    def _deliver(self, entry_id: str) -> None:
        if self.delivery.deliver(entry_id) in STILL_PENDING:
            self._pending = True  # the delivery started the sender for it

    def flush_if_pending(self) -> None:
        """Writes left from an earlier run (a daemon that was down): start the sender."""
        self.delivery.flush_if_pending()

    def spawn_sender(self) -> None:
        """Start the detached sender, at most once per ``BREAKER_SECONDS`` from here."""
        now = time.monotonic()
        if not self._spawned or now - self._spawned >= BREAKER_SECONDS:
            self._spawned = now
            self.delivery.spawn_sender()

    # -- tools -----------------------------------------------------------

    def tool(self, name: str, arguments: Mapping[str, Any], context: Any, allow: bool) -> Any:
        """One memory tool call: ``{"result": ...}`` or ``{"error": ..., "field"?: ...}``."""
        from signet_sdk import NotSentError, PayloadError, SignetError
        from signet_sdk.tools import ToolError, call_tool

        client = self.client
        try:
            result = self.delivery.guarded(
                lambda: call_tool(client, name, arguments, context=context, allow_commands=allow)
            )
        except PayloadError as exc:
            return {"error": str(exc), "field": exc.field}
        except ToolError as exc:
            return {"error": str(exc)}
        except NotSentError as exc:
            return {"error": f"{name} failed: the Signet daemon is unreachable ({exc})"}
        except SignetError as exc:
            return {"error": f"{name} failed: {exc}"}
        return {"result": result}

    def flush(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for every pending write to be attempted."""
        return self._writer.wait(seconds)

    def close(self, seconds: float) -> None:
        """Wait a moment for pending writes, hand what is left to the sender, close the client."""
        if not self.flush(seconds) or self._pending:
            self.delivery.spawn_sender()
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()
