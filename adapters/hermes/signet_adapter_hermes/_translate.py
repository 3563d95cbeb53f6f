"""Hermes Agent MemoryProvider hooks <-> Signet lifecycle calls, as pure data.

The provider (:mod:`signet_adapter_hermes.provider`) turns each hook Hermes
calls into one event below, named after the hook, whose payload is plain
data:

* the hook's own arguments (``query``, ``messages``, ``task`` ...), in the
  daemon's camelCase;
* ``session``: ``id`` (Hermes's current session id), ``project`` (the
  working directory Hermes runs in, or ``SIGNET_PROJECT``), ``platform``
  and ``agentContext`` as ``initialize`` gave them;
* ``carry``: what earlier answers asked the provider to keep (below).

This module turns that payload into the daemon calls it implies and the
daemon's answers into ``data`` the provider applies: ``carry`` (key ->
value, None deletes), plus ``block`` (``system_prompt_block``'s return),
``context`` (``prefetch``'s return) or ``guidance`` (``on_pre_compress``'s
return). It performs no I/O.

Choices, and why:

* The session key is Hermes's session id; the project is the provider's
  working directory. ``agentId`` comes from ``SIGNET_AGENT_ID`` through the
  client.
* A ``cron`` or ``flush`` agent (``agent_context``, or the ``cron``
  platform) makes no call at all: Hermes asks providers to keep such
  system-driven runs out of the user's memory.
* ``initialize`` starts the session and carries the answer's context; the
  first ``system_prompt_block`` returns it (once per session: Hermes caches
  its system prompt, so a second assembly gets a one-line note instead).
* ``prefetch`` is the one prompt-submit per turn: Hermes 0.19 calls it
  before the tool loop with the turn's own message
  (agent/turn_context.py), so the recall is for the current query.
  ``queue_prefetch`` runs after a turn for a query not yet asked: it makes
  no call, since a recall keyed to the previous message would reach the
  next turn's model as if it were about the new one.
* ``sync_turn`` sends that turn as a checkpoint (inline transcript) and
  carries the assistant's reply as the next prompt's
  ``lastAssistantMessage``.
* ``on_pre_compress`` sends pre-compaction; the daemon's summary prompt and
  guidelines go back to Hermes, which adds them to its compression prompt
  (as "MEMORY PROVIDER CONTEXT"). It carries ``compressing``, the number of
  messages about to be compressed: Hermes then calls ``on_session_end`` with
  those same messages (agent/conversation_compression.py,
  ``commit_memory_session``) so providers extract them before they are
  summarised away; the session goes on, so that call is a checkpoint, not a
  session end.
* Compaction-complete: Hermes hands providers no summary. After compressing
  it calls ``on_session_switch(reason="compression")``; the next
  ``sync_turn`` carries the compressed history, whose summary message
  Hermes marks (``_compressed_summary``), and that text is sent.
* ``on_session_end`` (exit, ``/new``, gateway expiry) ends the session with
  its transcript and carries ``ended``; ``on_session_switch`` ends the old
  session (unless it already ended, as ``/new`` does just before) and starts
  the new one, named as the child of the old one unless the switch is a
  reset. A compression in place (Hermes 0.19's default) keeps the id: no
  call.
* ``on_memory_write`` (``add``/``replace`` by Hermes's built-in memory tool)
  and ``on_delegation`` (a subagent's task and result) are remembered.
"""

from __future__ import annotations

from signet_sdk.plugin import (
    EventTranslator,
    LifecycleCall,
    NativeOutput,
    PayloadError,
    array,
    carried,
    mapping,
    on,
    put,
    string,
)

from ._answers import context_text, fence, guidance
from ._payload import _bool, _messages, _need, last_user_text, summary_of, transcript_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = [
    "EVENTS",
    "NOTE",
    "NOT_APPLICABLE",
    "TRANSLATOR",
    "HermesTranslator",
    "translator_for",
]

#: Agent contexts Hermes asks providers to keep out of the user's memory.
SKIPPED_CONTEXTS = ("cron", "flush")

#: What a second system-prompt assembly in one session gets.
NOTE = (
    "Signet memory is active: relevant memories are recalled for each message, "
    "and the memory_search, memory_store, memory_get, memory_modify and "
    "memory_forget tools reach the same store."
)

NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a moment of a Hermes session",
}

#: Tags of what Hermes's built-in memory tool writes, and of delegations.
BUILTIN_TAGS = "hermes-builtin"
DELEGATION_TAGS = "delegation,subagent"


class _Session:
    """The ``session`` object of a payload, validated."""

    __slots__ = ("agent_context", "id", "platform", "project")

    def __init__(self, payload: Mapping[str, Any]) -> None:
        s = EventTranslator.required(mapping(payload, "session"), "session")
        sid = string(s, "id", "session.", required=True)
        assert sid is not None
        self.id = sid
        self.project = string(s, "project", "session.")
        self.platform = string(s, "platform", "session.")
        self.agent_context = string(s, "agentContext", "session.")

    @property
    def skipped(self) -> bool:
        return self.agent_context in SKIPPED_CONTEXTS or self.platform == "cron"


class HermesTranslator(EventTranslator):
    """The pure half of the Hermes adapter (a ``HarnessTranslator``).

    With nothing to apply, Hermes carries on as if no provider were loaded.
    """

    harness = "hermes-agent"
    not_applicable = NOT_APPLICABLE
    carries = True

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        """The daemon calls one Hermes hook implies: none for a context Hermes keeps private.

        Raises :class:`signet_sdk.PayloadError` naming the offending field.
        """
        handler = self.handler(event, payload)
        s = _Session(payload)
        calls = handler(self, payload, s)
        return [] if s.skipped else calls

    # -- the hooks -------------------------------------------------------

    @on("initialize", "session_start", flushes=True)
    def _initialize(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        body: dict[str, Any] = {"sessionKey": s.id}
        put(body, "project", s.project)
        parent = string(p, "parentSessionId")
        put(body, "parentSessionKey", parent)
        body["source"] = "startup"
        return [LifecycleCall("session_start", body)]

    @on("system_prompt_block")
    def _system_prompt_block(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        return []

    @on("on_turn_start")
    def _on_turn_start(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        string(p, "message")  # validated; prefetch makes the turn's one call
        return []

    @on("prefetch", "prompt_submit")
    def _prefetch(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        query = _need(p, "query")
        if not query.strip():
            return []  # the daemon refuses a blank prompt; there is nothing to recall for
        body: dict[str, Any] = {"sessionKey": s.id, "userMessage": query, "userPrompt": query}
        put(body, "project", s.project)
        last = carried(p, "lastAssistant")
        if isinstance(last, str):
            put(body, "lastAssistantMessage", last)
        return [LifecycleCall("user_prompt_submit", body)]

    @on("queue_prefetch")
    def _queue_prefetch(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        _need(p, "query")
        return []  # the next turn's query is not known yet; prefetch recalls for it

    @on("sync_turn", detach=True)
    def _sync_turn(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        user = _need(p, "user")
        assistant = _need(p, "assistant")
        messages = _messages(p)
        calls: list[LifecycleCall] = []
        if carried(p, "compacted"):
            summary = summary_of(messages)
            if summary:
                body: dict[str, Any] = {"sessionKey": s.id, "summary": summary}
                put(body, "project", s.project)
                calls.append(LifecycleCall("compaction_complete", body))
        turn = [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
        transcript = transcript_of(turn)
        if transcript:
            body = {"sessionKey": s.id}
            put(body, "project", s.project)
            body["transcript"] = transcript
            calls.append(LifecycleCall("session_checkpoint_extract", body))
        return calls

    @on("on_pre_compress")
    def _on_pre_compress(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        messages = _messages(p)
        body: dict[str, Any] = {"sessionKey": s.id}
        put(body, "sessionContext", last_user_text(messages))
        body["messageCount"] = len(messages)
        return [LifecycleCall("pre_compaction", body)]

    @on("on_session_switch", "session_start")
    def _on_session_switch(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        new = _need(p, "newSessionId")
        parent = string(p, "parentSessionId")
        reset = _bool(p, "reset")
        _bool(p, "rewound")
        reason = string(p, "reason")
        messages = _messages(p)
        if new == s.id:
            return []  # rewound or compressed in place: the same session goes on
        calls: list[LifecycleCall] = []
        if carried(p, "ended") != s.id:
            calls.append(_session_end(s, messages, reason or "switch"))
        body: dict[str, Any] = {"sessionKey": new}
        put(body, "project", s.project)
        if not reset:
            put(body, "parentSessionKey", parent or s.id)
        body["source"] = "compact" if reason == "compression" else (reason or "switch")
        calls.append(LifecycleCall("session_start", body))
        return calls

    @on("on_memory_write", detach=True)
    def _on_memory_write(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        action = _need(p, "action")
        target = string(p, "target")
        content = _need(p, "content")
        mapping(p, "metadata")
        if action not in ("add", "replace") or not content.strip():
            return []  # a removal has no content to store; Signet keeps its own history
        tags = BUILTIN_TAGS + (f",{target}" if target else "")
        body: dict[str, Any] = {"content": content.strip(), "tags": tags}
        put(body, "project", s.project)
        body["sessionKey"] = s.id
        return [LifecycleCall("remember", body)]

    @on("on_delegation", detach=True)
    def _on_delegation(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        task = _need(p, "task")
        result = _need(p, "result")
        string(p, "childSessionId")
        if not task.strip() or not result.strip():
            return []
        content = f"Delegated task: {task.strip()}\nResult: {result.strip()}"
        body: dict[str, Any] = {"content": content, "tags": DELEGATION_TAGS}
        put(body, "project", s.project)
        body["sessionKey"] = s.id
        return [LifecycleCall("remember", body)]

    @on("on_session_end", detach=True)
    def _on_session_end(self, p: Mapping[str, Any], s: _Session) -> list[LifecycleCall]:
        if array(p, "messages") is None:
            raise PayloadError("messages", "is required")
        messages = _messages(p)
        if _compacting(p, messages):
            transcript = transcript_of(messages)
            if not transcript:
                return []
            return [self.checkpoint_call(s.id, s.project, transcript, inline=True)]
        return [_session_end(s, messages, string(p, "reason") or "exit")]

    # -- render ----------------------------------------------------------

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        """What the provider applies (see the module docstring)."""
        s = _Session(payload)
        if event == "initialize":
            text = context_text(results[0], prompt=False) if results else ""
            return NativeOutput({"carry": {"context": text or None, "injected": None}})
        if event == "system_prompt_block":
            if s.skipped:
                return self.neutral(event)
            context = carried(payload, "context")
            if isinstance(context, str) and context.strip():
                block = fence(context, "session-start")
                return NativeOutput({"block": block, "carry": {"context": None, "injected": True}})
            return NativeOutput({"block": NOTE})
        if event == "prefetch" and results:
            text = context_text(results[0], prompt=True)
            return NativeOutput({"context": text}) if text else self.neutral(event)
        if event == "sync_turn":
            carry: dict[str, Any] = {
                "lastAssistant": string(payload, "assistant") or None,
                "compressing": None,
            }
            if any(c.action == "compaction_complete" for c in self.translate(event, payload)):
                carry["compacted"] = None
            return NativeOutput({"carry": carry})
        if event == "on_pre_compress" and results:
            data: dict[str, Any] = {"carry": {"compressing": len(_messages(payload))}}
            text = guidance(results[0])
            if text:
                data["guidance"] = text
            return NativeOutput(data)
        if event == "on_session_switch":
            return self._render_switch(payload, s, results)
        if event == "on_session_end":
            if _compacting(payload, _messages(payload)):
                return NativeOutput({"carry": {"compressing": None}})
            return NativeOutput({"carry": {"ended": s.id, "compressing": None}})
        return self.neutral(event)

    def fail_open(self, event: str, payload: Mapping[str, Any]) -> NativeOutput:
        """A pre-compression the daemon did not answer still carries ``compressing``.

        Hermes extracts the messages it compresses with ``on_session_end``
        whether or not the daemon gave guidance; without the count that call
        would end a session that goes on.
        """
        if event == "on_pre_compress":
            try:
                return NativeOutput({"carry": {"compressing": len(_messages(payload))}})
            except PayloadError:
                pass
        return self.neutral(event)

    def _render_switch(
        self, payload: Mapping[str, Any], s: _Session, results: Sequence[Any]
    ) -> NativeOutput:
        carry: dict[str, Any] = {"compressing": None}
        if string(payload, "reason") == "compression":
            carry["compacted"] = True
        if results:
            text = context_text(results[-1], prompt=False)
            carry.update(context=text or None, injected=None, ended=None)
            if string(payload, "reason") != "compression":
                carry["lastAssistant"] = None  # another conversation: no previous reply
        return NativeOutput({"carry": carry})


def _compacting(p: Mapping[str, Any], messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether this ``on_session_end`` is Hermes's extraction before a compression."""
    count = carried(p, "compressing")
    return isinstance(count, int) and not isinstance(count, bool) and count == len(messages)


def _session_end(s: _Session, messages: Sequence[Mapping[str, Any]], reason: str) -> LifecycleCall:
    transcript = transcript_of(messages)
    return EventTranslator.session_end_call(s.id, s.project, reason, None, transcript)


#: Native events this adapter understands, in lifecycle order.
EVENTS = HermesTranslator.event_names

#: The shared instance: the translator reads no environment.
TRANSLATOR = HermesTranslator()


def translator_for(env: Mapping[str, str]) -> HermesTranslator:
    """The translator for any environment (the provider's choices travel in the payload)."""
    return TRANSLATOR
