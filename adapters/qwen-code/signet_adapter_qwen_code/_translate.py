"""Qwen Code hook events <-> Signet lifecycle calls, as pure data.

Qwen Code runs a command per hook event and hands it one JSON object on
stdin (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``,
``timestamp``, ``permission_mode`` plus per-event fields), the same shape as
Claude Code's hooks. This module turns that object into the daemon calls it
implies and the daemon's answers into the JSON Qwen Code reads back. It does
no I/O of its own: the session notes (:mod:`._sessions`) and the summary
claims (:mod:`._once`) are reached only through the objects it is given,
which :func:`translator_for` builds for a hook process. Standard library and
``signet_sdk.plugin`` only: the hook process imports it for every prompt.

Choices, and why:

* The session key is ``session_id``; the project is the payload's ``cwd``
  (Qwen Code sets ``QWEN_PROJECT_DIR`` to the same value).
* ``SessionStart`` (``startup``, ``resume``, ``clear``, ``compact``) asks for
  the session's context; Qwen Code puts ``additionalContext`` into the system
  prompt (after a compaction too, where it fires with ``compact``).
  It also ends sessions whose Qwen Code process is gone without a SessionEnd
  (a finished ``qwen -p`` run fires none): see :mod:`._sessions`. Those
  session-ends are writes, so they go to the durable outbox and a detached
  sender (the event's ``detach``) and never hold the new session's context up.
* ``UserPromptSubmit`` fires before every model call that continues a user
  turn, not only for what the user typed: after a tool result it fires again
  with an empty ``prompt``. The user's own words are ``submitted_prompt``
  when Qwen Code gives it, else ``prompt``; a blank one sends nothing and
  prints nothing, so a tool loop costs no recalls and repeats no context.
* ``Stop`` fires at the end of every turn; it becomes a mid-session
  checkpoint with the session's record file, so every turn reaches the
  daemon even when no session end ever comes.
* ``PreCompact`` (``manual`` from ``/compress``, ``auto`` near the context
  limit) records a pre-compaction. Qwen Code adds a PreCompact hook's
  ``additionalContext`` to its summariser's instructions, so the daemon's
  summary prompt and guidelines go back that way (cut to the 4,000
  characters Qwen Code keeps).
* ``PostCompact`` carries the summary (``compact_summary``) to
  compaction-complete, once per summary (``claim``).
* ``SubagentStart`` asks for context under the parent session with the
  subagent as ``harnessAgentId`` and gives it to the subagent;
  ``SubagentStop`` sends nothing (the subagent's result comes back into the
  parent's record, which the parent's checkpoints carry).
* ``SessionEnd`` (``clear``, ``logout``, ``prompt_input_exit``,
  ``bypass_permissions_disabled``, ``other``; interactive only) sends
  session-end with the record file, via the outbox and a detached sender;
  ``clear`` goes without it, since the daemon discards that session's state.
* Nothing ever sets ``decision`` or ``continue``, and no event exits 2: a
  memory hook never blocks a turn.
"""

from __future__ import annotations

from signet_sdk.plugin import CommandHookTranslator, LifecycleCall, PayloadError, on, string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from signet_sdk.plugin import NativeOutput

    from ._sessions import SessionNotes

    #: (session, summary) -> whether this process is the first to report the summary.
    Claim = Callable[[str, str], bool]

__all__ = [
    "EVENTS",
    "MAX_GUIDANCE_CHARS",
    "NOT_APPLICABLE",
    "TRANSLATOR",
    "QwenCodeTranslator",
    "guidance",
    "translator_for",
]

#: The memory tool rows are served by the MCP server the installer registers.
NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of a Qwen Code session",
}

#: What Qwen Code keeps of a PreCompact hook's instructions to its summariser.
MAX_GUIDANCE_CHARS = 4000

#: The reason sent for a session that ended without a SessionEnd (one of Qwen Code's own).
ENDED_UNSEEN = "other"


def guidance(result: Any) -> str:
    """A pre-compaction answer as instructions for Qwen Code's summariser, or ``""``.

    The summary prompt, then the guidelines unless the prompt already holds
    them, cut at a line end to what Qwen Code keeps.
    """
    if not isinstance(result, dict) or result.get("skipped") or result.get("bypassed"):
        return ""
    parts: list[str] = []
    for key in ("summaryPrompt", "guidelines"):
        value = result.get(key)
        if isinstance(value, str) and value.strip() and value.strip() not in "\n".join(parts):
            parts.append(value.strip())
    text = "\n\n".join(parts)
    if len(text) <= MAX_GUIDANCE_CHARS:
        return text
    cut = text.rfind("\n", 0, MAX_GUIDANCE_CHARS)
    return text[: cut if cut > 0 else MAX_GUIDANCE_CHARS].rstrip()


class QwenCodeTranslator(CommandHookTranslator):
    """The pure half of the Qwen Code adapter (a ``HarnessTranslator``).

    ``notes`` gives the session notes of the Qwen Code process the hook runs
    for (or None: no session is noted or ended on the side); it is called at
    most once, and only by the events that use it. ``claim`` says whether
    this process is the first to report a compaction summary; without it
    every summary is sent.

    Qwen Code reads ``hookSpecificOutput.additionalContext`` from
    SessionStart, UserPromptSubmit, SubagentStart and PreCompact; every other
    event, every empty answer and every failure is exit 0 with no output,
    which Qwen Code takes as a hook with nothing to say.
    """

    harness = "qwen-code"
    not_applicable = NOT_APPLICABLE
    context_events = frozenset({"SessionStart", "UserPromptSubmit", "SubagentStart"})
    prompt_events = frozenset({"UserPromptSubmit"})

    def __init__(
        self,
        notes: Callable[[], SessionNotes | None] | None = None,
        claim: Claim | None = None,
    ) -> None:
        self._notes_factory = notes
        self._notes: SessionNotes | None = None
        self.claim = claim

    def notes(self) -> SessionNotes | None:
        """The session notes, built on first use (None when there are none)."""
        if self._notes is None and self._notes_factory is not None:
            self._notes = self._notes_factory()
            self._notes_factory = None
        return self._notes

    @on("SessionStart", "session_start", flushes=True, detach=True)
    def _session_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        project = string(p, "cwd")
        transcript = string(p, "transcript_path")
        calls = [self.session_start_call(session, project, string(p, "source"))]
        notes = self.notes()
        if notes is not None:
            calls += [_unseen_end(note) for note in notes.ended(session)]
            notes.note(session, project, transcript)
        return calls

    @on("UserPromptSubmit", "prompt_submit")
    def _prompt(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        model_bound = string(p, "prompt")
        typed = string(p, "submitted_prompt")
        if model_bound is None and typed is None:
            raise PayloadError("prompt", "is required")
        prompt = typed if typed and typed.strip() else model_bound or ""
        # A blank one is a tool result continuing the turn: no call.
        agent = string(p, "agent_id")
        return self.prompt_calls(session, prompt, string(p, "cwd"), harnessAgentId=agent)

    @on("Stop")
    def _stop(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        transcript = string(p, "transcript_path", required=True)
        assert transcript is not None
        project = string(p, "cwd")
        checkpoint = self.checkpoint_call(session, project, transcript)
        if string(p, "agent_id") is None:  # a subagent's Stop is not its parent session's
            notes = self.notes()
            if notes is not None:
                notes.note(session, project, transcript)
        return [checkpoint]

    @on("PreCompact")
    def _pre_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return self.pre_compact_calls(p, session, "Qwen Code", "auto")

    @on("PostCompact")
    def _post_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        summary = string(p, "compact_summary", required=True)
        assert summary is not None
        if self.claim is not None and not self.claim(session, summary):
            return []  # another hook process reports this summary
        return [self.compaction_call(session, summary, string(p, "cwd"))]

    _subagent_start, _subagent_stop = CommandHookTranslator.subagent_handlers()

    @on("SessionEnd", detach=True)
    def _session_end(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        reason = string(p, "reason") or "other"
        cwd = string(p, "cwd")
        transcript = string(p, "transcript_path")
        notes = self.notes()
        if notes is not None:
            notes.drop(session)
        return [self.session_end_call(session, cwd, reason, transcript)]

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        """Context for the model, or for PreCompact the summariser's extra instructions."""
        if event == "PreCompact":
            text = guidance(results[0]) if results else ""
            return self.context_output(event, text) if text else self.neutral(event)
        return super().render(event, payload, results)


def _unseen_end(note: Mapping[str, Any]) -> LifecycleCall:
    """The session-end of a noted session whose Qwen Code process is gone."""
    session = str(note["session"])
    project, transcript = note.get("project"), note.get("transcript")
    cwd = project if isinstance(project, str) and project else None
    path = transcript if isinstance(transcript, str) and transcript else None
    return QwenCodeTranslator.session_end_call(session, cwd, ENDED_UNSEEN, path)


#: Native events this adapter understands, in lifecycle order.
EVENTS = QwenCodeTranslator.event_names

#: The translator with no session notes and no summary claims.
TRANSLATOR = QwenCodeTranslator()


def translator_for(env: Mapping[str, str]) -> QwenCodeTranslator:
    """The hook process's translator: session notes and summary claims under ``env``.

    Both keep state in the SDK's state directory, so only a hook that Qwen
    Code runs (it sets ``QWEN_PROJECT_DIR`` for every hook) gets them; any
    other caller (a contract vector, the demo, a replay by hand) gets the
    translator that keeps nothing.
    """
    if not env.get("QWEN_PROJECT_DIR", "").strip():
        return TRANSLATOR

    def notes() -> SessionNotes | None:
        from ._sessions import notes_for

        return notes_for(env)

    def claim(session: str, summary: str) -> bool:
        from ._once import claim_summary

        return claim_summary(env, session, summary)

    return QwenCodeTranslator(notes, claim)
