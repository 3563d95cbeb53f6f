"""How the provider's events reach the daemon: dispatch within a deadline, outbox, breaker.

The provider decides nothing here; it hands each Hermes hook's payload to
:meth:`Channel.run`, which runs the core's ``dispatch`` with the pure
translator on a worker thread and gives up waiting at the event's deadline.
``send`` follows the hook runner's rules:

* a read goes to the daemon through one sync ``AdapterClient`` (its own
  timeouts and retries apply), unless the breaker is open;
* a write (``LifecycleCall.durable``) is put in the hook runner's durable
  outbox, ``${XDG_STATE_HOME:-~/.local/state}/signet-sdk/outbox``, and
  delivered by one background thread in the order written; what the daemon
  does not take is left to the detached outbox sender, started at most once
  per breaker period and again on shutdown.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from signet_sdk.runtime.dispatch import dispatch
from signet_sdk.wire.errors import APIConnectionError, APITimeoutError, NotSentError
from signet_sdk.wire.lifecycle import LifecycleCall

from ._translate import TRANSLATOR

__all__ = ["BREAKER_SECONDS", "HARNESS", "Channel"]

log = logging.getLogger("signet_adapter_hermes")

HARNESS = "hermes-agent"
#: How long reads skip a daemon that refused a connection.
BREAKER_SECONDS = 30.0
#: Outcomes of ``Outbox.deliver`` that leave the entry queued for a later sender.
_STILL_QUEUED = ("kept", "failed", "busy")


class _Breaker:
    """Open for ``seconds`` after a connection failure; reads skip the daemon meanwhile.

    It also keeps the breaker every hook process shares
    (:mod:`signet_sdk.hooks.breaker`, ``SIGNET_BREAKER_FAILURES`` /
    ``SIGNET_BREAKER_COOLDOWN``): failures here count there, and while the
    hooks' breaker is open this process skips the daemon too.
    """

    def __init__(self, seconds: float, env: Mapping[str, str]) -> None:
        from signet_sdk.hooks.breaker import breaker_for

        self.seconds = seconds
        self._until = 0.0
        try:
            self.shared = breaker_for(env)
        except Exception:  # an unusable state directory: this process's breaker only
            self.shared = None

    def trip(self) -> None:
        self._until = time.monotonic() + self.seconds

    def record(self, exc: BaseException) -> None:
        """A failed call: counted by the shared breaker when it says the daemon is not well."""
        from signet_sdk.hooks.breaker import counts_as_failure

        if self.shared is not None and counts_as_failure(exc):
            with contextlib.suppress(OSError):
                self.shared.failed(log.warning)

    def reset(self) -> None:
        self._until = 0.0
        if self.shared is not None:
            with contextlib.suppress(OSError):
                self.shared.succeeded()

    @property
    def open(self) -> bool:
        if time.monotonic() < self._until:
            return True
        try:
            return self.shared is not None and self.shared.open_for() > 0
        except OSError:
            return False


class _Writer:
    """One background thread delivering outbox entries in the order they were put."""

    def __init__(self, deliver: Callable[[str], None]) -> None:
        self._deliver = deliver
        self._queue: list[str] = []
        self._cond = threading.Condition()
        self._busy = False
        self._thread: threading.Thread | None = None

    def submit(self, entry_id: str) -> None:
        with self._cond:
            self._queue.append(entry_id)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="signet-outbox", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._queue:
                    self._busy = False
                    self._thread = None
                    self._cond.notify_all()
                    return
                entry_id = self._queue.pop(0)
                self._busy = True
            try:
                self._deliver(entry_id)
            except Exception as exc:  # the entry stays queued for the sender
                log.warning("signet: delivering %s failed: %s", entry_id, exc)

    def wait(self, seconds: float) -> bool:
        """True once every submitted write was attempted, False when time ran out."""
        end = time.monotonic() + seconds
        with self._cond:
            while self._queue or self._busy:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True


class Channel:
    """The provider's way to the daemon (see the module docstring)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.breaker = _Breaker(BREAKER_SECONDS, env)
        self._lock = threading.Lock()
        self._client: Any = None
        self._outbox: Any = None
        self._writer = _Writer(self._deliver)
        self._queued = False
        self._spawned = 0.0

    # -- the pieces, made on first use --------------------------------------

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                from signet_sdk.runtime.registry import create_adapter

                self._client = create_adapter(HARNESS, env=self.env)
            return self._client

    @property
    def outbox(self) -> Any:
        with self._lock:
            if self._outbox is None:
                from signet_sdk.hooks.outbox import Outbox, state_dir

                root = os.path.join(state_dir(self.env), "outbox")
                self._outbox = Outbox(root, log=lambda line: log.info("signet outbox: %s", line))
            return self._outbox

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
            return None
        if run.error is not None:
            log.warning("signet: %s failed open: %s", event, run.error)
        return run.output.data

    def send(self, call: LifecycleCall) -> Any:
        """``send`` for dispatch: writes to the outbox, reads to the daemon."""
        if call.durable:
            self.write(call)
            return None
        self.check_breaker()
        from signet_sdk.runtime.events import client_sender

        from . import PLUGIN

        try:
            answer = client_sender(self.client, PLUGIN)(call)
        except APIConnectionError as exc:
            self.trip_on(exc)
            raise
        except Exception as exc:
            self.breaker.record(exc)
            raise
        self.breaker.reset()
        return answer

    def trip_on(self, exc: APIConnectionError) -> None:
        """Open the breaker for a daemon that cannot be reached; a slow answer does not.

        A timeout already cost that hook its deadline and the next may be
        quick; a refused or dropped connection will be refused again.
        """
        self.breaker.record(exc)
        if not isinstance(exc, APITimeoutError):
            self.breaker.trip()

    def check_breaker(self) -> None:
        """Raise ``NotSentError`` while the breaker is open."""
        if self.breaker.open:
            raise NotSentError(
                f"the daemon refused a connection less than {BREAKER_SECONDS:.0f}s ago",
                method="POST",
                url=self.client.config.base_url,
            )

    # -- writes ----------------------------------------------------------

    def write(self, call: LifecycleCall) -> None:
        """Put one write in the durable outbox; the writer thread delivers it."""
        config = self.client.config
        entry = self.outbox.put(
            call.action,
            dict(call.body),
            harness=config.harness,
            runtime_path=config.runtime_path,
            agent_id=config.agent_id,
        )
        self._writer.submit(entry.id)

    def _deliver(self, entry_id: str) -> None:
        if self.breaker.open:
            self._left_queued()
            return
        from signet_sdk.hooks.runner import outbox_sender

        config = self.client.config
        send = outbox_sender(config)
        timeout = config.timeouts.for_class("default")

        def send_now(entry: Any, body: dict[str, Any]) -> Any:
            try:
                return send(entry, body, timeout=timeout)
            except APIConnectionError as exc:
                self.trip_on(exc)
                raise

        if self.outbox.deliver(entry_id, send_now) in _STILL_QUEUED:
            self._left_queued()

    def _left_queued(self) -> None:
        """A write stays queued: start the detached sender, at most once per breaker period."""
        self._queued = True
        now = time.monotonic()
        if now - self._spawned >= BREAKER_SECONDS or not self._spawned:
            self._spawned = now
            self.spawn_sender()

    def replay_if_pending(self) -> None:
        """Writes left from an earlier run (a daemon that was down): start the sender."""
        try:
            if self.outbox.pending():
                self.spawn_sender()
        except OSError as exc:
            log.warning("signet: could not read the outbox: %s", exc)

    def spawn_sender(self) -> None:
        from signet_sdk.hooks.runner import spawn_flusher

        try:
            spawn_flusher(self.env)
        except Exception as exc:
            log.warning("signet: could not start the outbox sender (writes stay queued): %s", exc)

    # -- tools -----------------------------------------------------------

    def tool(self, name: str, arguments: Mapping[str, Any], context: Any, allow: bool) -> Any:
        """One memory tool call: ``{"result": ...}`` or ``{"error": ..., "field"?: ...}``."""
        from signet_sdk.tools import ToolError, call_tool
        from signet_sdk.wire.errors import PayloadError, SignetError

        try:
            self.check_breaker()
            result = call_tool(self.client, name, arguments, context=context, allow_commands=allow)
        except PayloadError as exc:
            return {"error": str(exc), "field": exc.field}
        except ToolError as exc:
            return {"error": str(exc)}
        except NotSentError as exc:
            return {"error": f"{name} failed: the Signet daemon is unreachable ({exc})"}
        except APIConnectionError as exc:
            self.trip_on(exc)
            return {"error": f"{name} failed: {exc}"}
        except SignetError as exc:
            return {"error": f"{name} failed: {exc}"}
        return {"result": result}

    def flush(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for every queued write to be attempted."""
        return self._writer.wait(seconds)

    def close(self, seconds: float) -> None:
        """Wait a moment for queued writes, hand what is left to the sender, close the client."""
        if not self.flush(seconds) or self._queued:
            self.spawn_sender()
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()
