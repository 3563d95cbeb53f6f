"""OpenClaw plugin hooks <-> Signet lifecycle calls, as pure data.

The OpenClaw plugin (``plugin/index.mjs``) forwards each hook below as one
JSON object: the event's fields and the hook context's fields as
:data:`SHIM_EVENTS` selects them, plus

* ``carry``: the markers earlier answers asked the plugin to keep for this
  session (the plugin keeps one set per session scope: the context's
  ``sessionKey``, else the event's, else the ``sessionId``);
* ``held``: values the plugin kept from earlier events of the session
  (``keep``) and attaches to the events that ask (``attach``).

This module turns that object into the daemon calls it implies and the
daemon's answers into the structured output the plugin applies. It performs
no I/O and imports the core only through :mod:`signet_sdk.plugin`
(standard library): the hook process (the fallback while no adapter server
runs) imports it for every event.

What the plugin applies (``data`` of the output, or None for nothing):

* ``result``: what the OpenClaw handler returns: ``{"prependContext": …}``
  for the prompt hooks, which OpenClaw writes before the user's text in the
  model request;
* ``carry``: key -> value (None deletes) for this session's scope;
* ``end``: true when the session is over: the plugin forgets its scope.

Choices, and why (observed on OpenClaw 2026.9.6):

* The session key is OpenClaw's ``sessionKey`` (``agent:<agent>:<rest>``),
  from which the daemon reads the agent id when ``SIGNET_AGENT_ID`` does not
  name one; the project is the hook context's ``workspaceDir``.
* ``session_start`` fires only in the gateway, for a new session key, and
  before the first prompt: it makes the session-start call and carries the
  answer's context (``inject``) so the first prompt delivers it.
  ``agent --local`` runs have no ``session_start``: the first prompt hook of
  a session the plugin has not seen makes the session-start call itself,
  before the prompt's, and delivers both contexts at once.
* ``before_prompt_build`` makes the one user-prompt-submit of the turn and
  returns the recalled context as ``prependContext``. The legacy
  ``before_agent_start`` (absent from 2026.9.6's hook names) gets the same
  treatment, and whichever of the two fires second for a turn makes no
  call: the turn is known by ``currentUserMessageId`` when OpenClaw gives
  one, else by the history length and the prompt.
* Heartbeat and memory-maintenance runs (``ctx.trigger``) recall nothing.
* ``agent_end`` (once per run) sends a checkpoint with the session's
  messages inline: 2026.9.6 keeps sessions in SQLite, so there is no session
  file to name. The plugin keeps those messages for ``session_end``.
* ``before_compaction`` -> pre-compaction (its guidance cannot be returned:
  the hook's result is ignored). ``after_compaction`` -> compaction-complete
  when the event carries a ``summary``, or its ``sessionFile`` is a JSON-lines
  file whose last ``type: "compaction"`` entry the plugin reads
  (``compactionEntry``). 2026.9.6 gives neither (its ``sessionFile`` is a
  ``sqlite:`` locator, no file), so the plugin carries
  ``compaction = "pending"`` and the next prompt hook of the session sends
  compaction-complete with the summary OpenClaw puts first in that turn's
  history (``role: "compactionSummary"``).
* ``session_end`` -> session-end with the kept messages as the transcript,
  unless OpenClaw only rotated the session id for a compaction (``reason:
  "compaction"``), which continues the same session.
* A compaction still pending when the process stops (a compaction right
  before a gateway restart) is left to the session's next process: the
  plugin keeps the ``compaction`` marker of each session on disk
  (:data:`SHIM_PERSIST`), so the first prompt hook of that session in the
  next process (gateway or ``agent --local``) sends compaction-complete with
  the summary in its history. OpenClaw 2026.9.6 offers no way to read the
  summary at stop time: its plugin runtime's ``getSessionMessages`` shows a
  compaction only as a ``system`` "Compaction" marker, and refuses requests
  once the gateway is stopping.
* When a gateway stops (``gateway_stop``, else the process's ``exit``), the
  plugin ends every session it served there that OpenClaw did not end
  itself, as ``session_end`` with ``reason: "shutdown"`` (:data:`SHIM_SHUTDOWN`):
  2026.9.6 sends no ``session_end`` for a session begun by ``agent --local``
  and continued in the gateway.
"""

from __future__ import annotations

from signet_sdk.plugin import (
    EventTranslator,
    LifecycleCall,
    NativeOutput,
    array,
    context_text,
    integer,
    mapping,
    messages_jsonl,
    on,
    put,
    string,
)

from ._payload import _Scope, _text_of, _wrap
from ._shim import SHIM_EVENTS, SHIM_PERSIST, SHIM_SCOPE, SHIM_SHUTDOWN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = [
    "EVENTS",
    "NOT_APPLICABLE",
    "SHIM_EVENTS",
    "SHIM_PERSIST",
    "SHIM_SCOPE",
    "SHIM_SHUTDOWN",
    "TRANSLATOR",
    "OpenClawTranslator",
    "translator_for",
]

#: The memory tools are not registered in OpenClaw: the plugin forwards lifecycle
#: hooks only, and OpenClaw's own memory tools stay whatever the user chose.
NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of an OpenClaw session",
}

#: Runs that are not a person's turn: no recall, no session start.
_QUIET_TRIGGERS = ("heartbeat", "memory")
_PENDING = "pending"


class _Turn:
    """What one prompt hook implies, computed the same way by translate and render."""

    __slots__ = ("compaction", "prompt", "signature", "start", "summary")

    def __init__(self, p: Mapping[str, Any], s: _Scope) -> None:
        prompt = string(p, "prompt")
        current = string(p, "currentUserMessage")
        ident = string(p, "currentUserMessageId")
        count = integer(p, "messageCount")
        text = EventTranslator.required(current if current is not None else prompt, "prompt")
        self.signature = ident or f"{count if count is not None else '-'}:{len(text)}:{text[:64]}"
        quiet = s.trigger in _QUIET_TRIGGERS
        seen = s.carried("turn") == self.signature
        self.start = not quiet and not seen and not s.carried("started")
        self.prompt = text if text.strip() and not quiet and not seen else None
        found = mapping(p, "compactionSummary")
        summary = string(found, "summary", "compactionSummary.") if found else None
        self.summary = summary if summary and summary.strip() else None
        self.compaction = s.carried("compaction") == _PENDING and self.summary is not None


# -- the translator ---------------------------------------------------------


class OpenClawTranslator(EventTranslator):
    """The pure half of the OpenClaw adapter (a ``HarnessTranslator``).

    With nothing to apply, OpenClaw carries on as if no plugin were loaded.
    """

    harness = "openclaw"
    not_applicable = NOT_APPLICABLE

    def scope(self, payload: Mapping[str, Any]) -> _Scope:
        """The session and agent the hook fired for, with what the plugin carried."""
        return _Scope(payload)

    @on("session_start", "session_start", flushes=True)
    def _session_start(self, p: Mapping[str, Any], s: _Scope) -> list[LifecycleCall]:
        if s.carried("started"):
            return []
        resumed = string(p, "resumedFrom")
        body: dict[str, Any] = {"sessionKey": s.key, "source": "resume" if resumed else "startup"}
        return [LifecycleCall("session_start", body)]

    @on("before_prompt_build", "prompt_submit")
    @on("before_agent_start", "prompt_submit")
    def _prompt(self, p: Mapping[str, Any], s: _Scope) -> list[LifecycleCall]:
        turn = _Turn(p, s)
        calls = []
        if turn.start:
            body: dict[str, Any] = {"sessionKey": s.key}
            put(body, "project", s.project)
            body["source"] = "startup"
            calls.append(LifecycleCall("session_start", body))
        if turn.compaction:
            body = {"sessionKey": s.key, "summary": turn.summary}
            put(body, "project", s.project)
            calls.append(LifecycleCall("compaction_complete", body))
        if turn.prompt is not None:
            body = {"sessionKey": s.key, "userMessage": turn.prompt, "userPrompt": turn.prompt}
            put(body, "project", s.project)
            last = mapping(p, "lastAssistant")
            if last is not None:
                put(body, "lastAssistantMessage", _text_of(last.get("content")).strip())
            calls.append(LifecycleCall("user_prompt_submit", body))
        return calls

    @on("agent_end", detach=True)
    def _agent_end(self, p: Mapping[str, Any], s: _Scope) -> list[LifecycleCall]:
        return self.turn_checkpoint_calls(p, s.key, s.project)

    @on("before_compaction")
    def _before_compaction(self, p: Mapping[str, Any], s: _Scope) -> list[LifecycleCall]:
        compacting = integer(p, "compactingCount")
        count = compacting if compacting is not None else integer(p, "messageCount")
        tokens = integer(p, "tokenCount")
        context = "openclaw compaction"
        if count is not None:
            context += f" of {count} messages"
        if tokens is not None:
            context += f", {tokens} tokens"
        return [self.pre_compaction_call(s.key, context, count)]

    @on("after_compaction", detach=True)
    def _after_compaction(self, p: Mapping[str, Any], s: _Scope) -> list[LifecycleCall]:
        integer(p, "compactedCount")  # validated for a clear error
        summary = string(p, "summary")
        entry = mapping(p, "compactionEntry")
        if (summary is None or not summary.strip()) and entry is not None:
            summary = string(entry, "summary", "compactionEntry.")
        if summary is None or not summary.strip():
            return []  # the next prompt hook sends it (see the module docstring)
        return [self.compaction_call(s.key, summary, s.project or s.carried("project"))]

    @on("session_end", detach=True)
    def _session_end(self, p: Mapping[str, Any], s: _Scope) -> list[LifecycleCall]:
        reason = string(p, "reason")
        if reason == "compaction":
            return []  # the session id rotated; the session goes on
        body: dict[str, Any] = {"sessionKey": s.key}
        put(body, "sessionId", string(p, "sessionId") or s.session_id)
        put(body, "cwd", s.carried("project"))
        body["reason"] = reason or "unknown"
        messages = array(s.held, "messages", "held.")
        if messages:
            put(body, "transcript", messages_jsonl(messages))
        return [LifecycleCall("session_end", body)]

    # -- render ----------------------------------------------------------

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        """The structured output the plugin applies (see the module docstring)."""
        s = _Scope(payload)
        if event == "session_start":
            if s.carried("started"):
                return self.neutral(event)
            text = context_text(results[0], prompt=False) if results else ""
            return NativeOutput({"carry": {"started": True, "inject": text or None}})
        if event in ("before_prompt_build", "before_agent_start"):
            return _render_turn(payload, s, results)
        if event == "after_compaction":
            if results:
                return self.neutral(event)
            return NativeOutput({"carry": {"compaction": _PENDING}})
        if event == "session_end":
            if string(payload, "reason") == "compaction":
                return self.neutral(event)
            return NativeOutput({"end": True})
        return self.neutral(event)


def _render_turn(p: Mapping[str, Any], s: _Scope, results: Sequence[Any]) -> NativeOutput:
    turn = _Turn(p, s)
    if not turn.start and not turn.compaction and turn.prompt is None:
        return NativeOutput()
    answers = list(results)
    parts = []
    held = s.carried("inject")
    if isinstance(held, str) and held.strip():
        parts.append(_wrap(held, "session-start"))
    if turn.start:
        parts.append(_wrap(context_text(answers.pop(0), prompt=False), "session-start"))
    if turn.compaction:
        answers.pop(0)
    if turn.prompt is not None:
        parts.append(_wrap(context_text(answers.pop(0), prompt=True), "prompt-recall"))
    carry: dict[str, Any] = {"started": True, "inject": None, "turn": turn.signature}
    if s.project:
        carry["project"] = s.project
    if turn.compaction:
        carry["compaction"] = None
    text = "\n\n".join(part for part in parts if part)
    data: dict[str, Any] = {"result": {"prependContext": text} if text else None, "carry": carry}
    return NativeOutput(data)


#: Native events this adapter understands, in lifecycle order.
EVENTS = OpenClawTranslator.event_names

#: The shared instance: the translator reads no environment.
TRANSLATOR = OpenClawTranslator()


def translator_for(env: Mapping[str, str]) -> OpenClawTranslator:
    """The translator for any environment (OpenClaw's choices travel in the payload)."""
    return TRANSLATOR
