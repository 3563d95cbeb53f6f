"""pi extension events <-> Signet lifecycle calls, as pure data.

The pi shim (``shim/index.js``) forwards each event below as one JSON
object: the event's own fields as :data:`SHIM_EVENTS` selects them, plus

* ``session``: what the extension context says about the session: ``id``,
  ``file``, ``cwd`` (the context's working directory), ``leafId``,
  ``persisted`` (pi writes a session file at all), ``onDisk`` (that file
  exists now) and, for the events marked ``"transcript"``, the session
  ``header`` and, only while the file is not on disk, its ``entries``;
* ``carry``: the markers earlier answers asked the shim to keep (below).

This module turns that object into the daemon calls it implies and the
daemon's answers into the structured output the shim applies. It performs
no I/O and imports only the standard library and the core's
:mod:`signet_sdk.plugin`: the hook process (the fallback while no adapter
server runs) imports it for every event.

What the shim applies (``data`` of the output, or None for nothing):

* ``context``: slot name -> ``{"at", "until"?, "messages"}`` or None. The
  shim keeps each slot's messages and adds them to every model request in
  pi's ``context`` event: ``at: "start"`` before the first message,
  ``at: "prompt"`` right after the last user message. An empty or None
  slot is dropped; ``until: <event>`` drops the slot when that event next
  fires. The messages are never written to the session, so nothing piles
  up across turns and nothing reaches the transcript.
* ``carry``: key -> value (None deletes). The shim sends its carry with
  every later event; this is how a pure translator remembers across events.
* ``result``: what the pi handler returns (unused so far).

Choices, and why:

* The session key is pi's session id; the project is the context's ``cwd``
  (the session header's ``cwd`` when missing). ``agentId`` comes from
  ``SIGNET_AGENT_ID`` through the client.
* ``session_start`` asks for the session context and holds it in the
  ``signet-session`` slot, so it reaches every request of the session,
  the first turn's included, exactly once each. ``source`` is pi's
  ``reason``; a fork names the session it came from as ``parentSessionKey``.
* ``input`` is the one prompt-submit per prompt: it fires for every prompt
  (typed, RPC or from another extension), before skill and template
  expansion, so the recall runs on what the user wrote. Its inject goes to
  the ``signet-recall`` slot, replaced by the next prompt.
  ``before_agent_start`` fires right after it for the same prompt and makes
  no call; the shim does not even forward it.
* ``agent_end`` closes one prompt: a checkpoint carrying that prompt's
  messages inline, as JSON lines shaped like the session file's message
  entries (image data left out).
* ``session_before_compact`` can fire twice for one compaction (a threshold
  compaction still running when the next prompt starts another). The first
  makes the pre-compaction call and asks the shim to carry
  ``compaction = <session id>:<leaf id>``; a second firing at the same leaf
  makes none. The daemon's guidance cannot be handed back: pi takes only a
  cancel or a complete summary from this event.
* ``session_compact`` sends ``compactionEntry.summary`` to
  compaction-complete.
* ``session_shutdown`` ends the session in the context it fires in, which
  in pi 0.73.1 is the old session for ``/new``, ``/resume`` and ``/fork``
  as well as for quitting. The transcript is the session file when it is on
  disk (the core reads it only under the transcript roots and stages a
  copy); a session pi has not written (no assistant reply yet, or
  ``--no-session``) sends the same lines from memory instead, so a missing
  file never costs the transcript.
* ``session_before_fork`` on an in-memory session: pi replaces that
  session in place before ``session_shutdown`` fires, so the old session is
  ended here, with its entries, and ``ended = <id>`` is carried; the
  shutdown that follows (now showing the new session) sends nothing.
  ``session_before_switch`` and a persisted fork make no call.
"""

from __future__ import annotations

from signet_sdk.plugin import (
    EventTranslator,
    LifecycleCall,
    NativeOutput,
    carried,
    context_text,
    integer,
    mapping,
    on,
    put,
    string,
)

from ._payload import (
    _entries_jsonl,
    _Session,
    _session_id_of_file,
)

# Payloads are parsed JSON, so objects are checked as dicts and arrays as lists:
# collections.abc and typing stay off the hook path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = [
    "EVENTS",
    "NOT_APPLICABLE",
    "SHIM_EVENTS",
    "TRANSLATOR",
    "PiTranslator",
    "translator_for",
]

#: What the shim forwards, per event: the event fields to keep (``True``: the
#: value, ``"count"``: an array's length, an object: those of its fields) and
#: how much of the session to describe (``"meta"``, or ``"transcript"`` for the
#: header and, while the file is not on disk, the entries). Events not listed
#: are not forwarded.
SHIM_EVENTS: Mapping[str, Mapping[str, Any]] = {
    "session_start": {
        "fields": {"type": True, "reason": True, "previousSessionFile": True},
        "session": "meta",
    },
    "input": {
        "fields": {"type": True, "text": True, "source": True, "images": "count"},
        "session": "meta",
    },
    "agent_end": {"fields": {"type": True, "messages": True}, "session": "meta"},
    "session_before_compact": {
        "fields": {
            "type": True,
            "preparation": {
                "firstKeptEntryId": True,
                "tokensBefore": True,
                "messagesToSummarize": "count",
                "isSplitTurn": True,
            },
            "customInstructions": True,
            "reason": True,
        },
        "session": "meta",
    },
    "session_compact": {
        "fields": {
            "type": True,
            "compactionEntry": {
                "id": True,
                "summary": True,
                "firstKeptEntryId": True,
                "tokensBefore": True,
            },
            "fromExtension": True,
        },
        "session": "meta",
    },
    "session_before_switch": {
        "fields": {"type": True, "reason": True, "targetSessionFile": True},
        "session": "meta",
    },
    "session_before_fork": {
        "fields": {"type": True, "entryId": True, "position": True},
        "session": "transcript",
    },
    "session_shutdown": {
        "fields": {"type": True, "reason": True, "targetSessionFile": True},
        "session": "transcript",
    },
}

#: Context slots the shim keeps (see the module docstring).
SESSION_SLOT = "signet-session"
RECALL_SLOT = "signet-recall"
#: ``customType`` of the messages added to model requests.
CUSTOM_TYPE = "signet-memory"

#: The memory tools are not registered in pi: pi has no MCP client, and the
#: shared shim transport carries lifecycle events only.
NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of a pi session",
}


# -- the translator ---------------------------------------------------------


class PiTranslator(EventTranslator):
    """The pure half of the pi adapter (a ``HarnessTranslator``).

    With nothing to apply, pi carries on as if no extension were loaded.
    """

    harness = "pi"
    not_applicable = NOT_APPLICABLE
    event_field = "type"
    carries = True

    def scope(self, payload: Mapping[str, Any]) -> _Session:
        """The pi session the event describes (the shim's ``session`` block)."""
        return _Session(payload)

    @on("session_start", "session_start", flushes=True)
    def _session_start(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        reason = string(p, "reason")
        parent = None
        if reason == "fork":
            parent = _session_id_of_file(string(p, "previousSessionFile"))
        return [self.session_start_call(s.id, s.cwd, reason, parentSessionKey=parent)]

    @on("input", "prompt_submit")
    def _input(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        text = self.required(string(p, "text"), "text")
        if not text.strip():
            return []  # the daemon refuses a blank prompt; there is nothing to recall for
        body: dict[str, Any] = {"sessionKey": s.id, "userMessage": text, "userPrompt": text}
        put(body, "project", s.cwd)
        return [LifecycleCall("user_prompt_submit", body)]

    @on("before_agent_start", "prompt_submit")
    def _before_agent_start(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        string(p, "prompt")  # validated for a clear error; input already made the call
        return []

    @on("agent_end", detach=True)
    def _agent_end(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        return self.turn_checkpoint_calls(p, s.id, s.cwd)

    @on("session_before_compact")
    def _before_compact(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        if _compaction_key(s) == carried(p, "compaction"):
            return []  # the same compaction fired again
        prep = mapping(p, "preparation") or {}
        count = integer(prep, "messagesToSummarize", "preparation.")
        tokens = integer(prep, "tokensBefore", "preparation.")
        context = "pi compaction"
        reason = string(p, "reason")
        if reason:
            context += f" ({reason})"
        if count is not None:
            context += f" of {count} messages"
        if tokens is not None:
            context += f", {tokens} tokens before"
        instructions = string(p, "customInstructions")
        if instructions and instructions.strip():
            context += f"; user instructions: {instructions.strip()}"
        return [self.pre_compaction_call(s.id, context, count)]

    @on("session_compact", detach=True)
    def _compact(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        entry = self.required(mapping(p, "compactionEntry"), "compactionEntry")
        summary = self.required(
            string(entry, "summary", "compactionEntry."), "compactionEntry.summary"
        )
        if not summary.strip():
            return []  # the daemon refuses an empty summary; there is nothing to keep
        return [self.compaction_call(s.id, summary, s.cwd)]

    @on("session_before_switch")
    def _before_switch(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        string(p, "reason")
        string(p, "targetSessionFile")
        return []  # session_shutdown follows in the old session's context

    @on("session_before_fork", detach=True)
    def _before_fork(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        string(p, "entryId")
        if s.persisted:
            return []  # session_shutdown follows in the old session's context
        return [_session_end(s, "fork")]

    @on("session_shutdown", detach=True)
    def _shutdown(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        ended = carried(p, "ended")
        if ended is not None and ended != s.id:
            return []  # an in-memory fork: the old session was ended at session_before_fork
        return [_session_end(s, string(p, "reason") or "quit")]

    # -- render ----------------------------------------------------------

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        """The structured output the shim applies (see the module docstring)."""
        if event == "session_start" and results:
            text = context_text(results[0], prompt=False)
            if text:
                slot = _slot(text, "session-start", at="start")
                return NativeOutput({"context": {SESSION_SLOT: slot}})
        elif event == "input" and results:
            text = context_text(results[0], prompt=True)
            if text:
                slot = _slot(text, "prompt-recall", at="prompt", until="input")
                return NativeOutput({"context": {RECALL_SLOT: slot}})
        elif event == "session_before_compact" and results:
            return NativeOutput({"carry": {"compaction": _compaction_key(_Session(payload))}})
        elif event == "session_before_fork" and results:
            return NativeOutput({"carry": {"ended": _Session(payload).id}})
        return self.neutral(event)


def _session_end(s: _Session, reason: str) -> LifecycleCall:
    if s.on_disk and s.file:
        return EventTranslator.session_end_call(s.id, s.cwd, reason, s.file)
    inline = _entries_jsonl(s.header, s.entries) if s.entries else None
    return EventTranslator.session_end_call(s.id, s.cwd, reason, None, inline)


def _compaction_key(s: _Session) -> str:
    return f"{s.id}:{s.leaf or ''}"


def _slot(text: str, source: str, *, at: str, until: str | None = None) -> dict[str, Any]:
    """A context slot holding one hidden message with ``text``."""
    message = {
        "role": "custom",
        "customType": CUSTOM_TYPE,
        "content": f'<signet-memory source="{source}">\n{text.strip()}\n</signet-memory>',
        "display": False,
    }
    slot: dict[str, Any] = {"at": at, "messages": [message]}
    if until is not None:
        slot["until"] = until
    return slot


#: Native events this adapter understands, in lifecycle order.
EVENTS = PiTranslator.event_names

#: The shared instance: the translator reads no environment.
TRANSLATOR = PiTranslator()


def translator_for(env: Mapping[str, str]) -> PiTranslator:
    """The translator for any environment (pi's choices travel in the payload)."""
    return TRANSLATOR
