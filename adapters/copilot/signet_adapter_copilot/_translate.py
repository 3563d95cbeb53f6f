"""GitHub Copilot CLI hook events <-> Signet lifecycle calls, as pure data.

Copilot CLI runs a command for each hook event configured in a hook file
(``{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash":
...}]}}``) and hands it one JSON object on stdin. Configured under its
camelCase name, an event's payload is camelCase too: ``sessionId``,
``timestamp`` (milliseconds), ``cwd`` plus per-event fields, and no field
naming the event (the installer puts the event on the command line). This
module turns that object into the daemon calls it implies and the daemon's
answers into what Copilot reads back. It performs no I/O itself: the
session's ``events.jsonl`` is read, and its conversation written out, only
through the ``look`` function it is given (:func:`translator_for` gives the
hook process one).

Choices, and why:

* The session key is ``sessionId``; the project is the payload's ``cwd``.
* Copilot takes a top-level ``{"additionalContext": <text>}`` from
  sessionStart and userPromptSubmitted (and prepends subagentStart's to the
  subagent's prompt); every other outcome is exit 0 and no output.
* sessionStart's ``source`` is ``new`` for a session Copilot has just
  created, ``resume`` for ``--resume``; ``new`` goes to the daemon as
  ``startup``, the word the daemon knows for a fresh session.
* ``agentStop`` fires after every turn: a mid-session checkpoint, never a
  session-end. Its transcript is the conversation read from
  ``events.jsonl`` (the user's and the agent's messages, see
  :mod:`._events`), kept as a file the daemon reads. A file read that holds
  no such message has nothing to save: no checkpoint, and never the raw log
  (system prompts, tool output) in its place; only when there is no file to
  read does the checkpoint carry the ``transcriptPath`` Copilot gave.
  ``sessionEnd`` sends the same conversation (or none) with its ``reason``
  (``complete``, ``user_exit``, ``abort``, ``error``, ``timeout``) through
  the outbox and a detached sender.
* ``preCompact`` (``/compact``, or automatic) is the pre-compaction. No hook
  follows a compaction: its summary (``session.compaction_complete``) is
  read from ``events.jsonl`` by the session's next hook of the main agent
  (sessionStart, userPromptSubmitted, agentStop, preCompact, sessionEnd)
  that finds it, and sent as compaction-complete once (a claim per summary,
  see :mod:`._state`). agentStop and sessionEnd first wait for Copilot to
  write the file up to their own ``hook.start``, so a summary is found by
  the end of its turn at the latest, and the end of the session right after
  a ``/compact`` finds it. On sessionStart and userPromptSubmitted the write
  goes to the outbox and a detached sender, so it never delays the context;
  the injecting call comes first, its answer is what Copilot gets.
* A subagent shows in the events: subagentStart carries ``agentId`` (the
  instance), ``agentName`` and ``parentAgentId``; it asks for context under
  the parent session with the subagent as ``harnessAgentId``. Inside the
  subagent, Copilot fires userPromptSubmitted and agentStop with the
  subagent's id as ``sessionId`` and a ``parentAgentId``: those are the
  parent model's instructions and the subagent's work, which returns into
  the parent's conversation, so they send nothing; neither does
  subagentStop.
"""

from __future__ import annotations

from signet_sdk.plugin import (
    EventTranslator,
    LifecycleCall,
    NativeOutput,
    PayloadError,
    on,
    put,
    string,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    #: (session, event, payload, with the conversation?, settle first?)
    #: -> (compactions found and claimed, conversation path: None when there is
    #: no file to read, "" when the file holds no conversation)
    Look = Callable[
        [str, str, Mapping[str, Any], bool, bool], tuple[list[tuple[str, str]], str | None]
    ]

__all__ = [
    "EVENTS",
    "NOT_APPLICABLE",
    "TRANSLATOR",
    "CopilotTranslator",
    "translator_for",
]

NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of a Copilot CLI session",
    "compaction-complete": (
        "no Copilot hook payload carries the summary: the session's next hook reads it from the "
        "events.jsonl its session writes, which a static vector cannot carry (covered by "
        "adapters/copilot/tests/test_cp_compaction.py and the real-binary e2e)"
    ),
}

#: Copilot's ``source`` -> the daemon's word for it.
_SOURCES = {"new": "startup"}


class CopilotTranslator(EventTranslator):
    """The pure half of the Copilot CLI adapter (a ``HarnessTranslator``).

    ``look(session, event, payload, conversation, settle)`` returns the
    compactions this hook reports (``(event id, summary)``, oldest first,
    already claimed) and, when ``conversation`` is asked for, the path of the
    session's conversation file: None when there is no ``events.jsonl`` to
    read, ``""`` when it was read and holds no conversation. ``settle`` asks
    it to wait until Copilot has written everything before this hook.
    Without it no compaction is reported and a checkpoint carries the
    ``transcriptPath`` Copilot gave.
    """

    harness = "copilot"
    not_applicable = NOT_APPLICABLE
    context_events = frozenset({"sessionStart", "userPromptSubmitted", "subagentStart"})
    prompt_events = frozenset({"userPromptSubmitted"})

    def __init__(self, look: Look | None = None) -> None:
        self.look = look

    def scope(self, payload: Mapping[str, Any]) -> str:
        """The session the event belongs to: ``sessionId``, present and not blank."""
        session = string(payload, "sessionId", required=True)
        assert session is not None
        return session

    def context_output(self, event: str, text: str) -> NativeOutput:
        """Copilot reads context from a top-level ``additionalContext``."""
        return NativeOutput({"additionalContext": text})

    # -- what events.jsonl adds ----------------------------------------------

    def _looked(
        self, p: Mapping[str, Any], session: str, event: str, *, settle: bool = False
    ) -> tuple[list[LifecycleCall], str | None]:
        """The compaction-complete calls this hook owes, and (``settle``) the conversation.

        The hooks that settle (the end of a turn, of the session) also send the
        conversation: waiting for Copilot's file is what makes it whole.
        """
        if self.look is None:
            return [], None
        found, path = self.look(session, event, p, settle, settle)
        calls = []
        for _, summary in found:
            body: dict[str, Any] = {"sessionKey": session, "summary": summary}
            put(body, "project", string(p, "cwd"))
            calls.append(LifecycleCall("compaction_complete", body))
        return calls, path

    @staticmethod
    def _in_subagent(p: Mapping[str, Any], session: str) -> bool:
        """Whether the event comes from inside a subagent (its id is the ``sessionId``)."""
        parent = string(p, "parentAgentId")
        return bool(parent) and parent != session

    # -- events ----------------------------------------------------------------

    @on("sessionStart", "session_start", detach=True, flushes=True)
    def _session_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        if self._in_subagent(p, session):
            return []
        source = string(p, "source")
        string(p, "initialPrompt")  # validated for a clear error, otherwise unused
        start = self.session_start_call(
            session, string(p, "cwd"), _SOURCES.get(source or "", source)
        )
        compactions, _ = self._looked(p, session, "sessionStart")
        return [start, *compactions]

    @on("userPromptSubmitted", "prompt_submit", detach=True)
    def _prompt(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        prompt = self.required_prompt(p)
        if self._in_subagent(p, session):
            return []  # the parent model's instructions to its subagent
        compactions, _ = self._looked(p, session, "userPromptSubmitted")
        return [*self.prompt_calls(session, prompt, string(p, "cwd")), *compactions]

    @on("agentStop")
    def _agent_stop(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        given = string(p, "transcriptPath")
        string(p, "stopReason")
        if self._in_subagent(p, session):
            return []  # the subagent's work returns into the parent's conversation
        compactions, conversation = self._looked(p, session, "agentStop", settle=True)
        # "": the log was read and holds no conversation (nothing to save, and the
        # raw log is not one); None: no log was read, so the path Copilot gave goes.
        transcript = given if conversation is None else conversation
        if not transcript:
            return compactions
        checkpoint = self.checkpoint_call(session, string(p, "cwd"), transcript)
        return [*compactions, checkpoint]

    @on("preCompact")
    def _pre_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        trigger = string(p, "trigger") or "unknown"
        instructions = string(p, "customInstructions")
        string(p, "transcriptPath")
        if self._in_subagent(p, session):
            return []  # a subagent compacting its own context
        context = self.compaction_context("Copilot CLI", trigger, instructions)
        compactions, _ = self._looked(p, session, "preCompact")
        body = {"sessionKey": session, "sessionContext": context}
        return [*compactions, LifecycleCall("pre_compaction", body)]

    @on("subagentStart", "session_start")
    def _subagent_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        name = string(p, "agentName")
        agent = string(p, "agentId") or name
        if not agent or not agent.strip():
            raise PayloadError("agentName", "is required")
        return self.subagent_start_calls(session, agent, string(p, "cwd"))

    @on("subagentStop")
    def _subagent_stop(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        string(p, "agentName")  # validated for a clear error, otherwise unused
        string(p, "agentId")
        return []

    @on("sessionEnd", detach=True)
    def _session_end(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        reason = string(p, "reason") or "other"
        if self._in_subagent(p, session):
            return []
        compactions, conversation = self._looked(p, session, "sessionEnd", settle=True)
        body: dict[str, Any] = {"sessionKey": session, "sessionId": session}
        put(body, "cwd", string(p, "cwd"))
        body["reason"] = reason
        put(body, "transcriptPath", conversation)
        return [*compactions, LifecycleCall("session_end", body)]


#: Native events this adapter understands, in lifecycle order.
EVENTS = CopilotTranslator.event_names

#: The translator that reads no file (no compaction is reported).
TRANSLATOR = CopilotTranslator()


def translator_for(env: Mapping[str, str]) -> CopilotTranslator:
    """The hook process's translator: it reads ``events.jsonl`` under the transcript roots."""

    def look(
        session: str, event: str, payload: Mapping[str, Any], conversation: bool, settle: bool
    ) -> tuple[list[tuple[str, str]], str | None]:
        from ._session import SETTLE_SECONDS, look_at_session

        wait = SETTLE_SECONDS if settle else 0.0
        return look_at_session(
            env, session, event, payload, with_conversation=conversation, settle=wait
        )

    return CopilotTranslator(look)
