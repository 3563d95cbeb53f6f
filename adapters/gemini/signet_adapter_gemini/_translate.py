"""Gemini CLI hook events <-> Signet lifecycle calls, as pure data.

Gemini CLI runs a command per hook event and hands it one JSON object on
stdin (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``,
``timestamp`` plus per-event fields). This module turns that object into the
daemon calls it implies and the daemon's answers into the JSON Gemini reads
back. It performs no I/O itself (a chat file is read, and a summary
claimed, only through the ``read_chat`` and ``claim`` functions it is given;
:func:`translator_for` gives the hook process both) and imports only the
standard library and ``signet_sdk``'s stdlib core, because the hook process
imports it for every prompt.

Choices, and why:

* The session key is ``session_id``; the project is the payload's ``cwd``
  (Gemini sets ``GEMINI_PROJECT_DIR`` to the same value).
* Gemini parses stdout as JSON when the hook exits 0, and when stdout is
  empty it shows whatever the hook wrote to stderr as a message to the user.
  So every event prints JSON: context as ``{"hookSpecificOutput":
  {"hookEventName": <event>, "additionalContext": <text>}}`` for
  SessionStart and BeforeAgent, ``{}`` for everything else (a daemon that
  is down included), and the hook writes nothing to stderr. Nothing sets
  ``decision`` or ``continue``: a memory hook never blocks a turn.
* ``SessionStart`` (``startup``, ``resume``, ``clear``) asks for the
  session's context; Gemini puts it into the first turn (headless: in front
  of the prompt, wrapped in ``<hook_context>``).
* ``BeforeAgent`` (once per user prompt, before the model is called) is the
  prompt submit; Gemini appends the context to that turn's request. Headless,
  the prompt it hands over starts with SessionStart's context
  (``<hook_context>...</hook_context>``); that block is cut off, so the
  daemon recalls for the user's own words.
* ``AfterAgent`` (once per turn, after the final answer) is a mid-session
  checkpoint with the chat file, never a session-end. When the chat file
  shows a compression made during the turn, its summary goes first as
  compaction-complete.
* ``PreCompress`` has only ``trigger``. ``manual`` (``/compress``) is a
  compression about to happen: pre-compaction. ``auto`` fires before every
  model request whether or not Gemini then compresses, so it becomes a
  pre-compaction only when the chat file says the compression is due
  (Gemini's own rule: the last prompt's token count at half the window),
  once between two compressions (``claim``); otherwise it sends nothing.
* ``SessionEnd`` (``exit``, ``clear``, ``logout``, ``prompt_input_exit``,
  ``other``) sends session-end with the chat file through the outbox and a
  detached sender (Gemini does not wait for it; ``clear`` without the file,
  as for Claude Code: the daemon discards the session and reads none, and
  each turn's AfterAgent already handed the chat over), preceded by
  compaction-complete when a compression came after the last turn.
  Interactive ``/quit`` fires SessionEnd three times at once: the daemon
  drops the repeated session-ends, and a summary is claimed by the first
  process that finds it (``claim``), so it is sent once.
"""

from __future__ import annotations

from signet_sdk.plugin import (
    CommandHookTranslator,
    LifecycleCall,
    NativeOutput,
    on,
    string,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    #: ``transcript_path`` -> the chat's messages, or None when it cannot be read.
    ChatReader = Callable[[str], list[dict[str, Any]] | None]
    #: (session, key) -> whether this process is the first to report ``key``.
    Claim = Callable[[str, str], bool]

__all__ = ["EVENTS", "NOT_APPLICABLE", "TRANSLATOR", "GeminiTranslator", "translator_for"]

NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of a Gemini session",
    "compaction-complete": (
        "no Gemini hook payload carries the summary: AfterAgent and SessionEnd read it from "
        "the chat file the payload names, which a static vector cannot carry (covered by "
        "adapters/gemini/tests/test_gm_compress.py and the real-binary e2e)"
    ),
}


class GeminiTranslator(CommandHookTranslator):
    """The pure half of the Gemini CLI adapter (a ``HarnessTranslator``).

    ``read_chat`` maps a ``transcript_path`` to the chat's messages (or
    None); without it no compression is looked for: AfterAgent is a plain
    checkpoint and an ``auto`` PreCompress sends nothing. ``claim`` says
    whether this process is the first to report a summary, or an ``auto``
    pre-compaction since the latest summary (Gemini can run one event's hooks
    several times at once, and fires PreCompress before every request);
    without it every find is sent.

    Gemini adds the ``additionalContext`` of SessionStart and BeforeAgent to
    the model's context; otherwise it gets ``{}`` and exit 0, and carries on
    as if no hook were set, showing nothing.
    """

    harness = "gemini"
    not_applicable = NOT_APPLICABLE
    context_events = frozenset({"SessionStart", "BeforeAgent"})
    prompt_events = frozenset({"BeforeAgent"})

    def __init__(self, read_chat: ChatReader | None = None, claim: Claim | None = None) -> None:
        self.read_chat = read_chat
        self.claim = claim

    def _chat(self, p: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        path = string(p, "transcript_path")
        if not path or self.read_chat is None:
            return None
        return self.read_chat(path)

    @on("SessionStart", "session_start", flushes=True)
    def _session_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [self.session_start_call(session, string(p, "cwd"), string(p, "source"))]

    @on("BeforeAgent", "prompt_submit")
    def _prompt(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        prompt = _own_words(self.required_prompt(p))
        return self.prompt_calls(session, prompt, string(p, "cwd"))

    def _compaction(
        self, p: Mapping[str, Any], session: str, *, at_end: bool
    ) -> list[LifecycleCall]:
        chat = self._chat(p)
        if not chat:
            return []
        from ._chat import fresh_summary

        found = fresh_summary(chat, at_end=at_end)
        if found is None or not found[1].strip():
            return []
        message_id, summary = found
        if self.claim is not None and not self.claim(session, message_id):
            return []  # another process of this event reports it
        return [self.compaction_call(session, summary, string(p, "cwd"))]

    @on("AfterAgent")
    def _after_agent(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        string(p, "prompt")  # validated for a clear error, otherwise unused
        transcript = string(p, "transcript_path")
        if not transcript:
            return []  # a session that records no chat file: nothing to hand over
        checkpoint = self.checkpoint_call(session, string(p, "cwd"), transcript)
        calls = self._compaction(p, session, at_end=False)
        return [*calls, checkpoint]

    @on("PreCompress")
    def _pre_compress(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        trigger = string(p, "trigger") or "auto"
        if trigger != "manual":
            chat = self._chat(p)
            if not chat:
                return []
            from ._chat import compression_due, latest_summary_id

            if not compression_due(chat):
                return []  # Gemini's check before every model request; no compression follows
            # Once per compression: a compression Gemini gives up on leaves the count
            # high, and PreCompress keeps firing before every request.
            since = latest_summary_id(chat) or "start"
            if self.claim is not None and not self.claim(session, f"pre-{since}"):
                return []
        body = {"sessionKey": session, "sessionContext": f"Gemini CLI compression ({trigger})"}
        return [LifecycleCall("pre_compaction", body)]

    @on("SessionEnd", detach=True)
    def _session_end(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        reason = string(p, "reason") or "other"
        end = self.session_end_call(session, string(p, "cwd"), reason, string(p, "transcript_path"))
        return [*self._compaction(p, session, at_end=True), end]

    def neutral(self, event: str) -> NativeOutput:
        """``{}``: what Gemini reads as no hook output."""
        return NativeOutput({})


def _own_words(prompt: str) -> str:
    """The prompt without the context hooks put in front of it.

    Headless, Gemini prepends SessionStart's context to the prompt as
    ``<hook_context>...</hook_context>`` and a blank line, and hands that to
    BeforeAgent as the prompt. Gemini escapes ``<`` and ``>`` inside hook
    context, so the first closing tag ends the block.
    """
    rest = prompt
    while rest.startswith(_OPEN):
        end = rest.find(_CLOSE)
        if end < 0:
            return prompt
        rest = rest[end + len(_CLOSE) :].lstrip("\r\n")
    return rest


_OPEN, _CLOSE = "<hook_context>", "</hook_context>"


#: Native events this adapter understands, in lifecycle order.
EVENTS = GeminiTranslator.event_names

#: The translator with no chat reader (no compression is looked for).
TRANSLATOR = GeminiTranslator()


def translator_for(env: Mapping[str, str]) -> GeminiTranslator:
    """The hook process's translator: it reads chat files under the transcript roots."""

    def read_chat(path: str) -> list[dict[str, Any]] | None:
        from ._chat import read_messages
        from ._paths import transcript_roots

        return read_messages(path, transcript_roots(env))

    def claim(session: str, message_id: str) -> bool:
        from ._once import claim_summary

        return claim_summary(env, session, message_id)

    return GeminiTranslator(read_chat, claim)
