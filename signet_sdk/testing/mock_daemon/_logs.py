"""The mock's own log: a ring buffer of LogEntry dicts and live SSE subscribers.

The real daemon serves ``GET /api/logs`` from its log files and streams new
entries over ``GET /api/logs/stream``. The mock logs what it does (one
``http`` entry per request plus a few domain events) so both routes have
real content, and so a test can watch the stream react to its own calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ._rules import iso, parse_iso

LEVELS = ("debug", "info", "warn", "error")
_RANK = {name: i for i, name in enumerate(LEVELS)}

#: Sentinel queued to a subscriber to end its stream.
_CLOSE: dict[str, Any] = {}


@dataclass(eq=False, slots=True)
class Subscriber:
    """One open log stream: a queue owned by the event loop that serves it."""

    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[dict[str, Any]]

    def push(self, entry: dict[str, Any]) -> None:
        """Hand an entry over from any thread."""
        # A closed loop means the stream is gone already.
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self.queue.put_nowait, entry)

    def close(self) -> None:
        """Ask the stream to finish."""
        self.push(_CLOSE)

    @staticmethod
    def is_close(entry: dict[str, Any]) -> bool:
        """Whether a queued item is the end-of-stream marker."""
        return entry is _CLOSE


class LogBook:
    """The newest ``capacity`` log entries, and everyone streaming new ones."""

    def __init__(self, clock: Callable[[], float], capacity: int = 2000) -> None:
        self._now = clock
        self._lock = threading.Lock()
        self._entries: deque[dict[str, Any]] = deque(maxlen=capacity)
        self._subscribers: list[Subscriber] = []

    def log(
        self,
        level: str,
        category: str,
        message: str,
        data: dict[str, Any] | None = None,
        *,
        duration: float | None = None,
        error: BaseException | None = None,
    ) -> dict[str, Any]:
        """Append an entry (and push it to every open stream)."""
        entry: dict[str, Any] = {
            "timestamp": iso(self._now()),
            "level": level,
            "category": category,
            "message": message,
        }
        if data:
            entry["data"] = data
        if duration is not None:
            entry["duration"] = round(duration, 3)
        if error is not None:
            entry["error"] = {"name": type(error).__name__, "message": str(error)}
        with self._lock:
            self._entries.append(entry)
            subscribers = list(self._subscribers)
        for sub in subscribers:
            sub.push(entry)
        return entry

    def recent(
        self,
        *,
        limit: int = 100,
        level: str | None = None,
        category: str | None = None,
        since: str | None = None,
    ) -> list[dict[str, Any]]:
        """``logger.getRecent``: the newest matching entries, oldest first."""
        floor = _RANK.get(level or "", 0)
        since_ts = parse_iso(since) if since else None
        with self._lock:
            entries = list(self._entries)
        out = []
        for entry in entries:
            if _RANK.get(entry["level"], 0) < floor:
                continue
            if category and entry["category"] != category:
                continue
            if since_ts is not None:
                ts = parse_iso(entry["timestamp"])
                if ts is not None and ts < since_ts:
                    continue
            out.append(entry)
        return out[-limit:] if limit > 0 else []

    def subscribe(self) -> Subscriber:
        """Open a stream on the running event loop."""
        sub = Subscriber(asyncio.get_running_loop(), asyncio.Queue())
        with self._lock:
            self._subscribers.append(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        """Close a stream's subscription (idempotent)."""
        with self._lock:
            if sub in self._subscribers:
                self._subscribers.remove(sub)

    @property
    def subscriber_count(self) -> int:
        """How many log streams are open right now."""
        with self._lock:
            return len(self._subscribers)

    def close_streams(self) -> None:
        """End every open stream (server shutdown, or a test that is done)."""
        with self._lock:
            subscribers = list(self._subscribers)
        for sub in subscribers:
            sub.close()
