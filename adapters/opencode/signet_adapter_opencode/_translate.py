"""OpenCode plugin hooks and bus events <-> Signet lifecycle calls, as pure data.

The OpenCode shim (``shim/signet.js``) forwards each event below as one JSON
object: the fields :data:`SHIM_EVENTS` selects, plus ``directory`` (the
plugin context's directory: the project), ``carry`` (the markers earlier
answers asked the shim to keep) and, for the events marked ``messages``,
the session's messages as OpenCode's own session API returns them
(``client.session.messages``: ``[{info, parts}]``, cut down to what the
table selects). The messages come from that API rather than OpenCode's
storage files because the API is the stable surface the plugin is handed;
the storage layout is private and changed across 1.x.

This module turns that object into the daemon calls it implies and the
daemon's answers into the structured output the shim applies. It performs
no I/O and imports only the standard library and the core's
:mod:`signet_sdk.plugin`: the hook process (the fallback while no adapter
server runs) imports it for every event.

What the shim applies (``data`` of the output, or None for nothing):

* ``system``: slot name -> ``{"session", "text", "model"?, "uses"?, "until"?}``
  or None (drops the slot). In ``experimental.chat.system.transform`` the
  shim pushes the text of every slot of that session onto ``output.system``
  (OpenCode sends it as a system message), only for requests on ``model``
  (``provider/model``) when one is named; ``uses`` counts down and drops
  the slot at 0; ``until: <event>`` drops it when that event next fires for
  the session.
* ``push``: output field -> strings appended to the hook's ``output`` array
  (``context`` for the compaction prompt).
* ``carry``: key -> value (None deletes), sent back with every later event.
* ``hold``: key -> ``{"event", "payload"}`` or None: an event the shim keeps
  and forwards when OpenCode exits (a process ``exit``), at most once.
* ``release``: key -> reason: forward that held event now, with ``reason``
  set, and forget it.

Choices, and why:

* The session key is OpenCode's session id; the project is the plugin
  context's ``directory``. ``agentId`` comes from ``SIGNET_AGENT_ID``
  through the client.
* Session start happens on the first ``chat.message`` of a session id, in
  the same round trip as its prompt-submit: that is the first moment the
  model of the turn is known, so the inject can be kept out of the
  small-model title request OpenCode sends first (it runs the system
  transform too). ``session.created`` makes no call; it carries the parent
  session id (a subagent's session) for the start's ``parentSessionKey``.
  The session-start inject is pushed into the first main-model request of
  the session only (``uses: 1``); the prompt's recall into every request of
  that turn (tool follow-ups included) until the next ``chat.message``.
* ``session.idle`` fires after every turn: a checkpoint with the messages
  since the last one (so a killed process loses nothing), and the held
  session end is refreshed with the whole conversation.
* OpenCode has no session-end event. The held ``session.end`` is sent when
  the process exits (``opencode run``, or quitting the TUI) or when the
  session is deleted (``session.deleted`` releases it): once per session.
* ``experimental.session.compacting`` asks pre-compaction and pushes the
  daemon's guidelines onto ``output.context``, which OpenCode puts into the
  compaction request. ``session.compacted`` carries only the session id, so
  the shim attaches the messages and the summary is the text of the newest
  assistant message marked ``summary: true`` (the compaction agent's).
"""

from __future__ import annotations

from signet_sdk.plugin import (
    EventTranslator,
    LifecycleCall,
    NativeOutput,
    array,
    carried,
    context_text,
    mapping,
    on,
    put,
    string,
)

from ._output import _guidance, _slot
from ._payload import (
    _Message,
    _messages,
    _session_id,
    _text_of,
    _transcript,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = [
    "EVENTS",
    "NOT_APPLICABLE",
    "SHIM_EVENTS",
    "TRANSLATOR",
    "OpenCodeTranslator",
    "translator_for",
]

#: Native events this adapter understands, in lifecycle order. ``session.end``
_MESSAGES = {
    "info": {"id": True, "role": True, "summary": True},
    "parts": {"type": True, "text": True, "synthetic": True},
}

#: What the shim forwards, per event: ``hook`` (a plugin hook, else a bus
#: event delivered to the ``event`` hook), the fields to keep (``True``: the
#: value, an object: those of its fields, applied to each element of an
#: array), whether to attach the session's ``messages``, and the ``lane``:
#: events of one lane are forwarded one at a time, in order (each carries the
#: markers the answers before it set), lanes run side by side. The prompt's
#: lane (``main``) never waits behind the previous turn's writes (``writes``);
#: the two lanes set disjoint carry keys (``started``/``parent`` against
#: ``checkpoint``/``ended``).
SHIM_EVENTS: Mapping[str, Mapping[str, Any]] = {
    "session.created": {
        "hook": "event",
        "fields": {"sessionID": True, "info": {"id": True, "parentID": True, "directory": True}},
    },
    "chat.message": {
        "hook": "chat.message",
        "fields": {
            "sessionID": True,
            "messageID": True,
            "agent": True,
            "model": {"providerID": True, "modelID": True},
            "parts": {"type": True, "text": True, "synthetic": True},
        },
    },
    "session.idle": {
        "hook": "event",
        "fields": {"sessionID": True},
        "messages": _MESSAGES,
        "lane": "writes",
    },
    "experimental.session.compacting": {
        "hook": "experimental.session.compacting",
        "fields": {"sessionID": True},
    },
    "session.compacted": {
        "hook": "event",
        "fields": {"sessionID": True},
        "messages": _MESSAGES,
        "lane": "writes",
    },
    "session.deleted": {
        "hook": "event",
        "fields": {"sessionID": True, "info": {"id": True}},
        "lane": "writes",
    },
}

#: The memory tools reach OpenCode's model through its MCP client: the
#: installer registers ``signet-sdk mcp`` as the local MCP server ``signet``.
NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of an OpenCode session",
}


def _sid(payload: Mapping[str, Any]) -> str:
    """The session id: ``sessionID``, else (bus events of 1.x) ``info.id``."""
    if payload.get("sessionID") is None:
        info = mapping(payload, "info")
        if info is not None and string(info, "id", "info."):
            return str(info["id"])
    return _session_id(payload)


def _project(payload: Mapping[str, Any]) -> str | None:
    return string(payload, "directory") or None


class OpenCodeTranslator(EventTranslator):
    """The pure half of the OpenCode adapter (a ``HarnessTranslator``).

    With nothing to apply, OpenCode carries on as if no plugin were loaded.
    """

    harness = "opencode"
    not_applicable = NOT_APPLICABLE
    event_field = "type"
    carries = True

    def scope(self, payload: Mapping[str, Any]) -> str:
        """The OpenCode session id the event belongs to (``directory`` checked too)."""
        _project(payload)
        return _sid(payload)

    @on("session.created")
    def _created(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
        info = mapping(p, "info") or {}
        string(info, "parentID", "info.")
        return []  # the first chat.message starts the session; this only carries lineage

    @on("chat.message", "prompt_submit", flushes=True)
    def _chat_message(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
        parts = self.required(array(p, "parts"), "parts")
        text = _text_of(parts, "parts")
        _model(p)
        calls: list[LifecycleCall] = []
        if not carried(p, "started:" + sid):
            body: dict[str, Any] = {"sessionKey": sid}
            put(body, "project", _project(p))
            put(body, "parentSessionKey", carried(p, "parent:" + sid))
            calls.append(LifecycleCall("session_start", body))
        if text:
            ups: dict[str, Any] = {"sessionKey": sid, "userMessage": text, "userPrompt": text}
            put(ups, "project", _project(p))
            calls.append(LifecycleCall("user_prompt_submit", ups))
        return calls

    @on("session.idle", detach=True)
    def _idle(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
        messages = _messages(p)
        if carried(p, "ended:" + sid):
            return []
        fresh = _since(messages, carried(p, "checkpoint:" + sid))
        transcript = _transcript(fresh)
        if not transcript:
            return []
        return [self.checkpoint_call(sid, _project(p), transcript, inline=True)]

    @on("experimental.session.compacting")
    def _compacting(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
        return [self.pre_compaction_call(sid, "OpenCode session compaction")]

    @on("session.compacted", detach=True)
    def _compacted(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
        summaries = [m for m in _messages(p) if m.summary and m.text]
        if not summaries:
            return []  # nothing to keep: the compaction produced no text
        return [self.compaction_call(sid, summaries[-1].text, _project(p))]

    @on("session.deleted")
    def _deleted(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
        return []  # the held session end is released (see render)

    @on("session.end", detach=True)
    def _end(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
        transcript = string(p, "transcript")
        cwd, reason = _project(p), string(p, "reason") or "exit"
        return [self.session_end_call(sid, cwd, reason, None, transcript)]

    # -- render ----------------------------------------------------------

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        """The structured output the shim applies (see the module docstring)."""
        sid = _sid(payload)
        if event == "session.created":
            parent = string(mapping(payload, "info") or {}, "parentID", "info.")
            if parent:
                return NativeOutput({"carry": {"parent:" + sid: parent}})
        elif event == "chat.message":
            return NativeOutput(_chat_output(payload, sid, results) or None)
        elif event == "session.idle" and not carried(payload, "ended:" + sid):
            messages = _messages(payload)
            data: dict[str, Any] = {"hold": {"end:" + sid: _held_end(payload, sid, messages)}}
            if messages and messages[-1].id:
                data["carry"] = {"checkpoint:" + sid: messages[-1].id}
            return NativeOutput(data)
        elif event == "experimental.session.compacting" and results:
            text = _guidance(results[0])
            if text:
                return NativeOutput({"push": {"context": [text]}})
        elif event == "session.deleted":
            return NativeOutput(
                {"release": {"end:" + sid: "session.deleted"}, "carry": {"ended:" + sid: True}}
            )
        return self.neutral(event)


def _model(p: Mapping[str, Any]) -> str | None:
    """The turn's model as ``provider/model`` (the system transform's key), if given."""
    model = mapping(p, "model")
    if model is None:
        return None
    provider = string(model, "providerID", "model.")
    name = string(model, "modelID", "model.")
    return f"{provider}/{name}" if provider and name else None


def _since(messages: Sequence[_Message], last: Any) -> Sequence[_Message]:
    """The messages after the one with id ``last`` (all of them when it is not there)."""
    if isinstance(last, str):
        for n, m in enumerate(messages):
            if m.id == last:
                return messages[n + 1 :]
    return messages


def _held_end(p: Mapping[str, Any], sid: str, messages: Sequence[_Message]) -> dict[str, Any]:
    """The session end the shim keeps for exit: the whole conversation so far."""
    payload: dict[str, Any] = {"type": "session.end", "sessionID": sid}
    put(payload, "directory", _project(p))
    put(payload, "transcript", _transcript(messages))
    return {"event": "session.end", "payload": payload}


def _chat_output(p: Mapping[str, Any], sid: str, results: Sequence[Any]) -> dict[str, Any]:
    model = _model(p)
    starting = not carried(p, "started:" + sid)
    system: dict[str, Any] = {}
    data: dict[str, Any] = {}
    index = 0
    if starting:
        text = context_text(results[0] if results else None, prompt=False)
        if text:
            system["session:" + sid] = _slot(sid, text, "session-start", model, uses=1)
        data["carry"] = {"started:" + sid: True}
        data["hold"] = {"end:" + sid: _held_end(p, sid, [])}
        index = 1
    if len(results) > index:
        text = context_text(results[index], prompt=True)
        if text:
            system["recall:" + sid] = _slot(sid, text, "prompt-recall", model, until="chat.message")
    if system:
        data["system"] = system
    return data


#: Native events this adapter understands, in lifecycle order.
EVENTS = OpenCodeTranslator.event_names

#: The shared instance: the translator reads no environment.
TRANSLATOR = OpenCodeTranslator()


def translator_for(env: Mapping[str, str]) -> OpenCodeTranslator:
    """The translator for any environment (OpenCode's choices travel in the payload)."""
    return TRANSLATOR
