"""A chat on a terminal: the :class:`~signet_sdk.agent.protocols.Channel` of ``signet-sdk chat``.

stdout carries the answer and nothing else, so ``> answer.txt`` or a pipe
collects exactly what the model said. Everything about the answer (a tool
the model called, a memory notice, an error) is one line on stderr, dimmed
when stderr is a colour terminal. The prompt is read with ``input()`` (and
line editing, when ``readline`` is there) when both ends are a terminal;
otherwise it is written to stderr and a line read from stdin.

Text from a model, a tool or a memory reaches a terminal without its
control characters, so an answer cannot move the cursor, retitle the
window or hide what follows it; a file or a pipe gets the text as it is.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from typing import Any, TextIO

__all__ = ["TerminalChannel"]

#: Characters of a tool call's arguments (or a failed tool's message) shown on its line.
LINE_CHARS = 120

_DIM, _RESET = "\x1b[2m", "\x1b[0m"
#: C0 controls but tab and newline, DEL and C1 controls: what a terminal would act on.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _one_line(text: str, limit: int = LINE_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or exotic stream
        return False


class TerminalChannel:
    """Turns from a terminal's prompt; answers to stdout, the rest as lines on stderr.

    ``stream=True`` prints the answer as it arrives (every model call's
    text, tool-calling steps included); ``stream=False`` prints only the
    turn's final answer once the turn is done, which is what a script
    reading stdout wants. ``color`` (None: decide) dims the stderr lines
    on a terminal unless ``NO_COLOR`` is set or ``TERM`` is ``dumb``.
    ``receive()`` gives None at end of input (Ctrl-D) and when Ctrl-C is
    pressed at the prompt: either way the user is done.
    """

    def __init__(
        self,
        *,
        prompt: str = "> ",
        stream: bool = True,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
        color: bool | None = None,
    ) -> None:
        self.prompt = prompt
        self.stream = stream
        self.stdin: TextIO = stdin if stdin is not None else sys.stdin
        self.stdout: TextIO = stdout if stdout is not None else sys.stdout
        self.stderr: TextIO = stderr if stderr is not None else sys.stderr
        if color is None:
            color = (
                _is_tty(self.stderr)
                and "NO_COLOR" not in os.environ
                and os.environ.get("TERM") != "dumb"
            )
        self.color = color
        self._clean_out = _is_tty(self.stdout)
        self._clean_err = _is_tty(self.stderr)
        #: Whether the answer's last line on stdout still waits for its newline.
        self._open_line = False
        self._line_editing: bool | None = None

    # -- Channel -------------------------------------------------------------

    def receive(self) -> str | None:
        """The next line the user typed (without its newline), or None when they are done."""
        self._end_line()
        editing = self._uses_input()
        try:
            if editing:
                return input(self.prompt)
            if self.prompt:
                self._write(self.stderr, self.prompt)
            line = self.stdin.readline()
        except (EOFError, KeyboardInterrupt):
            line = ""
        if not line:
            # Ctrl-D or Ctrl-C leaves the cursor after the prompt: end that line.
            if editing:
                self._write(self.stdout, "\n")
            elif self.prompt:
                self._write(self.stderr, "\n")
            return None
        return line.rstrip("\r\n")

    def send(self, event: Any) -> None:
        """Show one :class:`~signet_sdk.agent.events.AgentEvent` (other objects are ignored)."""
        kind = getattr(event, "type", None)
        if kind == "text":
            if self.stream:
                self.write_answer(event.text)
        elif kind == "tool_call" and event.tool_call is not None:
            call = event.tool_call
            arguments = json.dumps(dict(call.arguments), ensure_ascii=False, default=str)
            self.note(f"tool: {call.name} {_one_line(arguments)}")
        elif kind == "tool_result" and event.tool_result is not None:
            result = event.tool_result
            if result.is_error:
                self.note(f"tool: {result.name} failed: {_one_line(result.content)}")
        elif kind == "notice":
            self.note(f"note: {event.text}")
        elif kind == "compacted":
            self.note("note: the conversation so far was replaced by a summary")
        elif kind == "error":
            self.error(event.text)
        elif kind == "done":
            output = event.output
            if not self.stream and output is not None and output.content:
                self.write_answer(output.content)
            self._end_line()

    def on_close(self) -> None:
        """End the answer's line and flush both streams."""
        self._end_line()
        self.stderr.flush()

    # -- what the chat command writes besides events -------------------------

    def write_answer(self, text: str) -> None:
        """Text of an answer (or a command's result) to stdout, as it comes."""
        if not text:
            return
        self._write(self.stdout, _CONTROL.sub("", text) if self._clean_out else text)
        self._open_line = not text.endswith("\n")

    def note(self, line: str) -> None:
        """One line on stderr (after ending the answer's line, so the two never share one)."""
        self._end_line()
        line = _one_line(line, limit=10 * LINE_CHARS)
        if self._clean_err:
            line = _CONTROL.sub("", line)
        self._write(self.stderr, f"{_DIM}{line}{_RESET}\n" if self.color else line + "\n")

    def error(self, message: str) -> None:
        """``error: <message>`` on one line of stderr, never dimmed."""
        self._end_line()
        line = "error: " + _one_line(message, limit=10 * LINE_CHARS)
        self._write(self.stderr, (_CONTROL.sub("", line) if self._clean_err else line) + "\n")

    # -- internals -----------------------------------------------------------

    def _uses_input(self) -> bool:
        """Whether to read with ``input()``: the process's own stdin and stdout are a terminal."""
        if self._line_editing is None:
            self._line_editing = (
                self.stdin is sys.stdin
                and self.stdout is sys.stdout
                and _is_tty(self.stdin)
                and _is_tty(self.stdout)
            )
            if self._line_editing:
                with contextlib.suppress(ImportError):
                    import readline  # noqa: F401  (input() edits lines once it is loaded)
        return self._line_editing

    def _end_line(self) -> None:
        if self._open_line:
            self._open_line = False
            self._write(self.stdout, "\n")
        else:
            self.stdout.flush()

    @staticmethod
    def _write(stream: TextIO, text: str) -> None:
        stream.write(text)
        stream.flush()
