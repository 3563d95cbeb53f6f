"""Durable hand-off for writes a hook process may not live to send.

A harness can kill its hook at any moment (Claude Code gave ``SessionEnd``
1.5 s, and a daemon that is down cannot take a transcript at all), so the
writes that matter (session-end, checkpoints, compaction summaries) are
first written here, then sent:

1. ``put`` snapshots the transcript and writes the call as an entry: each file
   goes to a temporary name, is fsynced, then renamed into place (0600, in a
   0700 directory), and the directory is fsynced. Once ``put`` returns, the
   call survives the process being killed and the machine being rebooted.
2. ``deliver`` sends one entry and removes it only after the daemon answered.
   An exclusive ``flock`` on the entry file means two replayers (a detached
   flusher, the next session's hook) never send the same entry at once, and
   an entry removed by one is skipped by the other: as far as the daemon can
   tell, each entry arrives once. The one window left is a crash after the
   daemon answered and before the entry is removed; the daemon's
   session-end tombstone absorbs a repeat within 30 minutes.
3. An entry the daemon cannot accept (400, 404, 409, 413, 422) or that failed
   ``max_attempts`` times after the daemon may have seen it moves to
   ``dead/`` with the reason beside it and a log line: never dropped silently.
   A refused connection, a 429 and a 503 do not count as attempts: the
   daemon never saw the call, or turned it away before any handler ran.

Transcripts are snapshotted by :mod:`signet_sdk.runtime.transcripts` and staged
just before each send.

Standard library only: the hook path imports this.
"""

from __future__ import annotations

import os
import time

from signet_sdk.runtime.files import fsync_dir, private_dir, state_dir, write_durably
from signet_sdk.runtime.transcripts import (
    STAGING_ROOT,
    TranscriptSnapshot,
    attach_transcript,
    read_exact,
)
from signet_sdk.wire import jsonfast
from signet_sdk.wire.errors import (
    APIStatusError,
    ConflictError,
    NotSentError,
    RateLimitError,
    ServiceUnavailableError,
)
from signet_sdk.wire.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from typing import Any

    #: A sender: (entry, the body to send) -> the decoded answer; raises SignetError.
    Sender = Callable[["Entry", dict[str, Any]], Any]

try:  # POSIX; elsewhere entries are still durable, only concurrent replay is unguarded
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = ["Entry", "Outbox", "state_dir"]


# -- the outbox -------------------------------------------------------------


class Entry(Record):
    """One pending daemon call as stored on disk."""

    __slots__ = (
        "action",
        "agent_id",
        "body",
        "created",
        "harness",
        "id",
        "meta",
        "runtime_path",
        "transcript",
    )
    id: str
    action: str
    body: dict[str, Any]
    harness: str | None
    runtime_path: str | None
    agent_id: str | None
    created: float
    transcript: dict[str, Any] | None
    meta: dict[str, Any]

    def __init__(
        self,
        id: str,
        action: str,
        body: dict[str, Any],
        harness: str | None,
        runtime_path: str | None,
        agent_id: str | None,
        created: float,
        transcript: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self._init(
            id=id,
            action=action,
            body=body,
            harness=harness,
            runtime_path=runtime_path,
            agent_id=agent_id,
            created=created,
            transcript=transcript,
            meta=meta or {},
        )


#: Statuses that say the request itself is unacceptable: replaying cannot help.
_PERMANENT = frozenset({400, 404, 405, 409, 410, 413, 415, 422})


class Outbox:
    """A directory of pending daemon calls, replayed until the daemon takes them.

    ``log`` receives one line per noteworthy event (a kept entry, a dead one).
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        max_attempts: int = 8,
        staging_root: str | os.PathLike[str] = STAGING_ROOT,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.root = os.fspath(root) if root is not None else os.path.join(state_dir(), "outbox")
        self.dead = os.path.join(self.root, "dead")
        self.max_attempts = max_attempts
        self.staging_root = staging_root
        self._log = log or (lambda line: None)

    # -- writing -----------------------------------------------------------

    def put(
        self,
        action: str,
        body: Mapping[str, Any],
        *,
        harness: str | None = None,
        runtime_path: str | None = None,
        agent_id: str | None = None,
        transcript: TranscriptSnapshot | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Entry:
        """Store one call durably and return it; the call is safe once this returns."""
        private_dir(self.root)
        entry_id = f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(3).hex()}"
        info: dict[str, Any] | None = None
        if transcript is not None:
            name = f"{entry_id}.transcript"
            write_durably(os.path.join(self.root, name), transcript.data)
            info = {
                "file": name,
                "bytes": len(transcript.data),
                "sourceBytes": transcript.source_bytes,
                "truncated": transcript.truncated,
            }
        record = {
            "version": 1,
            "id": entry_id,
            "action": action,
            "body": dict(body),
            "harness": harness,
            "runtimePath": runtime_path,
            "agentId": agent_id,
            "created": time.time(),
            "transcript": info,
            "meta": dict(meta or {}),
        }
        data = jsonfast.dumps(record).encode("utf-8")
        write_durably(os.path.join(self.root, f"{entry_id}.json"), data)
        fsync_dir(self.root)
        return _entry_of(record)

    # -- reading -----------------------------------------------------------

    def pending(self) -> list[str]:
        """Ids of the entries waiting to be sent, oldest first."""
        try:
            names = os.listdir(self.root)
        except OSError:
            return []
        return sorted(n[:-5] for n in names if n.endswith(".json") and not n.startswith("."))

    def attempts(self, entry_id: str) -> int:
        try:
            with open(os.path.join(self.root, f"{entry_id}.attempts"), "rb") as fh:
                return int(fh.read().strip() or 0)
        except (OSError, ValueError):
            return 0

    # -- sending -----------------------------------------------------------

    def deliver(self, entry_id: str, send: Sender) -> str:
        """Send one entry if nobody else is sending it.

        Returns ``"sent"``, ``"busy"`` (another process holds it), ``"gone"``
        (already delivered), ``"kept"`` (the daemon was unreachable: not an
        attempt), ``"failed"`` (an attempt the daemon may have seen, counted
        and kept) or ``"dead"``.
        """
        path = os.path.join(self.root, f"{entry_id}.json")
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return "gone"
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return "busy"
            if os.fstat(fd).st_nlink == 0:
                return "gone"  # delivered and removed between our open and our lock
            try:
                entry = _entry_of(jsonfast.loads(read_exact(fd, 0, os.fstat(fd).st_size)))
            except (ValueError, KeyError, TypeError) as exc:
                self._bury(entry_id, f"unreadable entry: {exc}")
                return "dead"
            return self._send_locked(entry, send)
        finally:
            os.close(fd)  # releases the lock

    def _send_locked(self, entry: Entry, send: Sender) -> str:
        staged: str | None = None
        body = dict(entry.body)
        try:
            if entry.transcript is not None:
                staged = self._attach_transcript(entry, body)
            try:
                send(entry, body)
            finally:
                if staged is not None:
                    _unlink(staged)
        except NotSentError:
            return "kept"  # the daemon never saw it; the caller reports what is left
        except (RateLimitError, ServiceUnavailableError) as exc:
            if not getattr(exc, "permanent", False):
                # Backpressure, not failure: the daemon turned it away before any
                # handler ran. It waits for a later try without spending an attempt.
                return "kept"
            return self._count_failure(entry, exc)
        except APIStatusError as exc:
            if exc.status_code in _PERMANENT:
                kind = "conflict" if isinstance(exc, ConflictError) else "rejected"
                self._bury(entry.id, f"{kind}: {exc}")
                return "dead"
            return self._count_failure(entry, exc)
        except Exception as exc:
            return self._count_failure(entry, exc)
        self._remove(entry.id)
        return "sent"

    def _attach_transcript(self, entry: Entry, body: dict[str, Any]) -> str | None:
        """Put the snapshotted transcript into ``body``: a staged file, else inline text."""
        assert entry.transcript is not None
        try:
            with open(os.path.join(self.root, entry.transcript["file"]), "rb") as fh:
                data = fh.read()
        except OSError as exc:
            self._log(f"outbox {entry.id}: transcript snapshot missing, sent without: {exc}")
            return None
        snapshot = TranscriptSnapshot(
            data,
            int(entry.transcript.get("sourceBytes", len(data))),
            bool(entry.transcript.get("truncated")),
        )
        return attach_transcript(
            body, snapshot, f"outbox {entry.id}", staging_root=self.staging_root, log=self._log
        )

    def _count_failure(self, entry: Entry, exc: BaseException) -> str:
        attempts = self.attempts(entry.id) + 1
        if attempts >= self.max_attempts:
            self._bury(entry.id, f"gave up after {attempts} attempts: {exc}")
            return "dead"
        write_durably(os.path.join(self.root, f"{entry.id}.attempts"), str(attempts).encode())
        self._log(f"outbox {entry.id} {entry.action}: attempt {attempts} failed, kept: {exc}")
        return "failed"

    def _files(self, entry_id: str) -> Iterator[str]:
        for suffix in (".json", ".transcript", ".attempts"):
            yield os.path.join(self.root, f"{entry_id}{suffix}")

    def _remove(self, entry_id: str) -> None:
        # The entry file goes first: without it, leftovers are never sent again.
        for path in self._files(entry_id):
            _unlink(path)

    def _bury(self, entry_id: str, reason: str) -> None:
        """Move an entry to ``dead/`` with its reason: kept for a person, never resent."""
        private_dir(self.dead)
        write_durably(os.path.join(self.dead, f"{entry_id}.reason"), (reason + "\n").encode())
        for path in self._files(entry_id):
            if os.path.exists(path):
                os.replace(path, os.path.join(self.dead, os.path.basename(path)))
        self._log(f"outbox {entry_id}: moved to {self.dead}: {reason}")

    def sweep(self, max_age: float = 3600.0) -> int:
        """Remove what a killed writer left: temporary files, and parts of entries without
        their entry file, older than ``max_age`` seconds. Returns how many went."""
        try:
            names = os.listdir(self.root)
        except OSError:
            return 0
        entries = {n[:-5] for n in names if n.endswith(".json") and not n.startswith(".")}
        now = time.time()
        removed = 0
        for name in names:
            stem, dot, suffix = name.rpartition(".")
            orphan = dot and suffix in ("transcript", "attempts") and stem not in entries
            if not (name.startswith(".tmp-") or orphan):
                continue
            path = os.path.join(self.root, name)
            try:
                if now - os.lstat(path).st_mtime > max_age:
                    os.unlink(path)
                    removed += 1
            except OSError:
                continue
        return removed

    def flush(
        self,
        send: Sender,
        *,
        deadline: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> dict[str, int]:
        """Deliver every pending entry, retrying an unreachable daemon until ``deadline``.

        ``deadline`` is a ``clock()`` value. An entry whose attempt failed is
        not tried again in the same run, so attempts count runs (hook
        triggers), not seconds. Returns a count per outcome.
        """
        counts: dict[str, int] = {}
        failed: set[str] = set()
        delay = 0.25
        while True:
            again = False
            for entry_id in self.pending():
                if entry_id in failed:
                    continue
                if clock() >= deadline:
                    return counts
                outcome = self.deliver(entry_id, send)
                counts[outcome] = counts.get(outcome, 0) + 1
                if outcome == "failed":
                    failed.add(entry_id)
                again = again or outcome in ("kept", "busy")
            if not again:
                return counts
            wait = min(delay, deadline - clock())
            if wait <= 0:
                return counts
            sleep(wait)
            delay = min(delay * 2, 8.0)


def _unlink(path: str) -> None:
    # Not contextlib.suppress: contextlib (with functools) stays off the hook path.
    try:  # noqa: SIM105
        os.unlink(path)
    except FileNotFoundError:
        pass


def _entry_of(record: Mapping[str, Any]) -> Entry:
    return Entry(
        id=str(record["id"]),
        action=str(record["action"]),
        body=dict(record["body"]),
        harness=record.get("harness"),
        runtime_path=record.get("runtimePath"),
        agent_id=record.get("agentId"),
        created=float(record.get("created", 0.0)),
        transcript=record.get("transcript"),
        meta=dict(record.get("meta") or {}),
    )
