"""What ``signet-sdk chat`` shows: a turn's events, the slash commands, the session's ends.

:class:`ChatView` runs a turn and shows it either on the terminal (through
:class:`~signet_sdk.agent.terminal.TerminalChannel`) or, with ``--json``, as
one JSON object per line on stdout: ``session`` first, then each event's
:meth:`~signet_sdk.agent.events.AgentEvent.as_dict` (a command's result as
its own ``type``), then ``end``. Errors also go to stderr as one
``error:`` line in both forms, so a script that reads only stdout still
leaves its user a reason.

A turn that fails (the provider errs, the stream is cut) or that the user
cancels with Ctrl-C is rolled back by the session; the chat goes on.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from signet_sdk.agent.events import AgentEvent, AgentOutput
from signet_sdk.wire.errors import SignetError

if TYPE_CHECKING:
    from signet_sdk.agent.session import Session
    from signet_sdk.agent.terminal import TerminalChannel

__all__ = ["COMMANDS", "ChatView", "describe", "run_command"]

#: The slash commands, each with its one line of help.
COMMANDS: Mapping[str, str] = {
    "/remember": "/remember TEXT   store TEXT as a memory",
    "/recall": "/recall QUERY    search memory and list what it finds",
    "/compact": "/compact         summarise the conversation so far, to save tokens",
    "/usage": "/usage           tokens used and turns taken in this session",
    "/help": "/help            this list",
    "/exit": "/exit            end the session (Ctrl-D or Ctrl-C at the prompt too)",
}

_HELP_TAIL = "Ctrl-C during an answer cancels that turn; //text sends the message /text."


def describe(exc: BaseException) -> str:
    """An error as one line: the SDK's own errors say where they failed; others say their type."""
    text = str(exc) if isinstance(exc, SignetError) else f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())


def _close(events: Iterator[AgentEvent]) -> None:
    """Close a turn's event generator: a turn left at one of its events is rolled back."""
    close = getattr(events, "close", None)
    if close is not None:
        close()


class ChatView:
    """Shows one chat: on the terminal, or as JSON lines (``json_lines=True``)."""

    def __init__(
        self,
        channel: TerminalChannel,
        *,
        json_lines: bool,
        provider: str,
        stdout: TextIO | None = None,
    ) -> None:
        self.channel = channel
        self.json_lines = json_lines
        self.provider = provider
        self.stdout: TextIO = stdout if stdout is not None else sys.stdout
        #: How many of the session's notices have been shown.
        self._notices_seen = 0

    # -- turns ---------------------------------------------------------------

    def turn(self, chat: Session, text: str) -> str:
        """Run one turn, showing its events: ``done``, ``error`` or ``cancelled``."""
        events = chat.stream(text)
        try:
            for event in events:
                self.event(event)
        except KeyboardInterrupt:
            _close(events)  # rolls the turn back when the interrupt came while showing it
            self.cancelled()
            return "cancelled"
        except Exception as exc:
            _close(events)
            self.event(AgentEvent("error", describe(exc)))
            return "error"
        finally:
            # The turn's notices were shown as its events.
            self._notices_seen = len(chat.notices)
        return "done"

    def event(self, event: AgentEvent) -> None:
        if not self.json_lines:
            self.channel.send(event)
            return
        self.emit(event.as_dict())
        if event.type == "error":
            self.channel.send(event)

    def cancelled(self) -> None:
        if self.json_lines:
            self.emit(AgentEvent("done", output=AgentOutput("", "cancelled")).as_dict())
        self.channel.note("(turn cancelled)")

    # -- the session's ends --------------------------------------------------

    def opened(self, chat: Session, *, interactive: bool) -> None:
        if self.json_lines:
            self.emit(
                {
                    "type": "session",
                    "key": chat.key,
                    "memory": chat.memory_online,
                    "provider": self.provider,
                    "project": chat.state.project,
                }
            )
        elif interactive:
            memory = "on" if chat.memory_online else "offline"
            self.channel.note(
                f"session {chat.key} with {self.provider}, memory {memory}; "
                "/help lists commands, Ctrl-D ends the session"
            )
        self.catch_up(chat)

    def ended(self, chat: Session, reason: str, *, interactive: bool) -> None:
        self.catch_up(chat)
        if self.json_lines:
            self.emit(
                {
                    "type": "end",
                    "key": chat.key,
                    "reason": reason,
                    "turns": chat.state.turns,
                    "usage": chat.usage.as_dict(),
                }
            )
        elif interactive:
            self.channel.note(
                f"session ended; continue it with: signet-sdk chat --resume {chat.key}"
            )
        self.channel.on_close()

    def catch_up(self, chat: Session) -> None:
        """Show the notices the session gathered outside a turn (opening, compaction, end)."""
        for line in chat.notices[self._notices_seen :]:
            self.event(AgentEvent("notice", line))
        self._notices_seen = len(chat.notices)

    # -- command output ------------------------------------------------------

    def emit(self, data: Mapping[str, Any]) -> None:
        if self.json_lines:
            self.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
            self.stdout.flush()

    def say(self, text: str, data: Mapping[str, Any]) -> None:
        """A command's result: ``text`` on the terminal, ``data`` as a JSON line."""
        if self.json_lines:
            self.emit(data)
        else:
            self.channel.write_answer(text if text.endswith("\n") else text + "\n")

    def problem(self, message: str) -> None:
        self.event(AgentEvent("error", message))


# -- slash commands ------------------------------------------------------------


def run_command(chat: Session, line: str, view: ChatView) -> bool:
    """Run one slash command; False when it ends the session."""
    name, _, argument = line.partition(" ")
    name, argument = name.lower(), argument.strip()
    if name in ("/exit", "/quit"):
        return False
    handler = _HANDLERS.get(name)
    if handler is None:
        view.problem(f"unknown command {name}; commands: {' '.join(COMMANDS)}")
        return True
    try:
        handler(chat, argument, view)
    except KeyboardInterrupt:
        view.channel.note(f"({name} cancelled)")
    except Exception as exc:
        view.problem(f"{name}: {describe(exc)}")
    view.catch_up(chat)
    return True


def _remember(chat: Session, text: str, view: ChatView) -> None:
    if not text:
        view.problem("usage: /remember TEXT")
        return
    chat.remember(text)
    said = "remembered" if chat.memory_online else "remembered once the daemon answers again"
    view.say(said, {"type": "remembered", "content": text})


def _recall(chat: Session, query: str, view: ChatView) -> None:
    if not query:
        view.problem("usage: /recall QUERY")
        return
    found = chat.recall(query)
    hits = found.results or found.memories or []
    rows = [{"id": h.id, "content": h.content, "score": h.score} for h in hits]
    if not hits:
        text = f"no memories match {query!r}"
    else:
        lines = []
        for n, hit in enumerate(hits, 1):
            score = f"  ({hit.score:.2f})" if hit.score is not None else ""
            lines.append(f"{n}. {' '.join(hit.content.split())}{score}")
        text = "\n".join(lines)
    view.say(text, {"type": "recall", "query": query, "hits": rows})


def _compact(chat: Session, _: str, view: ChatView) -> None:
    if not chat.state.history:
        view.say("nothing to compact yet", {"type": "notice", "text": "nothing to compact yet"})
        return
    summary = chat.compact()
    if summary:  # else the session's notice says why
        view.say(
            f"summary of the conversation so far:\n{summary}",
            {"type": "compacted", "text": summary},
        )


def _usage(chat: Session, _: str, view: ChatView) -> None:
    used, turns = chat.usage, chat.state.turns
    text = (
        f"{turns} turn{'' if turns == 1 else 's'}; tokens: {used.input} input, "
        f"{used.output} output, {used.cache_read} read from cache, "
        f"{used.cache_write} written to cache"
    )
    view.say(text, {"type": "usage", "turns": turns, "usage": used.as_dict()})


def _help(chat: Session, _: str, view: ChatView) -> None:
    text = "\n".join([*COMMANDS.values(), _HELP_TAIL])
    view.say(text, {"type": "help", "commands": list(COMMANDS)})


_HANDLERS: Mapping[str, Callable[[Session, str, ChatView], None]] = {
    "/remember": _remember,
    "/recall": _recall,
    "/compact": _compact,
    "/usage": _usage,
    "/help": _help,
}
