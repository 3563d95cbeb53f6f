"""How a session's writes reach the daemon: the outbox first, then one writer thread.

Checkpoints, compaction summaries and the session end are stored things; a
chat must neither wait on a slow daemon for them nor lose them to a down
one. Each write goes through the same ``Delivery`` the hooks use: put in
the durable outbox (fsynced) before anything is sent, then delivered in
order by an :class:`~signet_sdk.hooks.writer.OrderedWriter` thread; what the
daemon does not take is left to the detached outbox sender, which resends
so that the daemon recognises a repeat.

A process killed mid-session cannot send its own session end. So a session
keeps a *live record* (its key, transcript and daemon settings, and its
process id) in ``<state dir>/agent/live`` from its start to the moment its
end is in the outbox; the next session opened on this machine finds records
whose process is gone and puts their session ends in the outbox
(:func:`recover_sessions`). Exactly once either way: the record is removed
only after the end is durable, and a record is taken by renaming it first.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from signet_sdk.hooks.delivery import STILL_PENDING, Delivery
from signet_sdk.hooks.writer import OrderedWriter
from signet_sdk.runtime.files import private_dir, state_dir, write_durably
from signet_sdk.wire.config import ClientConfig
from signet_sdk.wire.lifecycle import LifecycleCall

__all__ = ["SessionFiles", "SessionKeyInUseError", "SessionWriter", "recover_sessions"]

log = logging.getLogger("signet_sdk.agent")

#: The transcripts of the sessions open in this process: one live session per key.
_OPEN: set[str] = set()
_OPEN_LOCK = threading.Lock()


class SessionKeyInUseError(ValueError):
    """A session was opened under a key another live session holds (their transcripts would mix)."""


def _safe(key: str) -> str:
    """A file name for a session key: its safe characters, then a short hash of the key."""
    import hashlib

    kept = "".join(c if c.isalnum() or c in "-_." else "_" for c in key)[:80]
    return f"{kept}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


class SessionFiles:
    """Where one session keeps its transcript and its live record, under the state directory."""

    def __init__(self, key: str, env: Mapping[str, str] | None = None) -> None:
        self.key = key
        self.root = os.path.join(state_dir(env), "agent")
        name = _safe(key)
        self.transcripts = os.path.join(self.root, "transcripts")
        self.transcript = os.path.join(self.transcripts, f"{name}.jsonl")
        self.live = os.path.join(self.root, "live", f"{name}.json")
        #: The transcript's lines this process added, kept in memory as well: a
        #: write that cannot use the outbox sends them inline.
        self.lines: list[str] = []
        #: Why the files cannot be written (a full disk, a folder that is not ours), or None.
        self.unusable: str | None = None

    def ensure(self) -> str | None:
        """Create the folders (0700, ours, no links); the reason they cannot be, or None."""
        try:
            private_dir(state_dir_of(self.root))
            private_dir(self.root)
            private_dir(self.transcripts)
            private_dir(os.path.dirname(self.live))
        except OSError as exc:
            self.unusable = str(exc)
        return self.unusable

    def claim(self, *, fresh: bool) -> None:
        """Hold the key for this session; a new session (``fresh``) starts an empty transcript.

        Checkpoints and the end send the key's whole transcript: a second live
        session on it (here, or in a running process) would mix its turns in,
        so it is refused, and a new session must not resend an earlier one's.
        Emptying loses nothing: the earlier session's writes snapshotted it into
        the outbox (a dead one's end by :func:`recover_sessions`, run first);
        a live record left (a failed recovery) keeps the file for the next try.
        """
        with _OPEN_LOCK:
            holder = self._live_holder()
            elsewhere = holder is not None and holder != os.getpid() and _alive(holder)
            if self.transcript in _OPEN or elsewhere:
                where = f"in process {holder}" if elsewhere else "in this process"
                raise SessionKeyInUseError(
                    f"key: session {self.key} is already open {where}; "
                    "end it first or choose another key"
                )
            _OPEN.add(self.transcript)
        if fresh and holder is None and self.unusable is None:
            try:
                fd = os.open(
                    self.transcript,
                    os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                    0o600,
                )
                os.close(fd)
            except OSError as exc:
                self.unusable = str(exc)

    def release(self) -> None:
        """The session has ended: its key may be opened again (resumed, or a new session)."""
        with _OPEN_LOCK:
            _OPEN.discard(self.transcript)

    def _live_holder(self) -> int | None:
        """The process id in this key's live record, or None when there is none."""
        try:
            with open(self.live, encoding="utf-8") as fh:
                return int(json.load(fh)["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def append_transcript(self, text: str) -> None:
        self.lines.append(text)
        if self.unusable is not None:
            return
        try:
            fd = os.open(
                self.transcript,
                os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0),
                0o600,
            )
            try:
                os.write(fd, text.encode("utf-8"))
            finally:
                os.close(fd)
        except OSError as exc:  # the disk filled up mid-session: memory keeps the rest
            self.unusable = str(exc)

    def inline(self, call: LifecycleCall) -> LifecycleCall:
        """``call`` with this process's transcript inline instead of the file's path."""
        body = dict(call.body)
        if body.pop("transcriptPath", None) is not None and self.lines:
            body["transcript"] = "".join(self.lines)
        return LifecycleCall(call.action, body)

    def read_transcript(self) -> list[dict[str, str]]:
        """The transcript's turns so far (a session being resumed); [] when there is none."""
        try:
            with open(self.transcript, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except OSError:
            return []
        turns = []
        for line in lines:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and isinstance(item.get("content"), str):
                turns.append({"role": str(item.get("role")), "content": item["content"]})
        return turns

    def write_live(self, record: Mapping[str, Any]) -> None:
        if self.unusable is not None:
            return
        try:
            write_durably(self.live, json.dumps(dict(record)).encode())
        except OSError as exc:
            self.unusable = str(exc)

    def drop_live(self) -> None:
        with contextlib.suppress(OSError):  # none was written, or it is gone already
            os.unlink(self.live)


def state_dir_of(agent_root: str) -> str:
    return os.path.dirname(agent_root)


def sender_env(env: Mapping[str, str], config: ClientConfig) -> dict[str, str]:
    """``env`` with the session's daemon settings, for the detached sender it may start.

    The sender is another process: it finds the daemon from its environment,
    which must name the daemon this session talks to even when the URL or
    token was given as an argument.
    """
    out = dict(env)
    out["SIGNET_DAEMON_URL"] = config.base_url
    if config.token:
        out["SIGNET_TOKEN"] = config.token
    return out


def live_record(
    config: ClientConfig, key: str, project: str | None, transcript: str
) -> dict[str, Any]:
    """What :func:`recover_sessions` needs to end a session whose process died."""
    return {
        "pid": os.getpid(),
        "sessionKey": key,
        "project": project,
        "transcriptPath": transcript,
        "baseUrl": config.base_url,
        "harness": config.harness,
        "runtimePath": config.runtime_path,
        "agentId": config.agent_id,
    }


def session_end_call(key: str, transcript: str, project: str | None, reason: str) -> LifecycleCall:
    body: dict[str, Any] = {"sessionKey": key, "transcriptPath": transcript, "reason": reason}
    if project:
        body["cwd"] = project
    return LifecycleCall("session_end", body)


#: The writer queue's mark for "store the next deferred checkpoint".
_DEFERRED = ""


class SessionWriter:
    """One session's durable writes: ``submit`` returns once the call is in the outbox.

    Only files under the session's transcript folder are read into a write.
    When that folder or the outbox cannot be written, a write is sent at
    once, with the transcript this process kept in memory inline.
    """

    def __init__(
        self,
        config: ClientConfig,
        env: Mapping[str, str],
        files: SessionFiles,
        *,
        notice: Callable[[str], None] = lambda line: None,
        detached_sender: bool = True,
    ) -> None:
        timeout = config.timeouts.for_class("default")
        self.notice = notice
        self.delivery = Delivery(
            config,
            sender_env(env, config),
            log=lambda line: log.info("signet: %s", line),
            left=lambda: timeout,
            transcript_roots=lambda: [files.transcripts],
        )
        if not detached_sender:
            # Writes that do not go through stay in the outbox for the next sender
            # this machine starts (a throwaway run, such as the parity session).
            self.delivery.spawn_sender = lambda: None  # type: ignore[method-assign]
        self.files = files
        self.pending = False
        self._lock = threading.Lock()
        self._deferred: list[LifecycleCall] = []
        self._writer = OrderedWriter(self._deliver, name="signet-agent-outbox")

    def submit(self, call: LifecycleCall) -> None:
        """Store ``call`` durably and hand it to the writer thread.

        When the outbox cannot be written (a full disk, a state folder that is
        not ours) the call is sent now, once, rather than dropped.
        """
        with self._lock:
            self._put_deferred()
            self._put(call)

    def defer(self, call: LifecycleCall) -> None:
        """Hand a checkpoint to the writer thread, which stores it, then sends it.

        A checkpoint is the one write a turn waits for; storing it (an fsync)
        on the writer thread keeps that cost off the turn. Order is kept: any
        later :meth:`submit` stores the checkpoints still waiting first. A
        process killed before the writer stored one loses only that
        checkpoint: the session's end, recovered from its live record,
        carries the whole transcript.
        """
        with self._lock:
            self._deferred.append(call)
        self._writer.submit(_DEFERRED)

    def _put_deferred(self) -> None:
        """Store the checkpoints still waiting, in order (the lock is held)."""
        while self._deferred:
            self._put(self._deferred.pop(0))

    def _put(self, call: LifecycleCall) -> None:
        if self.files.unusable is None:
            try:
                entry = self.delivery.put(call)
            except OSError as exc:
                self.files.unusable = str(exc)
            else:
                self._writer.submit(entry.id)
                return
        self.notice(f"memory: no outbox ({self.files.unusable}); {call.action} sent directly")
        try:
            self.delivery.direct(self.files.inline(call))
        except Exception as sent:
            self.notice(f"memory: {call.action} could not be sent: {sent}")

    def _deliver(self, entry_id: str) -> None:
        if entry_id == _DEFERRED:  # store the next waiting checkpoint (if submit has not)
            with self._lock:
                if self._deferred:
                    self._put(self._deferred.pop(0))
            return
        if self.delivery.deliver(entry_id) in STILL_PENDING:
            self.pending = True

    def finish(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for pending writes; what is left goes to the detached sender.

        True when every write reached the daemon.
        """
        done = self._writer.wait(seconds)
        if not done or self.pending:
            self.delivery.spawn_sender()
            return False
        return True


def recover_sessions(env: Mapping[str, str] | None = None) -> list[str]:
    """End the sessions of processes that died mid-session: their ends go to the outbox.

    Returns the keys recovered. Each live record whose process is gone is
    first renamed (so two recovering processes cannot both take it), then
    its session end is put in the outbox with the daemon settings it was
    opened with, then the record is removed; the detached sender delivers.
    """
    environ = dict(os.environ if env is None else env)
    folder = os.path.join(state_dir(environ), "agent", "live")
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    recovered = []
    for name in names:
        if not name.endswith(".json"):
            continue
        path = os.path.join(folder, name)
        try:
            with open(path, encoding="utf-8") as fh:
                record = json.load(fh)
            pid = int(record["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if pid == os.getpid() or _alive(pid):
            continue
        taken = f"{path}.taken-{os.getpid()}"
        try:
            os.rename(path, taken)
        except OSError:
            continue  # another process took it
        try:
            _end_orphan(record, environ)
        except Exception as exc:
            log.warning("signet: could not recover session %s: %s", record.get("sessionKey"), exc)
            os.replace(taken, path)  # left for the next try
            continue
        os.unlink(taken)
        recovered.append(str(record["sessionKey"]))
    return recovered


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _end_orphan(record: Mapping[str, Any], env: Mapping[str, str]) -> None:
    config = ClientConfig(
        base_url=str(record["baseUrl"]),
        harness=record.get("harness"),
        runtime_path=record.get("runtimePath"),
        agent_id=record.get("agentId"),
    )
    transcript = str(record["transcriptPath"])
    delivery = Delivery(
        config,
        sender_env(env, config),
        log=lambda line: log.info("signet: %s", line),
        transcript_roots=lambda: [os.path.dirname(transcript)],
    )
    call = session_end_call(
        str(record["sessionKey"]), transcript, record.get("project"), "process_exited"
    )
    delivery.put(call)
    delivery.spawn_sender()
