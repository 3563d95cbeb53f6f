"""A harness's interactive UI on a pseudo-terminal: :class:`Terminal`.

Some lifecycle events only happen in a harness's interactive UI (``/compact``
typed by a user, quitting with ``/exit``): a test drives the real UI as a
user would, reading the screen with the escape sequences taken out.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Mapping
from pathlib import Path

__all__ = ["Terminal"]

_ANSI = re.compile(
    rb"\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\\\)|\x1b[()][A-Z0-9]"
)


class Terminal:
    """``argv`` in its interactive UI on a 40x120 pseudo-terminal, in its own process group.

    ``set_size``: also tell the terminal its size (some UIs draw nothing
    until they know it). ``key_delay``: type a line key by key, this many
    seconds apart (a UI that reads a burst of keys as a paste), else at once.
    The harness runs under ``env`` plus TERM, COLUMNS and LINES; leaving a
    ``with`` block closes it.
    """

    def __init__(
        self,
        argv: list[str],
        cwd: Path,
        env: Mapping[str, str],
        *,
        set_size: bool = False,
        key_delay: float | None = None,
    ) -> None:
        master, slave = os.openpty()
        if set_size:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        full = {**env, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=full,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        self.fd = master
        self.screen = b""
        self.key_delay = key_delay

    def text(self) -> str:
        """What the screen received since the last line typed, without escape sequences."""
        return _ANSI.sub(b"", self.screen).decode("utf-8", "replace")

    def read(self, seconds: float) -> None:
        """Take in what the UI writes for ``seconds`` (less, if it closes the terminal)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            self.screen += data

    def wait_for(self, needle: str, timeout: float = 60.0) -> None:
        """Read until ``needle`` is on the screen; ``AssertionError`` (with the screen) if not."""
        end = time.monotonic() + timeout
        while needle not in self.text():
            assert time.monotonic() < end, f"no {needle!r} on screen:\n{self.text()[-3000:]}"
            self.read(0.2)

    def type(self, line: str) -> None:
        """Types ``line``, then Enter on its own (typed at once, Enter would be a newline)."""
        self.screen = b""
        if self.key_delay is None:
            os.write(self.fd, line.encode())
        else:
            for char in line:
                os.write(self.fd, char.encode())
                time.sleep(self.key_delay)
        self.read(1.0)
        os.write(self.fd, b"\r")

    def answer(self, line: str, expected: str, timeout: float = 60.0) -> None:
        """Types ``line`` (a prompt, a command), then waits until ``expected`` (its answer, or
        what the command prints when done) is on the screen, as :meth:`wait_for` does."""
        self.type(line)
        self.wait_for(expected, timeout)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the whole process group this test started (harnesses start children: a
        relaunched node process, the MCP server), by its leader's PID."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        os.close(self.fd)
