"""Codex hook events <-> Signet lifecycle calls, as pure data.

Codex runs a command per hook event and hands it one JSON object on stdin
(``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``, ``model``
plus per-event fields). This module turns that object into the daemon calls
it implies and the daemon's answers into the bytes Codex reads back. It
performs no I/O itself and imports only the standard library and
``signet_sdk``'s stdlib core, because the hook process imports it for every
prompt.

Choices, and why:

* The session key is ``session_id``; the project is the payload's ``cwd``
  (Codex has no project-root variable for hooks).
* Codex parses JSON output against a schema that rejects unknown fields, so
  the only JSON ever printed is ``{"hookSpecificOutput":{"hookEventName":
  <event>,"additionalContext":<text>}}`` for SessionStart, UserPromptSubmit
  and SubagentStart; every other outcome is no output at all (exit 0, which
  Codex treats as "nothing to add").
* ``Stop`` fires after every turn, so it is a mid-session checkpoint carrying
  the transcript, never a session-end: ending the session on each turn would
  tombstone it and make every next turn re-claim it.
* ``SessionEnd`` (fired when Codex exits, ``codex exec`` included, with
  reason ``other``; Codex clamps its hooks to 3 s) forwards ``reason`` with
  the transcript through the outbox and a detached sender. Where it never
  fires (Codex killed, a crash), nothing said is lost: each turn's
  checkpoint already handed the transcript over durably (outbox first, then
  the daemon).
* ``PostCompact`` carries no summary in Codex. Codex writes the summary into
  the rollout transcript as a ``compacted`` line; the translator asks its
  ``read_summary`` (given by :func:`translator_for`, which reads the file
  under the transcript roots) for it and sends ``compaction-complete``. A
  ``compact_summary`` in the payload (the field Claude Code's PostCompact
  carries; Codex 0.169 sends none) is used first. With no summary to be
  found, the compacted transcript goes as a checkpoint.
* ``SubagentStart`` asks for context under the parent session with the
  subagent as ``harnessAgentId``; ``SubagentStop`` sends nothing (the
  subagent's result returns into the parent transcript).
"""

from __future__ import annotations

from signet_sdk.plugin import CommandHookTranslator, LifecycleCall, on, string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__all__ = ["EVENTS", "NOT_APPLICABLE", "TRANSLATOR", "CodexTranslator", "translator_for"]

NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of a Codex session",
}


class CodexTranslator(CommandHookTranslator):
    """The pure half of the Codex adapter (a ``HarnessTranslator``).

    ``read_summary`` maps a ``transcript_path`` to the compaction summary
    found there (or None); without it PostCompact always sends a checkpoint.
    Codex appends the ``additionalContext`` of SessionStart, UserPromptSubmit
    and SubagentStart to the model context (the one schema-valid envelope);
    anything else, or no context, is exit 0 and no stdout: Codex carries on
    as if no hook were set and is never blocked.
    """

    harness = "codex"
    not_applicable = NOT_APPLICABLE
    context_events = frozenset({"SessionStart", "UserPromptSubmit", "SubagentStart"})
    prompt_events = frozenset({"UserPromptSubmit"})

    def __init__(self, read_summary: Callable[[str], str | None] | None = None) -> None:
        self.read_summary = read_summary

    @on("SessionStart", "session_start", flushes=True)
    def _session_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [self.session_start_call(session, string(p, "cwd"), string(p, "source"))]

    @on("UserPromptSubmit", "prompt_submit")
    def _prompt(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return self.prompt_calls(session, self.required_prompt(p), string(p, "cwd"))

    @on("Stop")
    def _checkpoint(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        transcript = string(p, "transcript_path")
        if not transcript:
            return []  # an ephemeral session keeps no rollout: nothing to hand over
        return [self.checkpoint_call(session, string(p, "cwd"), transcript)]

    @on("PreCompact")
    def _pre_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        trigger = string(p, "trigger") or "unknown"
        body = {
            "sessionKey": session,
            "sessionContext": self.compaction_context("Codex", trigger, None),
        }
        return [LifecycleCall("pre_compaction", body)]

    @on("PostCompact")
    def _post_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        string(p, "trigger")
        transcript = string(p, "transcript_path")
        summary = string(p, "compact_summary")
        if not summary and transcript and self.read_summary is not None:
            summary = self.read_summary(transcript)
        if not summary or not summary.strip():
            return self._checkpoint(p, session)
        return [self.compaction_call(session, summary, string(p, "cwd"))]

    _subagent_start, _subagent_stop = CommandHookTranslator.subagent_handlers()

    @on("SessionEnd", detach=True)
    def _session_end(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [
            self.session_end_call(
                session,
                string(p, "cwd"),
                string(p, "reason") or "other",
                string(p, "transcript_path"),
            )
        ]


#: Native events this adapter understands, in lifecycle order.
EVENTS = CodexTranslator.event_names

#: The translator with no transcript reader (PostCompact always checkpoints).
TRANSLATOR = CodexTranslator()


def translator_for(env: Mapping[str, str]) -> CodexTranslator:
    """The hook process's translator: PostCompact reads summaries under the transcript roots."""

    def read_summary(path: str) -> str | None:
        from ._compact import summary_from_rollout
        from ._paths import transcript_roots

        return summary_from_rollout(path, transcript_roots(env))

    return CodexTranslator(read_summary)
