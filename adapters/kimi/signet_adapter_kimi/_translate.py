"""Kimi Code hook events <-> Signet lifecycle calls, as pure data.

Kimi Code runs the command of each ``[[hooks]]`` entry of its
``config.toml`` for the entry's event (through ``sh -c``) and hands it one
JSON object on stdin: ``hook_event_name``, ``session_id``
(``session_<uuid>``), ``cwd``, ``client_type`` and, once the session has a
title, ``session_title``, plus per-event fields. Exit 0 lets the operation
go on; only UserPromptSubmit's stdout reaches the model (MoonshotAI/kimi-code
``docs/en/customization/hooks.md``; measured on 2.1.0). This module turns
that object into the daemon calls it implies and the daemon's answers into
what Kimi reads back. It performs no I/O itself: disk goes through the
``files`` object it is given (:class:`._session.HookFiles`, built by
:func:`translator_for` for the hook process).

Choices, and why:

* The session key is ``session_id``; the project is the payload's ``cwd``
  (Kimi runs hook commands in the session's project folder).
* Kimi hands the model UserPromptSubmit's stdout, as plain text, in a user
  message of its own before the prompt (``<hook_result
  hook_event="UserPromptSubmit">``); SessionStart's output goes nowhere.
  So SessionStart asks the daemon for the session's context and *holds* it
  (``files.keep_context``); the session's next UserPromptSubmit prints it
  once, in front of that prompt's recall. SessionStart prints it too, for
  whoever runs the hook by hand; Kimi discards that output.
* Nothing is ever printed but context, and the exit code is always 0: no
  hook of ours blocks a prompt, a turn's end or a tool.
* ``Stop`` (after every turn; also in ``kimi -p``) is a mid-session
  checkpoint carrying the conversation read from the session's
  ``wire.jsonl`` (Kimi's payloads name no file), never a session end.
  Kimi writes that log a moment after the events, so Stop first waits
  (briefly) for the log to end with the model's answer.
* ``SessionEnd`` (``exit``, ``archive``) fires when the interactive UI
  closes a session. ``kimi -p`` closes none, so no SessionEnd comes from it
  (2.1.0): the next SessionStart of any session ends every session whose
  Kimi process has gone (:func:`._session.finished`), with reason ``exit``
  and the conversation, before it starts its own. Resuming a session
  (``kimi -r``, ``--session``, ``--continue``) is such a next process, so
  the end of one run of a session reaches the daemon before the start of
  the next, as with a harness that ends each headless run itself.
* ``PreCompact`` (``manual``, ``auto``; with ``token_count``) is the
  pre-compaction. ``PostCompact`` carries no summary: it is read from the
  compaction's record in ``wire.jsonl`` and sent as compaction-complete
  once, by whichever hook finds it first (PostCompact, else the turn's
  ``Stop``, the ``SessionEnd`` or the late end); each is claimed before it
  is sent. A compaction keeps only the user's own messages, so the hook
  that reports it also holds the session's start context for the next
  prompt again.
"""

from __future__ import annotations

from signet_sdk.plugin import (
    CommandHookTranslator,
    LifecycleCall,
    NativeOutput,
    PayloadError,
    context_text,
    integer,
    on,
    put,
    string,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Protocol

    from ._session import Ending

    class Files(Protocol):
        """What the translator reads and keeps on disk (see :class:`._session.HookFiles`)."""

        def begin(self, session: str, cwd: str | None) -> list[Ending]: ...
        def look(
            self,
            session: str,
            cwd: str | None,
            *,
            conversation: bool,
            settle: bool = False,
            turn_end: bool = False,
        ) -> tuple[list[str], str | None]: ...
        def end(self, session: str) -> None: ...
        def keep_context(self, session: str, text: str) -> None: ...
        def take_context(self, session: str) -> str | None: ...


__all__ = ["EVENTS", "NOT_APPLICABLE", "TRANSLATOR", "KimiTranslator", "translator_for"]

NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of a Kimi Code session",
    "compaction-complete": (
        "no Kimi Code hook payload carries the summary: PostCompact (else Stop, SessionEnd or "
        "the late end) reads it from the session's wire.jsonl, which a static vector cannot "
        "carry (covered by adapters/kimi/tests/test_km_files.py and the real-binary e2e)"
    ),
}

#: The reason a late session end carries: the Kimi process has exited.
LATE_END_REASON = "exit"


def _prompt_text(p: Mapping[str, Any]) -> str:
    """The user's words: Kimi 2.1 sends ``prompt`` as content parts; text parts are joined."""
    value = p.get("prompt")
    if value is None:
        raise PayloadError("prompt", "is required")
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise PayloadError("prompt", f"must be a list of parts, got {type(value).__name__}")
    texts = []
    for part in value:
        if not isinstance(part, dict):
            raise PayloadError("prompt", "must be a list of objects")
        if part.get("type") == "text":
            text = part.get("text")
            if not isinstance(text, str):
                raise PayloadError("prompt", "has a text part whose text is not a string")
            texts.append(text)
    return "\n".join(texts)


class KimiTranslator(CommandHookTranslator):
    """The pure half of the Kimi Code adapter (a ``HarnessTranslator``).

    ``files`` gives the translator what only disk knows (see
    :class:`._session.HookFiles`): the sessions to end late, the
    compactions no hook has reported, the conversation file, and the start
    context held for the first prompt. Without it nothing is read or kept:
    SessionStart's context is printed only, Stop and PostCompact send
    nothing, SessionEnd sends the end without a transcript.
    """

    harness = "kimi"
    not_applicable = NOT_APPLICABLE
    context_events = frozenset({"SessionStart", "UserPromptSubmit"})
    prompt_events = frozenset({"UserPromptSubmit"})

    def __init__(self, files: Files | None = None) -> None:
        self.files = files
        #: The daemon did not help with this process's event: what is rendered after that
        #: (the opt-in degraded notice) is no start context to hold.
        self._failed = False

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        """The event's calls; a new event, so an earlier one's failure no longer counts."""
        self._failed = False
        return super().translate(event, payload)

    # -- what disk adds ----------------------------------------------------------

    @staticmethod
    def _summaries(session: str, cwd: str | None, summaries: Sequence[str]) -> list[LifecycleCall]:
        calls = []
        for summary in summaries:
            body: dict[str, Any] = {"sessionKey": session, "summary": summary}
            put(body, "project", cwd)
            calls.append(LifecycleCall("compaction_complete", body))
        return calls

    def _looked(
        self, session: str, cwd: str | None, **how: bool
    ) -> tuple[list[LifecycleCall], str | None]:
        """:meth:`Files.look` with ``how`` (its options), the summaries as calls."""
        if self.files is None:
            return [], None
        summaries, transcript = self.files.look(session, cwd, **how)
        return self._summaries(session, cwd, summaries), transcript

    # -- events ------------------------------------------------------------------

    @on("SessionStart", "session_start", flushes=True)
    def _session_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        cwd = string(p, "cwd")
        source = string(p, "source")
        calls: list[LifecycleCall] = []
        for ending in self.files.begin(session, cwd) if self.files is not None else ():
            calls += self._summaries(ending.session, ending.cwd or None, ending.summaries)
            calls.append(
                self.session_end_call(
                    ending.session, ending.cwd or None, LATE_END_REASON, ending.transcript
                )
            )
        calls.append(self.session_start_call(session, cwd, source))  # last: its answer is rendered
        return calls

    @on("UserPromptSubmit", "prompt_submit")
    def _prompt(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return self.prompt_calls(session, _prompt_text(p), string(p, "cwd"))

    @on("Stop")
    def _stop(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        cwd = string(p, "cwd")
        compactions, transcript = self._looked(session, cwd, conversation=True, turn_end=True)
        if not transcript:
            return compactions  # nothing said yet, or no log to read: nothing to hand over
        checkpoint = self.checkpoint_call(session, cwd, transcript)
        return [*compactions, checkpoint]

    @on("PreCompact")
    def _pre_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        trigger = string(p, "trigger") or "unknown"
        tokens = integer(p, "token_count")
        detail = trigger if tokens is None else f"{trigger}, {tokens} tokens"
        body = {"sessionKey": session, "sessionContext": f"Kimi Code compaction ({detail})"}
        return [LifecycleCall("pre_compaction", body)]

    @on("PostCompact")
    def _post_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        string(p, "trigger")  # validated for a clear error, otherwise unused
        integer(p, "estimated_token_count")
        calls, _ = self._looked(session, string(p, "cwd"), conversation=False, settle=True)
        return calls

    @on("SessionEnd", detach=True)
    def _session_end(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        cwd = string(p, "cwd")
        reason = string(p, "reason") or "exit"
        compactions, transcript = self._looked(session, cwd, conversation=True)
        if self.files is not None:
            self.files.end(session)
        return [*compactions, self.session_end_call(session, cwd, reason, transcript)]

    # -- answers -----------------------------------------------------------------

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        """SessionStart: its context, held for the first prompt; UserPromptSubmit: that and
        the prompt's recall, as plain text. Everything else: no output."""
        session = string(payload, "session_id") or ""
        if event == "SessionStart":
            text = context_text(results[-1], prompt=False) if results else ""
            if text and self.files is not None and not self._failed:
                self.files.keep_context(session, text)
            return self.context_output(event, text) if text else self.neutral(event)
        if event == "UserPromptSubmit":
            held = self.files.take_context(session) if self.files is not None else None
            recall = context_text(results[0], prompt=True) if results else ""
            text = "\n\n".join(t.strip("\n") for t in (held, recall) if t and t.strip())
            return self.context_output(event, text) if text else self.neutral(event)
        return self.neutral(event)

    def fail_open(self, event: str, payload: Mapping[str, Any]) -> NativeOutput:
        """No output; and nothing rendered after this (a degraded notice) is held."""
        self._failed = True
        return super().fail_open(event, payload)

    def context_output(self, event: str, text: str) -> NativeOutput:
        """Kimi reads a hook's context as plain stdout text."""
        return NativeOutput(stdout=text)


#: Native events this adapter understands, in lifecycle order.
EVENTS = KimiTranslator.event_names

#: The translator that reads and keeps nothing on disk.
TRANSLATOR = KimiTranslator()


def translator_for(env: Mapping[str, str]) -> KimiTranslator:
    """The hook process's translator: Kimi's session files and the SDK's state under ``env``.

    An empty environment (what the vector runner passes) names no place for
    either: the translator then keeps and reads nothing, so a vector never
    touches the files of the user running it.
    """
    if not env:
        return TRANSLATOR
    from ._session import HookFiles

    return KimiTranslator(HookFiles(env))
