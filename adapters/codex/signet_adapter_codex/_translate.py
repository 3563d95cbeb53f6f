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

from signet_sdk.runtime.native import NativeOutput
from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.lifecycle import LifecycleCall

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

__all__ = ["EVENTS", "NOT_APPLICABLE", "TRANSLATOR", "CodexTranslator", "translator_for"]

#: Native events this adapter understands, in lifecycle order.
EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "SessionEnd",
)

#: Events whose ``additionalContext`` Codex appends to the model context.
_INJECTING = frozenset({"SessionStart", "UserPromptSubmit", "SubagentStart"})

NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of a Codex session",
}


def _str(payload: Mapping[str, Any], name: str, *, required: bool = False) -> str | None:
    """A string field, or None when absent; a wrong type is always an error."""
    value = payload.get(name)
    if value is None:
        if required:
            raise PayloadError(name, "is required")
        return None
    if not isinstance(value, str):
        raise PayloadError(name, f"must be a string, got {type(value).__name__}")
    if required and not value.strip():
        raise PayloadError(name, "must not be empty")
    return value


class CodexTranslator:
    """The pure half of the Codex adapter (a ``HarnessTranslator``).

    ``read_summary`` maps a ``transcript_path`` to the compaction summary
    found there (or None); without it PostCompact always sends a checkpoint.
    """

    harness = "codex"

    def __init__(self, read_summary: Callable[[str], str | None] | None = None) -> None:
        self.read_summary = read_summary

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        """The daemon calls one Codex hook event implies.

        Raises :class:`signet_sdk.PayloadError` naming the offending field.
        """
        if not isinstance(payload, dict):
            raise PayloadError("payload", "must be a JSON object")
        named = _str(payload, "hook_event_name")
        if named is not None and named != event:
            raise PayloadError(
                "hook_event_name", f"is {named!r} but the hook was registered for {event!r}"
            )
        handler = _HANDLERS.get(event)
        if handler is None:
            raise PayloadError(
                "hook_event_name", f"unsupported event {event!r}; known: {', '.join(EVENTS)}"
            )
        session = _str(payload, "session_id", required=True)
        assert session is not None
        return handler(self, payload, session)

    def _session_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        body: dict[str, Any] = {"sessionKey": session}
        _put(body, "project", _str(p, "cwd"))
        _put(body, "source", _str(p, "source"))
        return [LifecycleCall("session_start", body)]

    def _prompt(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        prompt = _str(p, "prompt")
        if prompt is None:
            raise PayloadError("prompt", "is required")
        if not prompt.strip():
            return []  # the daemon rejects a blank prompt; there is nothing to recall for
        body: dict[str, Any] = {"sessionKey": session, "userPrompt": prompt, "userMessage": prompt}
        _put(body, "project", _str(p, "cwd"))
        return [LifecycleCall("user_prompt_submit", body)]

    def _checkpoint(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        transcript = _str(p, "transcript_path")
        if not transcript:
            return []  # an ephemeral session keeps no rollout: nothing to hand over
        body: dict[str, Any] = {"sessionKey": session}
        _put(body, "project", _str(p, "cwd"))
        body["transcriptPath"] = transcript
        return [LifecycleCall("session_checkpoint_extract", body)]

    def _pre_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        trigger = _str(p, "trigger") or "unknown"
        body = {"sessionKey": session, "sessionContext": f"Codex compaction ({trigger})"}
        return [LifecycleCall("pre_compaction", body)]

    def _post_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        _str(p, "trigger")
        transcript = _str(p, "transcript_path")
        summary = _str(p, "compact_summary")
        if not summary and transcript and self.read_summary is not None:
            summary = self.read_summary(transcript)
        if not summary or not summary.strip():
            return self._checkpoint(p, session)
        body: dict[str, Any] = {"sessionKey": session, "summary": summary}
        _put(body, "project", _str(p, "cwd"))
        return [LifecycleCall("compaction_complete", body)]

    def _subagent_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        agent = _str(p, "agent_id", required=True)
        body: dict[str, Any] = {"sessionKey": session, "harnessAgentId": agent}
        _put(body, "project", _str(p, "cwd"))
        body["source"] = "subagent"
        return [LifecycleCall("session_start", body)]

    def _subagent_stop(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        _str(p, "agent_id")  # validated for a clear error, otherwise unused
        return []

    def _session_end(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        body: dict[str, Any] = {"sessionKey": session, "sessionId": session}
        _put(body, "cwd", _str(p, "cwd"))
        body["reason"] = _str(p, "reason") or "other"
        _put(body, "transcriptPath", _str(p, "transcript_path"))
        return [LifecycleCall("session_end", body)]

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        """What Codex reads back: the one schema-valid context envelope, or nothing."""
        if event not in _INJECTING or not results:
            return self.neutral(event)
        text = _context_text(event, results[0])
        if not text:
            return self.neutral(event)
        return NativeOutput(
            {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
        )

    def neutral(self, event: str) -> NativeOutput:
        """Exit 0 and no stdout: Codex carries on as if no hook were set (never blocks)."""
        return NativeOutput()


def _put(body: dict[str, Any], key: str, value: str | None) -> None:
    if value:
        body[key] = value


def _context_text(event: str, result: Any) -> str:
    """The context text in a daemon answer, newest response fields first."""
    if not isinstance(result, dict) or result.get("skipped") or result.get("bypassed"):
        return ""
    if event == "UserPromptSubmit":
        dynamic = result.get("dynamicContext")
        if isinstance(dynamic, str) and dynamic.strip():
            return dynamic
    else:
        parts = [result.get("stableSystemPrompt"), result.get("dynamicContext")]
        joined = "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())
        if joined:
            return joined
    inject = result.get("inject")
    return inject if isinstance(inject, str) and inject.strip() else ""


_HANDLERS = {
    "SessionStart": CodexTranslator._session_start,
    "UserPromptSubmit": CodexTranslator._prompt,
    "Stop": CodexTranslator._checkpoint,
    "PreCompact": CodexTranslator._pre_compact,
    "PostCompact": CodexTranslator._post_compact,
    "SubagentStart": CodexTranslator._subagent_start,
    "SubagentStop": CodexTranslator._subagent_stop,
    "SessionEnd": CodexTranslator._session_end,
}

#: The translator with no transcript reader (PostCompact always checkpoints).
TRANSLATOR = CodexTranslator()


def translator_for(env: Mapping[str, str]) -> CodexTranslator:
    """The hook process's translator: PostCompact reads summaries under the transcript roots."""

    def read_summary(path: str) -> str | None:
        from ._compact import summary_from_rollout
        from ._paths import transcript_roots

        return summary_from_rollout(path, transcript_roots(env))

    return CodexTranslator(read_summary)
