"""The Hermes Agent ``MemoryProvider``: each hook through the core's translate-dispatch path.

Hermes (PyPI ``hermes-agent``) loads one external memory provider, named by
``memory.provider`` in ``$HERMES_HOME/config.yaml``, from
``$HERMES_HOME/plugins/<name>/__init__.py`` (plugins/memory/__init__.py in
hermes-agent 0.19). ``signet-sdk install hermes-agent`` writes that file;
it calls :func:`register`, which builds this provider as a subclass of
Hermes's own ``MemoryProvider`` ABC. This module never imports Hermes.

Every hook runs in the Hermes process, on the thread Hermes calls it from,
and follows the rules of the hook runner:

* Reads (session-start, prompt-submit, pre-compaction) go to the daemon
  through one ``AdapterClient`` and are bounded by the event's deadline
  (``SIGNET_SESSION_START_TIMEOUT``, ``SIGNET_PROMPT_SUBMIT_TIMEOUT``,
  ``SIGNET_FETCH_TIMEOUT``); past it Hermes gets the neutral answer.
* Writes (checkpoints, session-end, compaction summaries, remembered
  memories) are put in the durable outbox the hook runner uses and
  delivered by one background thread in order; what the daemon does not
  take is left to the detached outbox sender. A hook returns once its
  write is on disk.
* After a connection failure the daemon is not asked again for
  ``BREAKER_SECONDS``: each read answers neutral at once instead of waiting
  out its deadline on every turn (writes still queue).
* Nothing raises into Hermes: any failure is logged and the hook returns
  what Hermes expects when no provider helps ("" or None).
* ``SIGNET_BYPASS=1`` or ``SIGNET_NO_HOOKS=1`` turns the automatic hooks
  off; the memory tools stay.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from signet_sdk.runtime.dispatch import dispatch
from signet_sdk.wire.errors import APIConnectionError, NotSentError, SignetError
from signet_sdk.wire.lifecycle import LifecycleCall

from ._translate import TRANSLATOR

__all__ = ["BREAKER_SECONDS", "PROVIDER_NAME", "SignetMemoryProvider", "register"]

log = logging.getLogger("signet_adapter_hermes")

#: The name Hermes knows the provider by (``memory.provider``) and its plugin folder.
PROVIDER_NAME = "signet"
HARNESS = "hermes-agent"
#: How long reads skip a daemon that refused a connection.
BREAKER_SECONDS = 30.0
#: Hermes abandons an external prefetch after 8 s (agent/memory_manager.py
#: ``_EXTERNAL_PREFETCH_TIMEOUT_S``) and skips the provider while that thread
#: lives, so a prefetch never waits longer than this.
PREFETCH_CAP = 7.5
#: How long ``shutdown`` waits for queued writes before leaving them to the sender.
SHUTDOWN_WAIT = 5.0


class _Breaker:
    """Open for ``seconds`` after a connection failure; reads skip the daemon meanwhile."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._until = 0.0

    def trip(self) -> None:
        self._until = time.monotonic() + self.seconds

    def reset(self) -> None:
        self._until = 0.0

    @property
    def open(self) -> bool:
        return time.monotonic() < self._until


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
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="signet-outbox", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._queue:
                    self._busy = False
                    self._cond.notify_all()
                    self._thread = None
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


def _bypassed(env: Mapping[str, str]) -> bool:
    return env.get("SIGNET_BYPASS") == "1" or env.get("SIGNET_NO_HOOKS") == "1"


class SignetMemoryProvider:
    """Signet memory for Hermes; see the module docstring for the rules every hook follows."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env: Mapping[str, str] = os.environ if env is None else env
        self._session: dict[str, Any] = {"id": "hermes-default"}
        self._carry: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._client: Any = None
        self._outbox: Any = None
        self._plugin: Any = None
        self._breaker = _Breaker(BREAKER_SECONDS)
        self._writer = _Writer(self._deliver)
        self._pending_spawn = False
        self._messages: list[Any] = []
        self._prefetches: dict[tuple[str, str], threading.Thread] = {}
        self._prefetched: dict[tuple[str, str], str] = {}

    # -- identity --------------------------------------------------------

    @property
    def name(self) -> str:
        return PROVIDER_NAME

    def is_available(self) -> bool:
        """No network here (Hermes's rule): the SDK is importable, so the provider is."""
        return True

    # -- plumbing --------------------------------------------------------

    def _config(self) -> Any:
        return self._get_client().config

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                from signet_sdk.runtime.registry import create_adapter

                self._client = create_adapter(HARNESS, env=self._env)
            return self._client

    def _get_plugin(self) -> Any:
        if self._plugin is None:
            from . import PLUGIN

            self._plugin = PLUGIN
        return self._plugin

    def _get_outbox(self) -> Any:
        with self._lock:
            if self._outbox is None:
                from signet_sdk.hooks.outbox import Outbox, state_dir

                root = os.path.join(state_dir(self._env), "outbox")
                self._outbox = Outbox(root, log=lambda line: log.info("signet outbox: %s", line))
            return self._outbox

    def _deadline(self, event: str) -> float:
        spec = self._get_plugin().events.get(event)
        timeouts = self._config().timeouts
        seconds: float = timeouts.for_class(spec.timeout_class if spec else "default") or 10.0
        return seconds

    def _payload(self, **fields: Any) -> dict[str, Any]:
        with self._lock:
            session = {k: v for k, v in self._session.items() if v is not None}
            return {**fields, "session": session, "carry": dict(self._carry)}

    def _apply(self, data: Any) -> None:
        if not isinstance(data, dict):
            return
        carry = data.get("carry")
        if isinstance(carry, dict):
            with self._lock:
                for key, value in carry.items():
                    if value is None:
                        self._carry.pop(key, None)
                    else:
                        self._carry[key] = value

    def _send(self, call: LifecycleCall) -> Any:
        if call.durable:
            return self._write(call)
        if self._breaker.open:
            raise NotSentError(
                f"the daemon refused a connection less than {BREAKER_SECONDS:.0f}s ago",
                method="POST",
                url=self._config().base_url,
            )
        from signet_sdk.runtime.events import client_sender

        try:
            answer = client_sender(self._get_client(), self._get_plugin())(call)
        except APIConnectionError:
            self._breaker.trip()
            raise
        self._breaker.reset()
        return answer

    def _write(self, call: LifecycleCall) -> None:
        """Put one write in the durable outbox and hand its delivery to the writer thread."""
        config = self._config()
        entry = self._get_outbox().put(
            call.action,
            dict(call.body),
            harness=config.harness,
            runtime_path=config.runtime_path,
            agent_id=config.agent_id,
        )
        self._writer.submit(entry.id)
        return None

    def _deliver(self, entry_id: str) -> None:
        if self._breaker.open:
            self._pending_spawn = True
            return
        from signet_sdk.hooks.runner import outbox_sender

        send = outbox_sender(self._config())
        timeout = self._config().timeouts.for_class("default")

        def send_now(entry: Any, body: dict[str, Any]) -> Any:
            try:
                return send(entry, body, timeout=timeout)
            except APIConnectionError:
                self._breaker.trip()
                raise

        outcome = self._get_outbox().deliver(entry_id, send_now)
        if outcome in ("kept", "failed", "busy"):
            self._pending_spawn = True

    def _spawn_sender(self) -> None:
        from signet_sdk.hooks.runner import spawn_flusher

        try:
            spawn_flusher(self._env)
        except Exception as exc:
            log.warning("signet: could not start the outbox sender (writes stay queued): %s", exc)

    def _run(self, event: str, payload: Mapping[str, Any], seconds: float | None = None) -> Any:
        """One hook through dispatch, within its deadline; the output's data, or None."""
        if _bypassed(self._env):
            return None
        limit = self._deadline_safe(event) if seconds is None else seconds
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                run = dispatch(TRANSLATOR, event, payload, self._send)
                box["run"] = run
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
        data = run.output.data
        self._apply(data)
        return data

    def _deadline_safe(self, event: str) -> float:
        try:
            return self._deadline(event)
        except Exception:
            return 10.0

    # -- Hermes's hooks --------------------------------------------------

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        try:
            project = self._env.get("SIGNET_PROJECT") or os.getcwd()
            with self._lock:
                self._session = {
                    "id": session_id or "hermes-default",
                    "project": project,
                    "platform": _text(kwargs.get("platform")),
                    "agentContext": _text(kwargs.get("agent_context")),
                }
                self._carry = {}
                self._messages = []
            parent = _text(kwargs.get("parent_session_id"))
            self._run("initialize", self._payload(parentSessionId=parent))
        except Exception as exc:
            log.warning("signet: initialize failed open: %s", exc)

    def system_prompt_block(self) -> str:
        try:
            data = self._run("system_prompt_block", self._payload())
            return _out(data, "block")
        except Exception as exc:
            log.warning("signet: system_prompt_block failed open: %s", exc)
            return ""

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        try:
            text = message if isinstance(message, str) else ""
            self._run("on_turn_start", self._payload(turnNumber=turn_number, message=text))
        except Exception as exc:
            log.warning("signet: on_turn_start failed open: %s", exc)

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """The recall for this very query, fetched in the background, within the deadline."""
        try:
            if _bypassed(self._env) or not isinstance(query, str):
                return ""
            key = (str(self._session.get("id")), query)
            limit = min(self._deadline_safe("prefetch"), PREFETCH_CAP)
            with self._lock:
                self._prefetched = {k: v for k, v in self._prefetched.items() if k == key}
                worker = self._prefetches.get(key)
                if worker is None:
                    payload = self._payload(query=query)
                    worker = threading.Thread(
                        target=self._fetch, args=(key, payload, limit), daemon=True
                    )
                    self._prefetches = {key: worker}
                    worker.start()
            worker.join(limit)
            with self._lock:
                if worker.is_alive():
                    return ""  # late: its answer is dropped, never shown to another query
                self._prefetches.pop(key, None)
                return self._prefetched.pop(key, "")
        except Exception as exc:
            log.warning("signet: prefetch failed open: %s", exc)
            return ""

    def _fetch(self, key: tuple[str, str], payload: Mapping[str, Any], limit: float) -> None:
        data = self._run("prefetch", payload, limit)
        text = _out(data, "context")
        with self._lock:
            if key in self._prefetches:
                self._prefetched[key] = text

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        try:
            self._run(
                "queue_prefetch", self._payload(query=query if isinstance(query, str) else "")
            )
        except Exception as exc:
            log.warning("signet: queue_prefetch failed open: %s", exc)

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        try:
            plain = _plain(messages)
            if isinstance(plain, list):
                with self._lock:
                    self._messages = plain
            payload = self._payload(user=user_content, assistant=assistant_content, messages=plain)
            self._run("sync_turn", payload)
        except Exception as exc:
            log.warning("signet: sync_turn failed open: %s", exc)

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        try:
            return _out(
                self._run("on_pre_compress", self._payload(messages=_plain(messages))), "guidance"
            )
        except Exception as exc:
            log.warning("signet: on_pre_compress failed open: %s", exc)
            return ""

    def on_session_switch(
        self,
        new_session_id: str,
        *,
        parent_session_id: str = "",
        reset: bool = False,
        rewound: bool = False,
        **kwargs: Any,
    ) -> None:
        try:
            payload = self._payload(
                newSessionId=new_session_id,
                parentSessionId=parent_session_id or None,
                reset=bool(reset),
                rewound=bool(rewound),
                reason=_text(kwargs.get("reason")),
                messages=list(self._messages),
            )
            self._run("on_session_switch", payload)
            if isinstance(new_session_id, str) and new_session_id:
                with self._lock:
                    if new_session_id != self._session.get("id"):
                        self._messages = []
                    self._session["id"] = new_session_id
        except Exception as exc:
            log.warning("signet: on_session_switch failed open: %s", exc)

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        try:
            self._run("on_session_end", self._payload(messages=_plain(messages) or []))
        except Exception as exc:
            log.warning("signet: on_session_end failed open: %s", exc)

    def on_memory_write(
        self,
        action: str,
        target: str,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        try:
            payload = self._payload(
                action=action, target=target, content=content, metadata=_plain(metadata)
            )
            self._run("on_memory_write", payload)
        except Exception as exc:
            log.warning("signet: on_memory_write failed open: %s", exc)

    def on_delegation(
        self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any
    ) -> None:
        try:
            payload = self._payload(
                task=task, result=result, childSessionId=child_session_id or None
            )
            self._run("on_delegation", payload)
        except Exception as exc:
            log.warning("signet: on_delegation failed open: %s", exc)

    # -- tools -----------------------------------------------------------

    def _allow_commands(self) -> bool:
        return self._env.get("SIGNET_TOOLS_ALLOW_EXEC") == "1"

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """The shared memory tool set, as OpenAI function schemas."""
        try:
            from signet_sdk.tools import tool_definitions

            return [
                {"name": t["name"], "description": t["description"], "parameters": t["inputSchema"]}
                for t in tool_definitions(allow_commands=self._allow_commands())
            ]
        except Exception as exc:
            log.warning("signet: the memory tools could not be listed: %s", exc)
            return []

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """``{"result": ...}`` or a readable ``{"error": ..., "field"?: ...}``, as JSON."""
        try:
            from signet_sdk.tools import ToolContext, ToolError, call_tool
            from signet_sdk.wire.errors import PayloadError

            if self._breaker.open:
                return _json({"error": f"{tool_name} failed: the Signet daemon is unreachable"})
            with self._lock:
                context = ToolContext(
                    session_key=self._session.get("id"),
                    project=self._session.get("project"),
                    agent_id=self._env.get("SIGNET_AGENT_ID") or None,
                )
            try:
                result = call_tool(
                    self._get_client(),
                    tool_name,
                    args if isinstance(args, dict) else {},
                    context=context,
                    allow_commands=self._allow_commands(),
                )
            except PayloadError as exc:
                return _json({"error": str(exc), "field": exc.field})
            except ToolError as exc:
                return _json({"error": str(exc)})
            except APIConnectionError as exc:
                self._breaker.trip()
                return _json({"error": f"{tool_name} failed: {exc}"})
            except SignetError as exc:
                return _json({"error": f"{tool_name} failed: {exc}"})
            return _json({"result": result})
        except Exception as exc:
            log.warning("signet: tool %s failed: %s", tool_name, exc)
            return _json({"error": f"{tool_name} failed: {type(exc).__name__}: {exc}"})

    # -- configuration and shutdown ---------------------------------------

    def get_config_schema(self) -> list[dict[str, Any]]:
        return [
            {
                "key": "daemon_url",
                "description": "Signet daemon URL",
                "env_var": "SIGNET_DAEMON_URL",
                "default": "http://127.0.0.1:3850",
            },
            {"key": "agent_id", "description": "Signet agent id", "env_var": "SIGNET_AGENT_ID"},
        ]

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        """Nothing to write: the provider reads the same ``SIGNET_*`` variables as every adapter."""

    def backup_paths(self) -> list[str]:
        return []

    def shutdown(self) -> None:
        """Wait a moment for queued writes; leave the rest to the detached outbox sender."""
        try:
            drained = self._writer.wait(SHUTDOWN_WAIT)
            if not drained or self._pending_spawn:
                self._spawn_sender()
            with self._lock:
                client, self._client = self._client, None
            if client is not None:
                client.close()
        except Exception as exc:
            log.warning("signet: shutdown: %s", exc)

    def flush(self, seconds: float = SHUTDOWN_WAIT) -> bool:
        """Wait up to ``seconds`` for queued writes to be attempted (for tests and shutdown)."""
        return self._writer.wait(seconds)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _out(data: Any, key: str) -> str:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, str) else ""


def _plain(value: Any) -> Any:
    """A JSON-shaped copy: Hermes's messages may hold objects the payload must not keep."""
    if value is None:
        return None
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def register(ctx: Any, base: type | None = None) -> SignetMemoryProvider:
    """Hermes's plugin entry: build the provider on Hermes's ABC and register it.

    ``base`` is Hermes's ``agent.memory_provider.MemoryProvider`` (imported
    here when not given); the provider is an instance of it, as Hermes's
    loader and type checks expect.
    """
    if base is None:
        from agent.memory_provider import MemoryProvider  # type: ignore[import-not-found]

        base = MemoryProvider
    assert base is not None
    cls = type("SignetHermesMemoryProvider", (SignetMemoryProvider, base), {})
    provider: SignetMemoryProvider = cls()
    ctx.register_memory_provider(provider)
    return provider
