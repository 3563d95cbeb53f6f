# long module: one on-disk protocol (entries, in-doubt markers, dead letters, sweep, flush)
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
   tell, each entry arrives once.
3. An entry whose send may have reached the daemon without an answer (a
   timeout, a reset, a hook killed mid-send) is *in doubt*: a ``.sending``
   marker written before each send says so. It is not sent again until
   ``settle`` seconds have passed (the daemon may still be working on it),
   and then it is sent so that the daemon recognises a repeat (how, per
   write: :mod:`signet_sdk.hooks.entry`). A write stored under an entry id an
   earlier run of the same native event chose (the adapter server, then the
   hook process a shim fell back to) is found, not stored twice.
4. A 409 saying the entry's own ``idempotencyKey`` is taken means an earlier
   send landed: the entry is delivered. Any other entry the daemon cannot
   accept (400, 404, 409, 413, 422) or that failed
   ``max_attempts`` times after the daemon may have seen it moves to
   ``dead/`` with the reason beside it and a log line: never dropped silently.
   A refused connection, a 429 and a 503 do not count as attempts: the
   daemon never saw the call, or turned it away before any handler ran.
5. A session's writes reach the daemon in the order they were put: an entry
   waits while an older entry of the same session is still pending (in doubt,
   failed, or being sent by another process). A checkpoint or summary cut by
   a crash is never resent after its session's end, where the daemon would
   apply it to a session that has moved on.

Transcripts are snapshotted by :mod:`signet_sdk.runtime.transcripts` and staged
just before each send. The outbox folder is checked when a write is put
(:func:`~signet_sdk.runtime.files.outbox_dir`): one that cannot be written
raises :class:`OSError` there, and the caller sends the write directly. The
bookkeeping around a send (its marker, its attempt count) never fails a send.

Standard library only: the hook path imports this.
"""

from __future__ import annotations

import os
import time

from signet_sdk.hooks.entry import (
    Entry,
    already_stored,
    entry_of,
    settle_seconds,
    stamp_identity,
)
from signet_sdk.runtime.files import (
    fsync_dir,
    outbox_dir,
    private_dir,
    state_dir,
    write_durably,
)
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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterator, Mapping
    from typing import Any

    #: A sender: (entry, the body to send) -> the decoded answer; raises SignetError.
    Sender = Callable[["Entry", dict[str, Any]], Any]

try:  # POSIX; elsewhere entries are still durable, only concurrent replay is unguarded
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = ["Entry", "Outbox", "state_dir"]


#: Statuses that say the request itself is unacceptable: replaying cannot help.
_PERMANENT = frozenset({400, 404, 405, 409, 410, 413, 415, 422})


class Outbox:
    """A directory of pending daemon calls, replayed until the daemon takes them.

    ``root`` None is the hook path's outbox in the state directory of ``env``
    (the environment when None), checked with the state directory above it
    each time a write is put. ``log`` receives one line per noteworthy event
    (a kept entry, a dead one).
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        max_attempts: int = 8,
        staging_root: str | os.PathLike[str] = STAGING_ROOT,
        log: Callable[[str], None] | None = None,
        settle: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self._env = env
        self._default = root is None
        self.root = outbox_dir(env, create=False) if root is None else os.fspath(root)
        self.dead = os.path.join(self.root, "dead")
        self.max_attempts = max_attempts
        self.staging_root = staging_root
        self._log = log or (lambda line: None)
        self.settle = settle_seconds() if settle is None else settle
        #: The longest ``Retry-After`` a busy daemon gave since the last pass of ``flush``.
        self.wait_hint = 0.0
        #: Why the last write could not be put here, or None once one could.
        self.unusable: str | None = None
        #: Each entry's session, once read (an entry's body never changes).
        self._sessions: dict[str, tuple[Any, ...] | None] = {}

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
        entry_id: str | None = None,
        repeat: bool = False,
    ) -> Entry:
        """Store one call durably and return it; the call is safe once this returns.

        ``entry_id`` (from :class:`~signet_sdk.hooks.entry.EventWrites`) is the
        id to store it under: an entry already stored under it (by an earlier
        run of the same event) is returned as it is, and nothing is written.
        ``repeat`` marks a new entry as one an earlier run may have delivered,
        so that even its first send is one the daemon recognises as a repeat.
        Raises :class:`OSError` when the folder cannot hold it.
        """
        if self._default:
            outbox_dir(self._env)  # the state directory above is checked as well
        else:
            private_dir(self.root)
        if entry_id is None:
            entry_id = f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(3).hex()}"
        else:
            plain = entry_id.replace("-", "").replace("_", "")
            if not (plain.isascii() and plain.isalnum() and len(entry_id) <= 200):
                raise ValueError(f"an entry id is letters, digits, - and _: {entry_id!r}")
            found = self._stored(entry_id)
            if found is not None:
                self.unusable = None
                return found
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
            "body": stamp_identity(action, dict(body), entry_id),
            "harness": harness,
            "runtimePath": runtime_path,
            "agentId": agent_id,
            "created": time.time(),
            "transcript": info,
            "meta": dict(meta or {}),
        }
        if repeat:
            record["repeat"] = True
        data = jsonfast.dumps(record).encode("utf-8")
        try:
            write_durably(os.path.join(self.root, f"{entry_id}.json"), data)
        except OSError:
            # No entry names the copy (a full disk, say): take it away rather
            # than leave it holding the last free space for the hour to its sweep.
            if info is not None:
                try:  # noqa: SIM105 (no contextlib on the hook path)
                    os.unlink(os.path.join(self.root, info["file"]))
                except OSError:
                    pass
            raise
        fsync_dir(self.root)
        self.unusable = None
        entry = entry_of(record)
        self._sessions[entry_id] = session_of(entry)
        return entry

    def refused(self, exc: OSError) -> bool:
        """Note that a write could not be put here; True the first time since one could.

        Callers say so once, not once per write, while the folder stays unusable.
        """
        first = self.unusable is None
        self.unusable = str(exc)
        return first

    def _stored(self, entry_id: str) -> Entry | None:
        """The entry stored under ``entry_id``, or None (none, or not readable as one)."""
        try:
            path = os.path.join(self.root, f"{entry_id}.json")
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            return entry_of(jsonfast.loads(read_exact(fd, 0, os.fstat(fd).st_size)))
        except (OSError, ValueError, KeyError, TypeError):
            return None  # a torn or foreign file: the new entry replaces it
        finally:
            os.close(fd)

    # -- reading -----------------------------------------------------------

    def pending(self) -> list[str]:
        """Ids of the entries waiting to be sent, oldest first."""
        try:
            names = os.listdir(self.root)
        except OSError:
            return []
        return sorted(n[:-5] for n in names if n.endswith(".json") and not n.startswith("."))

    def session(self, entry_id: str) -> tuple[Any, ...] | None:
        """The session an entry belongs to (:func:`session_of`), or None (none, or unreadable)."""
        if entry_id not in self._sessions:
            found = self._stored(entry_id)
            if found is None:
                return None  # not cached: it may be an entry still being written
            self._sessions[entry_id] = session_of(found)
        return self._sessions[entry_id]

    def queued_before(self, entry: Entry) -> str | None:
        """The oldest entry of ``entry``'s session pending before it, or None.

        Ids begin with the time they were made, so the older entries are the
        ones whose ids sort before this one's.
        """
        session = session_of(entry)
        if session is None:
            return None
        for other in self.pending():
            if other >= entry.id:
                return None
            if self.session(other) == session:
                return other
        return None

    def attempts(self, entry_id: str) -> int:
        try:
            with open(os.path.join(self.root, f"{entry_id}.attempts"), "rb") as fh:
                return int(fh.read().strip() or 0)
        except (OSError, ValueError):
            return 0

    # -- sending -----------------------------------------------------------

    def deliver(
        self,
        entry_id: str,
        send: Sender,
        *,
        open_sessions: Container[tuple[Any, ...]] | None = None,
    ) -> str:
        """Send one entry if nobody else is sending it.

        Returns ``"sent"``, ``"busy"`` (another process holds it), ``"gone"``
        (already delivered), ``"kept"`` (the daemon was unreachable or busy:
        not an attempt), ``"settling"`` (an earlier send is in doubt and not
        ``settle`` seconds old: not sent now), ``"waiting"`` (an older entry of
        the same session is still pending: this one goes after it),
        ``"failed"`` (an attempt the daemon may have seen, counted and kept)
        or ``"dead"``.

        ``open_sessions``, when given, is the sessions known to have an older
        entry still pending, which spares listing the folder again: :meth:`flush`
        knows them from its own pass over the folder, oldest first.
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
                entry = entry_of(jsonfast.loads(read_exact(fd, 0, os.fstat(fd).st_size)))
            except (ValueError, KeyError, TypeError) as exc:
                return self._bury(entry_id, f"unreadable entry: {exc}")
            if open_sessions is not None:
                waits = session_of(entry) in open_sessions
            else:
                waits = self.queued_before(entry) is not None
            if waits:
                return "waiting"  # its session's older write goes first
            began = self._send_began(entry_id)
            if began is not None:
                if time.time() - began < self.settle:
                    return "settling"  # an earlier send may still be in the daemon's hands
                entry = entry._replace(resend=True, after_error=began == 0)
            return self._send_locked(entry, send)
        finally:
            os.close(fd)  # releases the lock

    def in_doubt_for(self, entry_id: str) -> float | None:
        """Seconds since a send of ``entry_id`` that got no answer began, or None."""
        began = self._send_began(entry_id)
        return None if began is None else max(time.time() - began, 0.0)

    def _send_began(self, entry_id: str) -> float | None:
        """When the in-doubt send of ``entry_id`` began (its marker's mtime), or None.

        0 when the daemon answered it with a server error (see :meth:`_send_locked`).
        """
        try:
            return os.lstat(os.path.join(self.root, f"{entry_id}.sending")).st_mtime
        except OSError:
            return None

    def _mark_sending(self, entry_id: str) -> None:
        """Say that a send of ``entry_id`` begins: its time is the marker's mtime.

        Not fsynced: it must outlive this process (a kill), not the machine.
        An empty file, so that a full disk still takes it; when even that
        fails the send goes ahead unmarked (said in the log): a write is
        never held back by its own bookkeeping.
        """
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(os.path.join(self.root, f"{entry_id}.sending"), flags, 0o600)
            try:
                os.utime(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            self._log(f"outbox {entry_id}: sent without its in-doubt marker: {exc}")

    def _send_locked(self, entry: Entry, send: Sender) -> str:
        staged: str | None = None
        body = dict(entry.body)
        settled = False  # True once the daemon's answer (or its absence) is known
        try:
            if entry.transcript is not None:
                staged = self._attach_transcript(entry, body)
            self._mark_sending(entry.id)
            try:
                send(entry, body)
                settled = True
            except (NotSentError, RateLimitError, ServiceUnavailableError):
                settled = True
                raise
            except APIStatusError:
                # The daemon answered, so it is no longer working on this send; but
                # a 5xx may follow a partly applied write: a repeat, without waiting.
                settled = True
                try:  # noqa: SIM105 (no contextlib on the hook path)
                    os.utime(os.path.join(self.root, f"{entry.id}.sending"), (0, 0))
                except OSError:
                    pass  # not marked: the resend waits out the settling time
                raise
            finally:
                # A staged transcript stays while its send is in doubt: the daemon may
                # still read it. Old staged files are swept.
                if staged is not None and settled:
                    _unlink(staged)
        except NotSentError:
            self._not_sent(entry.id)
            return "kept"  # the daemon never saw it; the caller reports what is left
        except (RateLimitError, ServiceUnavailableError) as exc:
            if not getattr(exc, "permanent", False):
                # Backpressure, not failure: the daemon turned it away before any
                # handler ran. It waits for a later try without spending an attempt.
                self._not_sent(entry.id)
                said = getattr(exc, "retry_after", None)
                if said is not None:
                    self.wait_hint = max(self.wait_hint, float(said))
                return "kept"
            return self._count_failure(entry, exc)
        except APIStatusError as exc:
            if isinstance(exc, ConflictError) and already_stored(entry.action, body, exc.error):
                self._log(f"outbox {entry.id} {entry.action}: already stored ({exc.error})")
                self._remove(entry.id)
                return "sent"
            if exc.status_code in _PERMANENT:
                kind = "conflict" if isinstance(exc, ConflictError) else "rejected"
                return self._bury(entry.id, f"{kind}: {exc}")
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

    def _not_sent(self, entry_id: str) -> None:
        """The daemon provably did not act on this send: the entry is no longer in doubt."""
        _unlink(os.path.join(self.root, f"{entry_id}.sending"))

    def _count_failure(self, entry: Entry, exc: BaseException) -> str:
        attempts = self.attempts(entry.id) + 1
        if attempts >= self.max_attempts:
            return self._bury(entry.id, f"gave up after {attempts} attempts: {exc}")
        try:
            write_durably(os.path.join(self.root, f"{entry.id}.attempts"), str(attempts).encode())
        except OSError as unwritable:  # the count stays behind; the entry is kept all the same
            self._log(f"outbox {entry.id}: attempt not counted: {unwritable}")
        self._log(f"outbox {entry.id} {entry.action}: attempt {attempts} failed, kept: {exc}")
        return "failed"

    def _files(self, entry_id: str) -> Iterator[str]:
        for suffix in (".json", ".transcript", ".attempts", ".sending"):
            yield os.path.join(self.root, f"{entry_id}{suffix}")

    def _remove(self, entry_id: str) -> None:
        # The entry file goes first: without it, leftovers are never sent again.
        for path in self._files(entry_id):
            _unlink(path)

    def _bury(self, entry_id: str, reason: str) -> str:
        """Move an entry to ``dead/`` with its reason: kept for a person, never resent.

        Returns ``"dead"``, or ``"failed"`` when the folder cannot take the move
        (the entry then stays pending, and is tried again later).
        """
        try:
            private_dir(self.dead)
            write_durably(os.path.join(self.dead, f"{entry_id}.reason"), (reason + "\n").encode())
            for path in self._files(entry_id):
                if os.path.exists(path):
                    os.replace(path, os.path.join(self.dead, os.path.basename(path)))
        except OSError as exc:
            self._log(f"outbox {entry_id}: could not be moved to {self.dead} ({exc}): {reason}")
            return "failed"
        self._log(f"outbox {entry_id}: moved to {self.dead}: {reason}")
        return "dead"

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
            orphan = dot and suffix in ("transcript", "attempts", "sending") and stem not in entries
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
        #: Sessions one of whose entries failed this run: the rest of them wait for the next.
        stuck: set[tuple[Any, ...]] = set()
        delay = 0.25
        while True:
            again = False
            #: Sessions with an entry of this pass still pending: their later entries wait.
            open_sessions: set[tuple[Any, ...]] = set()
            for entry_id in self.pending():
                if entry_id in failed:
                    continue
                if clock() >= deadline:
                    return counts
                session = self.session(entry_id)
                if session is not None and session in stuck:
                    counts["waiting"] = counts.get("waiting", 0) + 1
                    continue
                outcome = self.deliver(entry_id, send, open_sessions=open_sessions)
                counts[outcome] = counts.get(outcome, 0) + 1
                if session is not None and outcome not in ("sent", "gone", "dead"):
                    open_sessions.add(session)
                if outcome == "failed":
                    failed.add(entry_id)
                    if session is not None:
                        stuck.add(session)
                again = again or outcome in ("kept", "busy", "settling", "waiting")
                if outcome == "kept":
                    break  # down or busy: the entries behind this one would hear the same
            if not again:
                return counts
            # A busy daemon's Retry-After is a lower bound on the wait, never an attempt.
            wait = min(max(delay, self.wait_hint), deadline - clock())
            self.wait_hint = 0.0
            if wait <= 0:
                return counts
            sleep(wait)
            delay = min(delay * 2, 8.0)


def session_of(entry: Entry) -> tuple[Any, ...] | None:
    """The session whose order ``entry`` keeps: its harness, agent and session key.

    None for a write that names no session (a ``remember`` without one): it
    keeps no order with anything.
    """
    key = entry.body.get("sessionKey")
    if not isinstance(key, str) or not key:
        return None
    return (entry.harness, entry.agent_id, key)


def _unlink(path: str) -> None:
    # Not contextlib.suppress: contextlib (with functools) stays off the hook path.
    # Any OSError: a file that cannot be removed (a folder turned read-only) is
    # left for a later sweep rather than failing the send that already landed.
    try:  # noqa: SIM105
        os.unlink(path)
    except OSError:
        pass
