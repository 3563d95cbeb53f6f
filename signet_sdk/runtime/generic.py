"""The plugin for a harness nobody packaged: native events are the contract's own.

An event is a lifecycle slug (``session-start``, ``user-prompt-submit``,
...) and its payload is that hook's wire body. Output: the inject text for
the two injecting hooks (``data`` = the daemon's answer), the answer as
JSON for remember and recall, nothing for the rest.

Standard library only: ``signet-sdk hook <any-name> <event>`` runs on it.
"""

from __future__ import annotations

from signet_sdk.runtime.native import NativeOutput
from signet_sdk.runtime.plugin import EventSpec, HarnessPlugin
from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.jsonfast import dumps
from signet_sdk.wire.lifecycle import LIFECYCLE, LifecycleCall, action_for_slug

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = ["GENERIC_NOT_APPLICABLE", "GenericTranslator", "generic_plugin"]

_INJECTING = frozenset({"session-start", "user-prompt-submit"})
_TOOL_RESULTS = frozenset({"remember", "recall"})
_EVENTS = tuple(row.slug for row in LIFECYCLE.values())
_TIMEOUT_CLASS = {"session-start": "session_start", "user-prompt-submit": "prompt_submit"}

_TOOLS = (
    "a tool the model calls, not a lifecycle event: signet_sdk.tools (call_tool, "
    "signet-sdk mcp, or the adapter server's /v1/tools)"
)
GENERIC_NOT_APPLICABLE: Mapping[str, str] = {
    "memory-search": "served by the recall event (POST /api/hooks/recall); as a tool: "
    "memory_search in signet_sdk.tools",
    "memory-get": _TOOLS,
    "memory-modify": _TOOLS,
    "memory-forget": _TOOLS,
    "secret-injection": _TOOLS,
    "health": "not a lifecycle event: use AdapterClient.health",
}


class GenericTranslator:
    """Lifecycle slugs as events, wire bodies as payloads (a ``HarnessTranslator``)."""

    events: Sequence[str] = _EVENTS

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        row = action_for_slug(event)
        if row is None:
            raise PayloadError("event", f"unknown event {event!r}; known: {', '.join(_EVENTS)}")
        if not isinstance(payload, dict):
            from collections.abc import Mapping as _Mapping

            if not isinstance(payload, _Mapping):
                raise PayloadError("payload", "must be a JSON object")
        body = {k: v for k, v in payload.items() if k not in ("harness", "runtimePath")}
        return [LifecycleCall(row.action, body)]

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        result = results[0] if results else None
        if not isinstance(result, dict):
            return self.neutral(event)
        if event in _INJECTING:
            return NativeOutput(result, stdout=str(result.get("inject") or ""))
        if event in _TOOL_RESULTS:
            text = dumps(result, sort_keys=True, ascii_only=True)
            return NativeOutput(result, stdout=text)
        return NativeOutput(result, stdout="")

    def neutral(self, event: str) -> NativeOutput:
        return NativeOutput()


def _story_event(step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
    """The demo's story steps as generic events (wire bodies)."""
    key, project = ctx.session_key, ctx.project
    events: dict[str, tuple[str, dict[str, Any]]] = {
        "session_start": ("session-start", {"sessionKey": key, "project": project}),
        "prompt": (
            "user-prompt-submit",
            {"sessionKey": key, "project": project, "userMessage": ctx.prompt},
        ),
        "pre_compaction": ("pre-compaction", {"sessionKey": key, "messageCount": 6}),
        "compaction_complete": (
            "compaction-complete",
            {"sessionKey": key, "project": project, "summary": ctx.summary},
        ),
        "session_end": (
            "session-end",
            {"sessionKey": key, "sessionId": key, "cwd": project, "transcript": ctx.transcript},
        ),
    }
    return events.get(step)


def generic_plugin(harness: str, runtime_path: str | None = None) -> HarnessPlugin:
    """The plugin ``harness`` gets when no package registered one."""
    plugin = HarnessPlugin(
        harness,
        translator=GenericTranslator(),
        events=[EventSpec(e, _TIMEOUT_CLASS.get(e, "default")) for e in _EVENTS],
        runtime_path=runtime_path,
        not_applicable=GENERIC_NOT_APPLICABLE,
        vectors="contract:vectors/generic",
        story="signet_sdk.runtime.generic:_story_event",
        description="the contract's own events; no package installed",
    )
    plugin.distribution = None
    return plugin
