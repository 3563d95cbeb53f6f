"""One background thread that delivers outbox entries in the order they were put.

An in-process caller (the Hermes provider, the reference runtime) must not
wait on the daemon for a write: the entry is already durable in the outbox
when it is submitted here, and this thread sends it while the caller goes
on. Entries are sent one at a time in submission order, so a session's end
never overtakes its last checkpoint. Standard library only.
"""

from __future__ import annotations

import threading
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["OrderedWriter"]


class OrderedWriter:
    """Runs ``deliver(entry_id)`` for each submitted id, in order, on one daemon thread.

    The thread starts with the first submission and ends once the queue has
    stayed empty for ``linger`` seconds (a session writes once a turn: one
    thread serves them all instead of a thread per write); ``wait`` tells
    when every submitted entry has been attempted.
    ``deliver`` must not raise for a failed send (the entry stays in the
    outbox); anything it does raise is handed to ``on_error``.
    """

    def __init__(
        self,
        deliver: Callable[[str], None],
        *,
        name: str = "signet-outbox",
        on_error: Callable[[str, BaseException], None] = lambda entry_id, exc: None,
        linger: float = 30.0,
    ) -> None:
        self._linger = linger
        self._deliver = deliver
        self._name = name
        self._on_error = on_error
        self._queue: list[str] = []
        self._cond = threading.Condition()
        self._busy = False
        self._thread: threading.Thread | None = None

    def submit(self, entry_id: str) -> None:
        with self._cond:
            self._queue.append(entry_id)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._queue:
                    self._busy = False
                    self._cond.notify_all()
                    self._cond.wait_for(lambda: bool(self._queue), self._linger)
                if not self._queue:
                    self._thread = None
                    return
                entry_id = self._queue.pop(0)
                self._busy = True
            try:
                self._deliver(entry_id)
            except Exception as exc:  # the entry stays pending for the detached sender
                self._on_error(entry_id, exc)

    def wait(self, seconds: float) -> bool:
        """True once every submitted entry was attempted, False when time ran out."""
        end = time.monotonic() + seconds
        with self._cond:
            while self._queue or self._busy:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True
