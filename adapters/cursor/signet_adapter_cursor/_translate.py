"""Cursor hook events <-> Signet lifecycle calls, as pure data.

Cursor runs a command per hook event and hands it one JSON object on stdin:
``conversation_id``, ``generation_id``, ``model``, ``hook_event_name``
(the event's camelCase name), ``cursor_version``, ``workspace_roots``,
``user_email`` and ``transcript_path`` on every event, plus per-event
fields. This module turns that object into the daemon calls it implies and
the daemon's answers into the JSON Cursor reads back. It performs no I/O of
its own (a transcript Cursor did not name is looked up only through the
``find_transcript`` it is given; :func:`translator_for` gives the hook
process one) and imports only the standard library and ``signet_sdk``'s
stdlib core, because the hook process imports it for every prompt.

Choices, and why:

* The session key is ``conversation_id``, "stable across many turns" in
  Cursor's reference; ``sessionStart`` and ``sessionEnd`` also carry
  ``session_id``, documented as the same value, which is used only when
  ``conversation_id`` is missing.
* The project is the first of ``workspace_roots`` (Cursor's workspace
  folder), else ``CURSOR_PROJECT_DIR`` from the hook's environment.
* Cursor reads a hook's stdout as JSON when it exits 0 and counts output it
  cannot parse as a failed hook (the action proceeds). So every event prints
  a JSON object: ``{"additional_context": ...}`` for ``sessionStart`` with
  context, ``{"continue": true}`` for ``beforeSubmitPrompt`` and ``{}``
  otherwise, a daemon that is down included. Nothing ever blocks: no
  ``continue: false``, no exit 2.
* ``sessionStart`` is the only event whose output Cursor adds to the
  model's context (``additional_context``, "the conversation's initial
  system context"). Cursor does not wait for it before the first turn.
* ``beforeSubmitPrompt`` takes only ``continue`` and ``user_message``: it
  cannot add context. It still sends user-prompt-submit, because that call
  is how the daemon records the prompt of a turn as it happens (its live
  transcript of the session, the session's claim, each turn's recall
  signals), and because with transcripts off (``transcript_path`` null) it
  is the daemon's only per-turn record of what the user asked. The daemon's
  answer is not shown to anyone; the output is always ``{"continue":
  true}``.
* ``stop`` (the agent loop ended: one turn) is a mid-session checkpoint
  carrying the transcript, never a session end (that would tombstone the
  session after each turn). Without a transcript to hand over it sends
  nothing. ``afterAgentResponse`` is not used: it fires per assistant
  message, and the transcript the turn's ``stop`` sends already holds them.
* ``preCompact`` is observational in Cursor (it cannot change the
  compaction), so pre-compaction is sent for the daemon's record with what
  Cursor reports about the context window; the daemon's summary guidelines
  have nowhere to go (``user_message`` is shown to the user, not the
  model). Cursor has no post-compaction hook and no payload carries the
  summary.
* ``sessionEnd`` (fire-and-forget in Cursor) sends session-end with its
  ``reason`` and the transcript through the outbox and a detached sender.
"""

from __future__ import annotations

from signet_sdk.plugin import (
    CommandHookTranslator,
    LifecycleCall,
    NativeOutput,
    PayloadError,
    array,
    integer,
    on,
    string,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    #: (workspace folder, conversation id) -> the transcript Cursor wrote, or None.
    TranscriptFinder = Callable[[str, str], str | None]

__all__ = ["EVENTS", "NOT_APPLICABLE", "TRANSLATOR", "CursorTranslator", "translator_for"]

NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of a Cursor session",
    "compaction-complete": (
        "Cursor has no post-compaction hook and no hook payload carries the summary "
        "(preCompact only observes); the compacted conversation reaches the daemon in the "
        "transcript of the next stop checkpoint and of sessionEnd"
    ),
    "prompt-submit": (
        "the context half: beforeSubmitPrompt output takes only continue and user_message, "
        "so what the daemon recalls for a prompt never reaches Cursor's model (the call is "
        "still made, to record the prompt; session start is where Cursor takes context)"
    ),
}

#: What every event but ``beforeSubmitPrompt`` answers when there is nothing to add.
_NOTHING: dict[str, Any] = {}
#: ``beforeSubmitPrompt``'s answer, always: let the prompt go.
_PROCEED = {"continue": True}


class CursorTranslator(CommandHookTranslator):
    """The pure half of the Cursor adapter (a ``HarnessTranslator``).

    ``find_transcript`` maps (workspace folder, conversation id) to the
    transcript Cursor wrote when the payload names none (null
    ``transcript_path``); without it such a ``stop`` sends nothing and
    ``sessionEnd`` goes without a transcript. ``project_dir`` is the hook
    environment's ``CURSOR_PROJECT_DIR``, the project when the payload has
    no ``workspace_roots``; the translator does not read the environment
    itself, so the same input always gives the same calls.
    """

    harness = "cursor"
    not_applicable = NOT_APPLICABLE
    context_events = frozenset({"sessionStart"})

    def __init__(
        self, find_transcript: TranscriptFinder | None = None, project_dir: str | None = None
    ) -> None:
        self.find_transcript = find_transcript
        self.project_dir = project_dir or None

    def scope(self, payload: Mapping[str, Any]) -> str:
        """The session: ``conversation_id``, else ``session_id``; one must be given."""
        session = string(payload, "conversation_id") or string(payload, "session_id")
        if session is None or not session.strip():
            raise PayloadError("conversation_id", "is required")
        return session

    def _project(self, p: Mapping[str, Any]) -> str | None:
        roots = array(p, "workspace_roots") or []
        for i, root in enumerate(roots):
            if not isinstance(root, str):
                raise PayloadError(f"workspace_roots[{i}]", "must be a string")
        first = roots[0] if roots and roots[0].strip() else None
        return first or self.project_dir

    def _transcript(self, p: Mapping[str, Any], session: str) -> str | None:
        named = string(p, "transcript_path")
        if named:
            return named
        project = self._project(p)
        if self.find_transcript is None or project is None:
            return None
        return self.find_transcript(project, session)

    @on("sessionStart", "session_start", flushes=True)
    def _session_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [self.session_start_call(session, self._project(p))]

    @on("beforeSubmitPrompt", "prompt_submit")
    def _prompt(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return self.prompt_calls(session, self.required_prompt(p), self._project(p))

    @on("stop")
    def _stop(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        string(p, "status")  # validated for a clear error, otherwise unused
        transcript = self._transcript(p, session)
        if not transcript:
            return []  # transcripts off and none found: nothing to hand over
        return [self.checkpoint_call(session, self._project(p), transcript)]

    @on("preCompact")
    def _pre_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [self.pre_compaction_call(session, _compaction_note(p), integer(p, "message_count"))]

    @on("sessionEnd", detach=True)
    def _session_end(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [
            self.session_end_call(
                session,
                self._project(p),
                string(p, "reason") or "other",
                self._transcript(p, session),
            )
        ]

    def context_output(self, event: str, text: str) -> NativeOutput:
        """``sessionStart``'s output field for the conversation's initial context."""
        return NativeOutput({"additional_context": text})

    def neutral(self, event: str) -> NativeOutput:
        """``{"continue": true}`` for ``beforeSubmitPrompt``, else ``{}``: nothing to add."""
        return NativeOutput(dict(_PROCEED if event == "beforeSubmitPrompt" else _NOTHING))


def _number(p: Mapping[str, Any], name: str) -> int | float | None:
    """A numeric field (not a boolean), or None when absent."""
    value = p.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PayloadError(name, f"must be a number, got {type(value).__name__}")
    return value


def _compaction_note(p: Mapping[str, Any]) -> str:
    """What Cursor says about the compaction, as one line for the daemon's record.

    ``Cursor compaction (auto): context 85% of 128000 tokens, 30 of 45
    messages to be summarised`` (each part only when Cursor reports it).
    """
    trigger = string(p, "trigger") or "unknown"
    used, window = _number(p, "context_usage_percent"), _number(p, "context_window_size")
    total, folded = integer(p, "message_count"), integer(p, "messages_to_compact")
    parts = []
    if used is not None:
        of_window = f" of {_shown(window)} tokens" if window else ""
        parts.append(f"context {_shown(used)}%{of_window}")
    if folded is not None:
        of_total = f" of {total}" if total is not None else ""
        parts.append(f"{folded}{of_total} messages to be summarised")
    note = f"Cursor compaction ({trigger})"
    return f"{note}: {', '.join(parts)}" if parts else note


def _shown(number: int | float) -> str:
    """``85`` for 85 and 85.0, ``85.5`` for 85.5."""
    if isinstance(number, int) or not number.is_integer():
        return str(number)
    return str(int(number))


#: Native events this adapter understands, in lifecycle order.
EVENTS = CursorTranslator.event_names

#: The translator with no transcript finder (a null ``transcript_path`` stays null).
TRANSLATOR = CursorTranslator()


def translator_for(env: Mapping[str, str]) -> CursorTranslator:
    """The hook process's translator: finds unnamed transcripts, knows CURSOR_PROJECT_DIR."""

    def find_transcript(workspace: str, conversation: str) -> str | None:
        from ._paths import find_transcript as find

        return find(env, workspace, conversation)

    return CursorTranslator(find_transcript, env.get("CURSOR_PROJECT_DIR"))
