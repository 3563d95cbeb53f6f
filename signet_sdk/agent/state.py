"""One session's state: who it is, the history the model sees, the transcript the daemon gets.

The plans (:mod:`signet_sdk.agent.plan`) read and change it; the drivers
never do, so the sync and async sessions hold the same state after the
same turns.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from signet_sdk.agent.context import fence, system_prompt
from signet_sdk.agent.events import Compaction, Limits
from signet_sdk.agent.types import CompletionOptions, Message, Usage

__all__ = ["SessionState"]


class SessionState:
    """One session's memory of itself: its identity, the model history and the transcript.

    ``history`` is append-only within a session until compaction: each
    turn's composed user message is kept as it was sent, so every request
    extends the one before. ``turn_starts`` indexes where each turn's user
    message is, for compaction and rollback. The transcript (what the daemon
    gets at checkpoints and at the end) holds the user's words and the
    answers, without fences.

    The one-time context (``session_context``: the session's opening memory;
    ``pending_summary``: a resumed session's earlier turns or a summary that
    kept no turns) is fenced into the next turn's message but consumed only
    when that turn is answered (:meth:`commit_turn`): a turn that fails or is
    cancelled is rolled back, and the context must reach the next one.
    """

    def __init__(
        self,
        *,
        key: str,
        project: str | None,
        agent_id: str | None,
        instructions: str,
        base_options: CompletionOptions,
        limits: Limits,
        compaction: Compaction,
        append_transcript: Any,
        transcript_path: str,
    ) -> None:
        self.key = key
        self.project = project
        self.agent_id = agent_id
        self.instructions = instructions
        self.system = system_prompt(instructions, None)
        self.base_options = base_options
        self.limits = limits
        self.compaction = compaction
        self.append_transcript = append_transcript
        self.transcript_path = transcript_path
        self.history: list[Message] = []
        self.turn_starts: list[int] = []
        self.session_context = ""
        self.pending_summary = ""
        self.last_reply = ""
        self.last_prompt_tokens = 0
        self.usage = Usage()
        self.turns = 0
        #: False until the daemon has the session open (it was down when the session began).
        self.memory_online = True
        #: How the session began (``startup`` or ``resume``): the source of a late session-start.
        self.start_source = "startup"
        #: True from a turn's start until it is answered: only then may it be rolled back.
        self.turn_open = False

    def options(self, *, tools: bool = True) -> CompletionOptions:
        return replace(
            self.base_options,
            system=self.system,
            tools=self.base_options.tools if tools else (),
        )

    def add_user(self, text: str) -> None:
        """Start a turn with ``text``; results still owed to the model go in the same message."""
        last = self.history[-1] if self.history else None
        if last is not None and last.role == "user":
            # Tool results the model has not seen yet (a turn cut at its model-call
            # limit): they travel with this message, as the API requires.
            self.history[-1] = Message("user", text, tool_results=last.tool_results)
            self.turn_starts.append(len(self.history) - 1)
        else:
            self.turn_starts.append(len(self.history))
            self.history.append(Message("user", text))

    def commit_turn(self) -> None:
        """The turn is answered: its one-time context has reached the model, and it stays.

        What follows in the turn (the checkpoint, a compaction, the ``done``
        event a caller may stop reading at) can no longer take the answer back.
        """
        self.session_context = self.pending_summary = ""
        self.turn_open = False

    def rollback(self, length: int, starts: int) -> None:
        """Forget a turn that failed or was cancelled: the model never sees half a turn.

        Its one-time context was not consumed (see :meth:`commit_turn`), so the
        next turn carries it. A turn already answered is not undone.
        """
        if not self.turn_open:
            return
        self.turn_open = False
        del self.history[length:]
        del self.turn_starts[starts:]

    def compacted(self, summary: str) -> None:
        """Replace the history by ``summary`` and the latest ``keep_turns`` turns."""
        keep = self.compaction.keep_turns
        if keep == 0 or len(self.turn_starts) <= keep:
            first = len(self.history) if keep == 0 else 0
        else:
            first = self.turn_starts[-keep]
        kept = self.history[first:]
        starts = [s - first for s in self.turn_starts if s >= first]
        if kept:
            head = kept[0]
            kept[0] = Message("user", fence("summary", summary) + "\n\n" + head.text)
            self.history, self.turn_starts = kept, starts
        else:
            self.history, self.turn_starts = [], []
            self.pending_summary = summary

    def due_for_compaction(self) -> bool:
        at = self.compaction.at_tokens
        return at is not None and self.last_prompt_tokens >= at
