"""One deadline for a whole hook process, backed by a timer that ends the process.

Standard library only.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Deadline", "process_age"]

#: The least time a hook is given to read its payload and keep its writes, however
#: late it started: a harness that has already given up loses nothing but the answer.
MIN_SECONDS = 1.0


def _signals() -> Any:
    """The signal functions without ``signal``'s enum wrappers (``enum`` costs ~2 ms).

    ``_signal`` is the C module ``signal`` re-exports; the handlers, timers and
    masks used here are the same objects.
    """
    try:
        import _signal  # type: ignore[import-not-found]

        return _signal
    except ImportError:  # pragma: no cover - other Python implementations
        import signal

        return signal


def process_age() -> float:
    """Seconds since this process was started; 0.0 where the system does not say.

    A harness's hook timeout runs from the moment it starts the process, and
    on a loaded machine Python's own start-up takes seconds of it (60 hooks at
    once on 2 cores: over 2 s). Linux gives the start in clock ticks since
    boot (``/proc/self/stat``, field 22), the clock ``CLOCK_BOOTTIME`` reads.
    """
    try:
        with open("/proc/self/stat", "rb") as stat:
            line = stat.read()
        # Field 2 (the command name) may hold spaces and ")": count from its last ")".
        started = int(line[line.rindex(b")") + 2 :].split()[19]) / os.sysconf("SC_CLK_TCK")
        return max(time.clock_gettime(time.CLOCK_BOOTTIME) - started, 0.0)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


class Deadline:
    """The whole process's time budget, backed by a timer that ends the process.

    ``spent`` is what the budget has already lost before this object exists
    (:func:`process_age` for a hook process): the timer gets the rest, but
    never less than :data:`MIN_SECONDS`.
    """

    def __init__(self, seconds: float, on_expire: Any, spent: float = 0.0) -> None:
        seconds = max(seconds - spent, min(seconds, MIN_SECONDS))
        self.end = time.monotonic() + seconds
        self._armed = False
        self._previous: Any = None
        self._on_expire = on_expire
        try:
            signal = _signals()
            self._previous = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.01))
            self._armed = True
        except (ImportError, AttributeError, ValueError, OSError):  # no SIGALRM here
            pass

    def _fire(self, signum: int, frame: object) -> None:
        self._on_expire()
        os._exit(0)

    def left(self) -> float:
        return self.end - time.monotonic()

    def disarm(self) -> None:
        """Stop the timer and put back whatever SIGALRM handler was there before."""
        if self._armed:
            signal = _signals()
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous or signal.SIG_DFL)
            self._armed = False

    def hold(self) -> Any:
        """Block the timer while a durable write is in progress (restored on exit)."""
        return Blocked(self._armed)


class Blocked:
    def __init__(self, armed: bool) -> None:
        self.armed = armed

    def __enter__(self) -> None:
        if self.armed:
            signal = _signals()
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})

    def __exit__(self, *exc: object) -> None:
        if self.armed:
            signal = _signals()
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
