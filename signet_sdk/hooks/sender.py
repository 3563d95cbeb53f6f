"""Sending what the outbox holds: the detached sender, and one sender at a time.

A hook hands its writes to the outbox and, when the daemon did not take
them, starts ``python -m signet_sdk.hooks.runner flush`` detached; that
sender retries an unreachable daemon for a while and leaves the rest to
the next trigger. A flock on ``outbox/.sender.lock`` keeps one sender at
work per outbox: a second exits at once, and hooks do not start one while
another runs. Standard library only.
"""

from __future__ import annotations

import os
import sys
import time

from signet_sdk.hooks.process import hook_log, spawn_detached
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.errors import ConfigError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from signet_sdk.hooks.outbox import Entry
    from signet_sdk.wire.config import ClientConfig

__all__ = ["FLUSH_SECONDS", "flush", "outbox_sender", "spawn_flusher", "tolerant_config"]

#: How long a detached flusher keeps retrying an unreachable daemon.
FLUSH_SECONDS = 60.0


def spawn_flusher(env: Mapping[str, str] | None = None, seconds: float | None = None) -> int:
    """Start a detached ``python -m signet_sdk.hooks.runner flush`` for the outbox.

    It retries an unreachable daemon for ``seconds`` (default
    ``SIGNET_OUTBOX_FLUSH_SECONDS``, else 60) and then leaves what is left to
    the next trigger.
    """
    if seconds is None:
        from signet_sdk.hooks.process import seconds_setting

        raw = (os.environ if env is None else env).get("SIGNET_OUTBOX_FLUSH_SECONDS", "")
        seconds = seconds_setting(raw, FLUSH_SECONDS)
    if _flusher_busy(env):
        return 0  # one sender at a time: the running one also takes what was just put
    argv = [sys.executable, "-m", "signet_sdk.hooks.runner", "flush", "--seconds", str(seconds)]
    return spawn_detached(argv, env)


def _flusher_lock(env: Mapping[str, str] | None) -> int | None:
    """An exclusive, non-blocking lock on the outbox's sender lock file, or None if taken."""
    from signet_sdk.runtime.files import outbox_dir

    try:
        import fcntl
    except ImportError:  # pragma: no cover - no flock: senders are not capped
        return -1
    folder = outbox_dir(env)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(os.path.join(folder, ".sender.lock"), flags, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _flusher_busy(env: Mapping[str, str] | None) -> bool:
    try:
        fd = _flusher_lock(env)
    except OSError:
        return False
    if fd is None:
        return True
    if fd >= 0:
        os.close(fd)  # releases the probe
    return False


def outbox_sender(base: ClientConfig) -> Any:
    """A sender for outbox entries: the entry's harness and runtime path, today's daemon URL."""
    from signet_sdk.wire.lean import LeanClient

    def send(entry: Entry, body: dict[str, Any], timeout: float | None = None) -> Any:
        runtime_path = entry.runtime_path if entry.runtime_path in ("plugin", "legacy") else None
        config = base.with_options(
            harness=entry.harness or base.harness,
            runtime_path=runtime_path,
            agent_id=entry.agent_id,
            no_hooks=False,
        )
        client = LeanClient(config)
        if entry.resend and entry.action == "compaction_complete":
            # A detached sender has no harness waiting: the look-up gets a write's time.
            look = timeout if timeout is not None else config.timeouts.write
            row = _stored_summary(client, entry, body, look)
            if row is not None:
                if not _stopped_before_reset(client, entry, body, row, look):
                    return {"success": True, "memoryId": None, "deduped": True}
                stopped = "answered an error" if entry.after_error else "has stopped since"
                hook_log(
                    f"outbox {entry.id} compaction_complete: its summary was stored by a "
                    f"daemon that {stopped}, and the session's transcript is still "
                    "stored: sent again so the daemon resets it (the summary is stored twice)",
                    harness=entry.harness or "-",
                    event="outbox",
                )
        answer = client.call(entry.action, body, timeout=timeout)
        if not isinstance(answer, dict):
            # Every write route answers a JSON object: anything else (an HTML page
            # from a proxy, a truncated body) is not the daemon taking the write.
            from signet_sdk.wire.errors import APIResponseValidationError

            raise APIResponseValidationError(
                f"{entry.action}: the answer is not a JSON object: {str(answer)[:80]!r}",
                method="POST",
                url=config.base_url,
                body=answer,
            )
        return answer

    return send


def _stored_summary(
    client: Any, entry: Entry, body: Mapping[str, Any], timeout: float | None
) -> Mapping[str, Any] | None:
    """The summary node of a compaction summary an earlier send may have stored, or None.

    The daemon does not de-duplicate compaction-complete, so before a repeat
    the sender looks for a ``compaction`` summary node with the same session
    key and text, listed for the agent the write was filed under. Summaries
    come newest first; the look stops at nodes made before the entry was
    written (less a minute of clock skew).
    """
    summary, key = body.get("summary"), body.get("sessionKey")
    query = {"limit": "200", "depth": "0"}
    if client.config.agent_id:
        query["agentId"] = client.config.agent_id
    if isinstance(key, str) and key.strip():
        # The daemon files the summary under the agent the key names (``agent:<id>:...``)
        # when the write gave none; the listing finds that agent the same way.
        query["sessionKey"] = key
    if isinstance(body.get("project"), str):
        query["project"] = body["project"]
    since = _iso(entry.created - 60.0)
    for page in range(25):
        query["offset"] = str(page * 200)
        listing = client.call("list_session_summaries", query=query, timeout=timeout)
        rows = listing.get("summaries") if isinstance(listing, dict) else None
        for row in rows or ():
            same_key = key is None or row.get("session_key") in (key, str(key).strip())
            same = row.get("source_type") == "compaction" and row.get("content") == summary
            if same and same_key and isinstance(row, dict):
                return row
        if not rows or len(rows) < 200 or str(rows[-1].get("created_at") or "") < since:
            return None
    return None


def _stopped_before_reset(
    client: Any,
    entry: Entry,
    body: Mapping[str, Any],
    row: Mapping[str, Any],
    timeout: float | None,
) -> bool:
    """Whether the daemon that stored this summary may have stopped before its reset.

    The daemon's compaction-complete stores the summary in one transaction
    and, in a second one after writing the summary's artifact file, deletes
    the session's stored transcript and extract cursor, so that the shorter
    transcripts sent after a compaction are kept. A daemon that stops between
    the two keeps the summary and the old transcript; since a session's end
    keeps the longer of the stored and the sent transcript, the turns after
    the compaction would then be lost. It stopped there when it answered the
    earlier send with a server error (everything after the reset is
    caught), or when the summary was stored by a daemon process that has
    stopped since (it predates the running daemon's start, from
    ``/health``'s ``uptime``); and it matters while the session still has a
    stored transcript (a daemon without the transcript route cannot say, and
    counts as having one). Sending the summary again then makes the daemon
    reset the transcript, at the price of the summary stored twice: a repeat
    is better than lost turns.
    """
    from signet_sdk.wire.errors import NotFoundError, SignetError

    key = body.get("sessionKey")
    stored_at = _epoch(row.get("created_at"))
    if not isinstance(key, str) or not key.strip() or stored_at is None:
        return False
    if not entry.after_error:
        try:
            health = client.call("health", timeout=timeout)
            started = time.time() - float(health["uptime"])
        except (SignetError, KeyError, TypeError, ValueError):
            return False  # no evidence of a restart: the summary is taken as complete
        if stored_at >= started:
            return False  # stored by the running daemon: its handler ran to the end
    try:
        client.call("get_session_transcript", path_params={"key": key}, timeout=timeout)
    except NotFoundError as exc:
        # The route's own 404 is JSON ("Transcript not found"): nothing to reset.
        # A daemon without the route answers the plain-text unknown-route 404.
        return exc.error is None
    except SignetError:
        return True  # not known: a repeat is better than lost turns
    return True


def _epoch(stamp: Any) -> float | None:
    """A daemon timestamp (``2026-04-30T12:00:00.123Z``, UTC) as epoch seconds, or None."""
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _iso(epoch: float) -> str:
    """``epoch`` as the daemon writes timestamps (``2026-04-30T12:00:00.000Z``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch)) + ".000Z"


#: Variables that say which daemon to send to: when one cannot be read, no
#: other daemon is guessed at (see :func:`tolerant_config`).
_ADDRESS = ("SIGNET_DAEMON_URL", "SIGNET_HOST", "SIGNET_PORT")


def tolerant_config(
    env: Mapping[str, str], log: Callable[[str], None], **arguments: Any
) -> tuple[ClientConfig, ConfigError | None]:
    """The hooks' configuration, with what a typo in a variable must not cost: the writes.

    A ``SIGNET_*_TIMEOUT`` that cannot be read is left out (its default
    holds) and logged. A daemon address that cannot be read is left out
    too, and returned: the caller then keeps its writes in the outbox and
    sends nothing, so they are delivered once the variable is fixed, not
    sent to a daemon the user did not name. Any other :class:`ConfigError`
    (``arguments`` are :func:`resolve_config`'s) is raised.
    """
    held: ConfigError | None = None
    while True:  # each pass leaves out a variable that is set, or raises
        try:
            return resolve_config(env=env, **arguments), held
        except ConfigError as exc:
            if exc.field not in env:
                raise
            if exc.field in _ADDRESS:
                log(f"configuration error: {exc}; writes are kept in the outbox, nothing is sent")
                held = held or exc
            elif exc.field.endswith("_TIMEOUT"):
                log(f"configuration error: {exc}; its default is used")
            else:
                raise
            env = {k: v for k, v in env.items() if k != exc.field}


def flush(seconds: float = FLUSH_SECONDS, env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Deliver the outbox now, retrying an unreachable daemon for up to ``seconds``.

    The flusher runs with ``SIGNET_NO_HOOKS=1`` in its environment (it is a
    child of a hook), but what it sends is the user's own data, so that
    variable is not turned into the daemon's ``x-signet-no-hooks`` no-op.
    """
    environ = dict(os.environ if env is None else env)
    environ.pop("SIGNET_NO_HOOKS", None)

    def log(message: str) -> None:
        hook_log(message, harness="outbox", event="flush", env=environ)

    from signet_sdk.hooks.outbox import Outbox
    from signet_sdk.runtime.transcripts import sweep_staged

    config, held = tolerant_config(environ, log)
    if held is not None:
        return {"held": 1}  # kept for the first hook or flush with an address it can read
    outbox = Outbox(env=environ, log=log)
    send = outbox_sender(config)
    if seconds != seconds:  # nan: a deadline of it is never reached
        seconds = FLUSH_SECONDS
    deadline = time.monotonic() + seconds
    counts: dict[str, int] = {}
    seen: set[str] = set()
    first = True
    while True:
        lock = _flusher_lock(environ)
        if lock is None:
            return counts or {"busy": 1}  # another sender is at work on the same outbox
        try:
            if first:
                sweep_staged()
                outbox.sweep()
                first = False
            seen.update(outbox.pending())
            # Entries put after a pass's deadline still get one attempt.
            until = max(deadline, time.monotonic() + 1.0)
            for outcome, n in outbox.flush(lambda e, b: send(e, b), deadline=until).items():
                counts[outcome] = counts.get(outcome, 0) + n
        finally:
            if lock >= 0:
                os.close(lock)
        # A hook that put a write while the lock was held started no sender of
        # its own (one at a time), trusting this one: look again now it is free.
        if not any(entry_id not in seen for entry_id in outbox.pending()):
            break
    left = len(outbox.pending())
    if left:
        log(f"{left} outbox entries still pending ({counts}); the next hook flushes them")
    return counts
