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
   A refused connection does not count as an attempt: the daemon never saw it.

Transcripts follow the contract's portable rule: a file the daemon reads must
be a regular file under ``/tmp/signet`` (realpath) of at most 400 000 bytes,
so a small transcript is staged there (0600, in a 0700 directory we own,
created with ``O_EXCL | O_NOFOLLOW``) just before sending and removed after;
a larger one is sent inline as its most recent lines, cut so the whole
request stays under the daemon's 10 MiB body limit.

Standard library only: the hook path imports this.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._exceptions import APIStatusError, ConflictError, NotSentError

try:  # POSIX; elsewhere entries are still durable, only concurrent replay is unguarded
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "REQUEST_MAX_BYTES",
    "STAGED_MAX_BYTES",
    "STAGING_ROOT",
    "Entry",
    "Outbox",
    "TranscriptRefused",
    "TranscriptSnapshot",
    "attach_transcript",
    "fit_inline_transcript",
    "snapshot_transcript",
    "stage_file",
    "state_dir",
    "sweep_staged",
    "take_transcript",
]

#: Where daemons that check paths accept transcript files (contract §1.10).
STAGING_ROOT = Path("/tmp/signet")
#: The largest transcript file the Rust daemon and the docs accept.
STAGED_MAX_BYTES = 400_000
#: The daemon's request body limit; an inline transcript keeps the request below it.
REQUEST_MAX_BYTES = 10 * 1024 * 1024
#: Room left under the limit for headers and rounding.
_REQUEST_MARGIN = 64 * 1024
#: The most of a transcript's tail ever snapshotted for inline sending.
INLINE_TAIL_BYTES = 8 * 1024 * 1024
#: Prefix of the files this module stages, so a sweep removes only its own.
_STAGE_PREFIX = "sdk-"


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """``${XDG_STATE_HOME:-~/.local/state}/signet-sdk``: logs and the outbox live here."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME", "").strip()
    if base and os.path.isabs(base):
        return Path(base) / "signet-sdk"
    home = env.get("HOME", "").strip() or os.path.expanduser("~")
    return Path(home) / ".local" / "state" / "signet-sdk"


def _private_dir(path: Path) -> Path:
    """Create ``path`` (0700) if needed; refuse a symlink or a directory owned by another user."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(f"{path} is not a directory (a symlink or a file is in the way)")
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise OSError(f"{path} belongs to another user")
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(path, 0o700)
    return path


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _write_durably(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees all of it or no file at all."""
    tmp = path.with_name(f".tmp-{path.name}-{os.getpid()}-{os.urandom(3).hex()}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, path)


# -- transcripts ----------------------------------------------------------


class TranscriptRefused(Exception):
    """A transcript path that will not be read; the message says why."""


@dataclass(frozen=True, slots=True)
class TranscriptSnapshot:
    """The bytes taken from a transcript, and whether older lines were left out."""

    data: bytes
    source_bytes: int
    truncated: bool


def _within(path: str, roots: Sequence[str | os.PathLike[str]]) -> bool:
    for root in roots:
        real_root = os.path.realpath(root)
        if path == real_root or path.startswith(real_root.rstrip(os.sep) + os.sep):
            return True
    return False


def snapshot_transcript(
    path: str, roots: Sequence[str | os.PathLike[str]], *, tail_bytes: int = INLINE_TAIL_BYTES
) -> TranscriptSnapshot:
    """Read a harness transcript, refusing anything a hook should not read.

    The path must be absolute, resolve inside one of ``roots``, not be a
    symlink itself, and be a regular file. A file larger than
    ``STAGED_MAX_BYTES`` is read from the end only (``tail_bytes``), starting
    at a line boundary so that JSON lines stay whole.
    """
    if not os.path.isabs(path):
        raise TranscriptRefused(f"not an absolute path: {path!r}")
    real = os.path.realpath(path)
    if not roots or not _within(real, roots):
        raise TranscriptRefused(f"outside the allowed transcript roots: {path}")
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except FileNotFoundError:
        raise TranscriptRefused(f"no such file: {path}") from None
    except OSError as exc:
        raise TranscriptRefused(f"cannot open {path} (a symlink is refused): {exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise TranscriptRefused(f"not a regular file: {path}")
        size = st.st_size
        if size <= STAGED_MAX_BYTES:
            return TranscriptSnapshot(_read_exact(fd, 0, size), size, False)
        start = max(0, size - tail_bytes)
        data = _read_exact(fd, start, size - start)
        if start:
            cut = data.find(b"\n")
            data = data[cut + 1 :] if cut >= 0 else b""
        return TranscriptSnapshot(data, size, start > 0)
    finally:
        os.close(fd)


def _read_exact(fd: int, offset: int, length: int) -> bytes:
    chunks: list[bytes] = []
    while length > 0:
        chunk = os.pread(fd, min(length, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        length -= len(chunk)
    return b"".join(chunks)


def stage_file(data: bytes, tag: str, root: Path = STAGING_ROOT) -> Path:
    """Write ``data`` as a new 0600 file under the staging root and return its path.

    ``O_EXCL | O_NOFOLLOW`` means a file or symlink planted under the chosen
    name makes this fail instead of writing through it.
    """
    if len(data) > STAGED_MAX_BYTES:
        raise ValueError(f"{len(data)} bytes exceed the staging limit of {STAGED_MAX_BYTES}")
    _private_dir(root)
    safe_tag = "".join(c if c.isalnum() or c in "-_" else "_" for c in tag)[:80]
    path = root / f"{_STAGE_PREFIX}{safe_tag}-{os.urandom(4).hex()}.jsonl"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    return path


def sweep_staged(max_age: float = 3600.0, root: Path = STAGING_ROOT) -> int:
    """Remove this module's staged files older than ``max_age`` seconds (left by killed senders)."""
    removed = 0
    try:
        names = os.listdir(root)
    except OSError:
        return 0
    now = time.time()
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    for name in names:
        if not name.startswith(_STAGE_PREFIX):
            continue
        path = root / name
        try:
            st = os.lstat(path)
            if (uid is None or st.st_uid == uid) and now - st.st_mtime > max_age:
                path.unlink()
                removed += 1
        except OSError:
            continue
    return removed


def fit_inline_transcript(body: Mapping[str, Any], data: bytes) -> tuple[str, int]:
    """The newest whole lines of ``data`` that keep ``body`` plus them under the body limit.

    Returns the text and the number of bytes left out at the front.
    """
    base = len(json.dumps(dict(body), ensure_ascii=False).encode("utf-8"))
    budget = REQUEST_MAX_BYTES - _REQUEST_MARGIN - base - len(',"transcript":')
    dropped = 0
    while data:
        text = data.decode("utf-8", errors="replace")
        size = len(json.dumps(text, ensure_ascii=False).encode("utf-8"))
        if size <= budget:
            return text, dropped
        # Drop roughly the excess (escaping makes bytes and encoded size differ), then
        # move to the next line start so the transcript still parses line by line.
        excess = max(size - budget, len(data) // 16, 1)
        cut = data.find(b"\n", min(excess, len(data) - 1))
        cut = len(data) if cut < 0 else cut + 1
        dropped += cut
        data = data[cut:]
    return "", dropped


def take_transcript(
    body: Mapping[str, Any],
    roots: Sequence[str | os.PathLike[str]],
    log: Callable[[str], None],
) -> tuple[dict[str, Any], TranscriptSnapshot | None]:
    """Take ``transcriptPath`` out of ``body`` and read that file, if allowed.

    Returns the body without the path and the snapshot, or None (logged) when
    there is no path or the file may not or cannot be read: the call then goes
    without a transcript rather than not at all.
    """
    rest = dict(body)
    path = rest.pop("transcriptPath", None)
    if not isinstance(path, str) or not path:
        return rest, None
    try:
        return rest, snapshot_transcript(path, roots)
    except (TranscriptRefused, OSError) as exc:
        log(f"transcript not sent: {exc}")
        return rest, None


def attach_transcript(
    body: dict[str, Any],
    snapshot: TranscriptSnapshot,
    tag: str,
    *,
    staging_root: Path = STAGING_ROOT,
    log: Callable[[str], None] | None = None,
) -> Path | None:
    """Put a transcript into ``body`` the way both daemons accept it.

    A whole transcript within the Rust daemon's cap goes as ``transcriptPath``
    to a fresh 0600 file under the staging root (the caller removes the
    returned path once the daemon answered); anything else goes inline as the
    newest whole lines that keep the request under the body limit.
    """
    say = log or (lambda line: None)
    data = snapshot.data
    if len(data) <= STAGED_MAX_BYTES and not snapshot.truncated:
        try:
            staged = stage_file(data, tag.replace(" ", "-"), staging_root)
        except OSError as exc:
            say(f"{tag}: cannot stage under {staging_root}: {exc}")
        else:
            body["transcriptPath"] = str(staged)
            return staged
    text, dropped = fit_inline_transcript(body, data)
    left_out = dropped + snapshot.source_bytes - len(data)
    if left_out > 0:
        say(
            f"{tag}: transcript of {snapshot.source_bytes} bytes sent inline without "
            f"its oldest {left_out} bytes (request size limit)"
        )
    if text:
        body["transcript"] = text
    return None


# -- the outbox -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """One pending daemon call as stored on disk."""

    id: str
    action: str
    body: dict[str, Any]
    harness: str | None
    runtime_path: str | None
    agent_id: str | None
    created: float
    transcript: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)


#: A sender: (entry, the body to send) -> the decoded answer; raises SignetError.
Sender = Callable[[Entry, dict[str, Any]], Any]

#: Statuses that say the request itself is unacceptable: replaying cannot help.
_PERMANENT = frozenset({400, 404, 405, 409, 410, 413, 415, 422})


class Outbox:
    """A directory of pending daemon calls, replayed until the daemon takes them.

    ``log`` receives one line per noteworthy event (a kept entry, a dead one).
    """

    def __init__(
        self,
        root: Path | None = None,
        *,
        max_attempts: int = 8,
        staging_root: Path = STAGING_ROOT,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.root = root if root is not None else state_dir() / "outbox"
        self.dead = self.root / "dead"
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
        _private_dir(self.root)
        entry_id = f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(3).hex()}"
        info: dict[str, Any] | None = None
        if transcript is not None:
            name = f"{entry_id}.transcript"
            _write_durably(self.root / name, transcript.data)
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
        data = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        _write_durably(self.root / f"{entry_id}.json", data)
        _fsync_dir(self.root)
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
            return int((self.root / f"{entry_id}.attempts").read_text().strip() or 0)
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
        path = self.root / f"{entry_id}.json"
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
                entry = _entry_of(json.loads(_read_exact(fd, 0, os.fstat(fd).st_size)))
            except (ValueError, KeyError, TypeError) as exc:
                self._bury(entry_id, f"unreadable entry: {exc}")
                return "dead"
            return self._send_locked(entry, send)
        finally:
            os.close(fd)  # releases the lock

    def _send_locked(self, entry: Entry, send: Sender) -> str:
        staged: Path | None = None
        body = dict(entry.body)
        try:
            if entry.transcript is not None:
                staged = self._attach_transcript(entry, body)
            try:
                send(entry, body)
            finally:
                if staged is not None:
                    staged.unlink(missing_ok=True)
        except NotSentError:
            return "kept"  # the daemon never saw it; the caller reports what is left
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

    def _attach_transcript(self, entry: Entry, body: dict[str, Any]) -> Path | None:
        """Put the snapshotted transcript into ``body``: a staged file, else inline text."""
        assert entry.transcript is not None
        try:
            data = (self.root / entry.transcript["file"]).read_bytes()
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
        _write_durably(self.root / f"{entry.id}.attempts", str(attempts).encode())
        self._log(f"outbox {entry.id} {entry.action}: attempt {attempts} failed, kept: {exc}")
        return "failed"

    def _files(self, entry_id: str) -> Iterator[Path]:
        for suffix in (".json", ".transcript", ".attempts"):
            yield self.root / f"{entry_id}{suffix}"

    def _remove(self, entry_id: str) -> None:
        # The entry file goes first: without it, leftovers are never sent again.
        for path in self._files(entry_id):
            path.unlink(missing_ok=True)

    def _bury(self, entry_id: str, reason: str) -> None:
        """Move an entry to ``dead/`` with its reason: kept for a person, never resent."""
        _private_dir(self.dead)
        (self.dead / f"{entry_id}.reason").write_text(reason + "\n")
        for path in self._files(entry_id):
            if path.exists():
                os.replace(path, self.dead / path.name)
        self._log(f"outbox {entry_id}: moved to {self.dead}: {reason}")

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
