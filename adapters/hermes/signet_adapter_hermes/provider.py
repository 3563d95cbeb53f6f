"""The Hermes Agent ``MemoryProvider``: each hook through the core's translate-dispatch path.

Hermes (PyPI ``hermes-agent``) loads one external memory provider, named by
``memory.provider`` in ``$HERMES_HOME/config.yaml``, from
``$HERMES_HOME/plugins/<name>/__init__.py`` (plugins/memory/__init__.py in
hermes-agent 0.19). ``signet-sdk install hermes-agent`` writes that file;
it calls :func:`register`, which builds this provider as a subclass of
Hermes's own ``MemoryProvider`` ABC. This module never imports Hermes.

Every hook runs in the Hermes process: the hook hands its payload to the
channel (:mod:`signet_adapter_hermes._channel`), whose worker thread it waits
for at most the event's deadline, and follows the rules of the hook runner:

* Reads (session-start, prompt-submit, pre-compaction) go to the daemon
  through one ``AdapterClient`` and are bounded by the event's deadline
  (``SIGNET_SESSION_START_TIMEOUT``, ``SIGNET_PROMPT_SUBMIT_TIMEOUT``,
  ``SIGNET_FETCH_TIMEOUT``); past it Hermes gets the neutral answer.
* Writes (checkpoints, session-end, compaction summaries, remembered
  memories) are put in the durable outbox the hook runner uses and
  delivered by one background thread in order; what the daemon does not
  take is left to the detached outbox sender. A hook returns once its
  write is on disk.
* The circuit breaker every hook process shares (its state file in the
  state directory; ``SIGNET_BREAKER_FAILURES`` failures in a row open it for
  ``SIGNET_BREAKER_COOLDOWN`` seconds, 30 by default): failures here count
  there, and while it is open each read answers neutral at once instead of
  waiting out its deadline on every turn (writes still queue).
* Nothing raises into Hermes: any failure is logged and the hook returns
  what Hermes expects when no provider helps ("" or None).
* ``SIGNET_BYPASS=1`` or ``SIGNET_NO_HOOKS=1`` turns the automatic hooks
  off; the memory tools stay.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec, TypeVar

from ._channel import BREAKER_SECONDS, Channel, log

__all__ = ["BREAKER_SECONDS", "PROVIDER_NAME", "SignetMemoryProvider", "register"]

_P = ParamSpec("_P")
_R = TypeVar("_R")

#: The name Hermes knows the provider by (``memory.provider``) and its plugin folder.
PROVIDER_NAME = "signet"
#: Hermes abandons an external prefetch after 8 s (agent/memory_manager.py
#: ``_EXTERNAL_PREFETCH_TIMEOUT_S``) and skips the provider while that thread
#: lives, so a prefetch never waits longer than this.
PREFETCH_CAP = 7.5
#: How long ``shutdown`` waits for pending writes before leaving them to the sender.
SHUTDOWN_WAIT = 5.0


def _fails_open(default: _R) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """A Hermes hook that never raises into Hermes: a failure is logged, ``default`` returned.

    Hermes calls the provider inside its own turn loop, where an exception
    from memory would break the user's session; so every hook fails open.
    """

    def wrap(hook: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(hook)
        def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return hook(*args, **kwargs)
            except Exception as exc:
                log.warning("signet: %s failed open: %s", hook.__name__, exc)
                return default

        return run

    return wrap


def _bypassed(env: Mapping[str, str]) -> bool:
    return env.get("SIGNET_BYPASS") == "1" or env.get("SIGNET_NO_HOOKS") == "1"


class SignetMemoryProvider:
    """Signet memory for Hermes; see the module docstring for the rules every hook follows."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env: Mapping[str, str] = os.environ if env is None else env
        self._channel = Channel(self._env)
        self._session: dict[str, Any] = {"id": "hermes-default"}
        self._carry: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._messages: list[Any] = []

    # -- identity --------------------------------------------------------

    @property
    def name(self) -> str:
        return PROVIDER_NAME

    def is_available(self) -> bool:
        """No network here (Hermes's rule): the SDK is importable, so the provider is."""
        return True

    # -- state -----------------------------------------------------------

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

    def _run(self, event: str, payload: Mapping[str, Any], seconds: float | None = None) -> Any:
        """One hook through the channel; its carry applied; the output's data, or None."""
        if _bypassed(self._env):
            return None
        data = self._channel.run(event, payload, seconds)
        self._apply(data)
        return data

    # -- Hermes's hooks --------------------------------------------------

    @_fails_open(None)
    def initialize(self, session_id: str, **kwargs: Any) -> None:
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
        if not _bypassed(self._env):
            self._channel.flush_if_pending()

    @_fails_open("")
    def system_prompt_block(self) -> str:
        data = self._run("system_prompt_block", self._payload())
        return _out(data, "block")

    @_fails_open(None)
    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        text = message if isinstance(message, str) else ""
        self._run("on_turn_start", self._payload(turnNumber=turn_number, message=text))

    @_fails_open("")
    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """The recall for this very query, made on a worker and awaited within the deadline.

        An answer that comes later is dropped with its worker: it can never be
        shown beside another query.
        """
        if not isinstance(query, str):
            return ""
        limit = min(self._channel.deadline("prefetch"), PREFETCH_CAP)
        return _out(self._run("prefetch", self._payload(query=query), limit), "context")

    @_fails_open(None)
    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        self._run("queue_prefetch", self._payload(query=query if isinstance(query, str) else ""))

    @_fails_open(None)
    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        plain = _plain(messages)
        if isinstance(plain, list):
            with self._lock:
                self._messages = plain
        payload = self._payload(user=user_content, assistant=assistant_content, messages=plain)
        self._run("sync_turn", payload)

    @_fails_open("")
    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        return _out(
            self._run("on_pre_compress", self._payload(messages=_plain(messages))), "guidance"
        )

    @_fails_open(None)
    def on_session_switch(
        self,
        new_session_id: str,
        *,
        parent_session_id: str = "",
        reset: bool = False,
        rewound: bool = False,
        **kwargs: Any,
    ) -> None:
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

    @_fails_open(None)
    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        self._run("on_session_end", self._payload(messages=_plain(messages) or []))

    @_fails_open(None)
    def on_memory_write(
        self,
        action: str,
        target: str,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        payload = self._payload(
            action=action, target=target, content=content, metadata=_plain(metadata)
        )
        self._run("on_memory_write", payload)

    @_fails_open(None)
    def on_delegation(
        self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any
    ) -> None:
        payload = self._payload(task=task, result=result, childSessionId=child_session_id or None)
        self._run("on_delegation", payload)

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
            from signet_sdk.tools import ToolContext

            with self._lock:
                context = ToolContext(
                    session_key=self._session.get("id"),
                    project=self._session.get("project"),
                    agent_id=self._env.get("SIGNET_AGENT_ID") or None,
                )
            arguments = args if isinstance(args, dict) else {}
            return _json(self._channel.tool(tool_name, arguments, context, self._allow_commands()))
        except Exception as exc:
            log.warning("signet: tool %s failed: %s", tool_name, exc)
            return _json({"error": f"{tool_name} failed: {type(exc).__name__}: {exc}"})

    # -- configuration and shutdown ---------------------------------------

    def get_config_schema(self) -> list[dict[str, Any]]:
        """What ``hermes memory setup`` asks; it writes each answer to ``$HERMES_HOME/.env``."""
        return [
            {
                "key": "daemon_url",
                "description": "Signet daemon URL",
                "env_var": "SIGNET_DAEMON_URL",
                "default": "http://127.0.0.1:3850",
            },
            {"key": "agent_id", "description": "Signet agent id", "env_var": "SIGNET_AGENT_ID"},
            {
                "key": "token",
                "description": "Signet daemon token (only when the daemon requires one)",
                "env_var": "SIGNET_TOKEN",
                "secret": True,
            },
        ]

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        """Nothing to write: the provider reads the same ``SIGNET_*`` variables as every adapter."""

    def backup_paths(self) -> list[str]:
        return []

    def shutdown(self) -> None:
        """Wait a moment for pending writes; leave the rest to the detached outbox sender."""
        try:
            self._channel.close(SHUTDOWN_WAIT)
        except Exception as exc:
            log.warning("signet: shutdown: %s", exc)

    def flush(self, seconds: float = SHUTDOWN_WAIT) -> bool:
        """Wait up to ``seconds`` for pending writes to be attempted (for tests and shutdown)."""
        return self._channel.flush(seconds)


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
