"""What the OpenClaw plugin forwards and keeps: the tables the installer writes for it.

The plugin (``plugin/index.mjs``) holds no mapping logic; these tables tell
it which hooks to subscribe, what of each to forward, what to keep for a
session, and what to do when a gateway stops. ``install.py`` writes them into
``signet-openclaw.json`` beside the plugin; :mod:`._translate` reads what the
plugin sends. Standard library only.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["SHIM_EVENTS", "SHIM_PERSIST", "SHIM_SCOPE", "SHIM_SHUTDOWN"]

#: Where the plugin finds the session scope of a hook: the first of these that is set.
SHIM_SCOPE: tuple[str, ...] = (
    "ctx.sessionKey",
    "event.sessionKey",
    "ctx.sessionId",
    "event.sessionId",
)

_AGENT_CTX = {
    "agentId": True,
    "sessionKey": True,
    "sessionId": True,
    "workspaceDir": True,
    "trigger": True,
}
_PROMPT_FIELDS = {
    "prompt": True,
    "currentUserMessage": True,
    "currentUserMessageId": True,
    "messageCount": ["count", "messages"],
    "lastAssistant": ["findLast", "messages", {"role": "assistant"}, {"content": True}],
    "compactionSummary": ["find", "messages", {"role": "compactionSummary"}, {"summary": True}],
}

#: What the plugin forwards, per hook: ``fields`` of the event and ``ctx`` of the
#: hook context (``True``: the value; ``"count"``: an array's length; an object:
#: those of its fields; ``["count", f]``, ``["find", f, match, pick]`` or
#: ``["findLast", f, match, pick]``: derived from the array field ``f``), what to
#: ``keep`` from the event for later hooks of the session, which kept values to
#: ``attach`` (as ``held``), what to ``read`` (``name: [f, match, pick]``: the last
#: line matching ``match`` of the JSON-lines file the event's field ``f`` names,
#: when it is an absolute path), and whether the handler returns the answer's
#: ``result``. Hooks not listed are not subscribed.
SHIM_EVENTS: Mapping[str, Mapping[str, Any]] = {
    "session_start": {
        "fields": {"sessionId": True, "sessionKey": True, "resumedFrom": True},
        "ctx": {"agentId": True, "sessionId": True, "sessionKey": True},
    },
    "before_prompt_build": {"fields": _PROMPT_FIELDS, "ctx": _AGENT_CTX, "result": True},
    "before_agent_start": {"fields": _PROMPT_FIELDS, "ctx": _AGENT_CTX, "result": True},
    "agent_end": {
        "fields": {"messages": True, "success": True, "error": True, "runId": True},
        "ctx": _AGENT_CTX,
        "keep": {"messages": "messages"},
    },
    "before_compaction": {
        "fields": {"messageCount": True, "compactingCount": True, "tokenCount": True},
        "ctx": _AGENT_CTX,
    },
    "after_compaction": {
        "fields": {
            "messageCount": True,
            "compactedCount": True,
            "tokenCount": True,
            "summary": True,
            "previousSessionId": True,
        },
        "ctx": _AGENT_CTX,
        "read": {"compactionEntry": ["sessionFile", {"type": "compaction"}, {"summary": True}]},
    },
    "session_end": {
        "fields": {
            "sessionId": True,
            "sessionKey": True,
            "messageCount": True,
            "reason": True,
            "nextSessionId": True,
        },
        "ctx": {"agentId": True, "sessionId": True, "sessionKey": True},
        "attach": ["messages"],
    },
}

#: The end of a gateway process (the plugin applies this itself, see the module
#: docstring): on ``start`` the process is known to be a gateway; on ``stop``, or
#: at the process's ``exit`` for what ``stop`` did not finish, every session the
#: plugin still holds is forwarded as ``event`` with ``fields``, within
#: ``timeoutMs`` (inside OpenClaw's 2 s drain), else ``exitTimeoutMs`` per session
#: on the hook process's durable path.
#: Carried markers the plugin keeps across processes (a file per session in
#: signet-sdk's state directory, removed once the marker is cleared).
SHIM_PERSIST: tuple[str, ...] = ("compaction",)

SHIM_SHUTDOWN: Mapping[str, Any] = {
    "start": "gateway_start",
    "stop": "gateway_stop",
    "event": "session_end",
    "fields": {"reason": "shutdown"},
    "timeoutMs": 1500,
    "exitTimeoutMs": 5000,
}
