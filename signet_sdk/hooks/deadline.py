"""One deadline for a whole hook process, backed by a timer that ends the process.

Standard library only.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Deadline"]


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


class Deadline:
    """The whole process's time budget, backed by a timer that ends the process."""

    def __init__(self, seconds: float, on_expire: Any) -> None:
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
