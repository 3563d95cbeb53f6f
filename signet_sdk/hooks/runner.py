"""Running one harness hook event as a short-lived process, failing open.

A CLI-hook harness (Claude Code, Codex, ...) starts a process per event, pipes
a JSON payload to its stdin and reads its stdout. Whatever happens to the
daemon, that process must not hang the harness, must not print a traceback
into the model's context, and must not lose a transcript. This module is the
harness-independent part; an adapter supplies its translator and a few
choices (transcript roots, which events detach, per-event deadlines).

What ``run_hook`` guarantees:

* ``SIGNET_BYPASS=1`` or ``SIGNET_NO_HOOKS=1``: exit 0 before reading stdin
  or touching the network.
* A bounded stdin read (size cap, and a time bound for a harness that keeps
  the pipe open); it returns early once a whole JSON object has arrived.
* One deadline for the whole process, from the contract's per-hook defaults
  and the ``SIGNET_*_TIMEOUT`` variables; a timer ends the process (exit 0,
  no stdout) if it is ever overrun.
* Fail open: a daemon that is down, slow, erroring or answering 409, and a
  malformed payload, all give exit 0, no stdout and one line in
  ``${XDG_STATE_HOME:-~/.local/state}/signet-sdk/hooks.log``.
* Writes (session-end, checkpoints, compaction summaries) are handed to the
  durable outbox before anything is sent, then sent inline or by a detached
  flusher, so a harness that kills its hook cannot lose them.
* Every child process gets ``SIGNET_NO_HOOKS=1``.

Standard library only, plus signet_sdk's stdlib modules: this is on the
prompt's critical path.
"""

from __future__ import annotations

import json
import os
import sys
import time

from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.errors import ConfigError

# Names below are for annotations only: a hook process does not import typing,
# collections.abc or the outbox (and pathlib with it) unless a write needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import IO, Any

    from signet_sdk.hooks.outbox import Entry, Outbox
    from signet_sdk.runtime.plugin import HarnessPlugin
    from signet_sdk.wire.config import ClientConfig
    from signet_sdk.wire.lifecycle import LifecycleCall

__all__ = [
    "STDIN_LIMIT",
    "STDIN_TIMEOUT",
    "bypassed",
    "hook_log",
    "main",
    "read_payload",
    "run_hook",
    "spawn_detached",
    "spawn_flusher",
]

#: Largest payload read from stdin; a hook payload is a few KiB, a pasted prompt more.
STDIN_LIMIT = 16 * 1024 * 1024
#: How long to wait for the payload; a harness that keeps stdin open must not hang us.
STDIN_TIMEOUT = 2.0
#: Seconds kept back from the deadline to hand unsent work to a flusher and exit.
_EXIT_MARGIN = 0.3
#: How long a detached flusher keeps retrying an unreachable daemon.
FLUSH_SECONDS = 60.0
_LOG_MAX_BYTES = 1024 * 1024


def bypassed(env: Mapping[str, str]) -> bool:
    """The documented off switches: ``SIGNET_BYPASS=1`` and the recursion guard."""
    return env.get("SIGNET_BYPASS") == "1" or env.get("SIGNET_NO_HOOKS") == "1"


def hook_log(
    message: str, *, harness: str = "-", event: str = "-", env: Mapping[str, str] | None = None
) -> None:
    """Append one line to ``hooks.log``; never raises (logging must not break a hook)."""
    try:
        from signet_sdk.hooks.outbox import state_dir

        directory = state_dir(env)
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = directory / "hooks.log"
        try:
            if path.stat().st_size > _LOG_MAX_BYTES:
                os.replace(path, directory / "hooks.log.1")
        except FileNotFoundError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        text = " ".join(message.split())[:2000]
        line = f"{stamp} {harness} {event} pid={os.getpid()} {text}\n"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8", errors="replace"))
        finally:
            os.close(fd)
    except Exception:
        pass


class StdinError(Exception):
    """The payload on stdin could not be read as one JSON object."""


def read_payload(fd: int = 0, *, limit: int = STDIN_LIMIT, timeout: float = STDIN_TIMEOUT) -> Any:
    """Read and parse the JSON payload on ``fd`` within ``timeout`` seconds.

    Stops at EOF, at ``timeout``, or as soon as the bytes so far parse as a
    complete JSON value, whichever comes first.
    """
    import select

    chunks: list[bytes] = []
    total = 0
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        try:
            ready, _, _ = select.select([fd], [], [], left)
        except (OSError, ValueError) as exc:
            raise StdinError(f"stdin is not readable: {exc}") from None
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError as exc:
            raise StdinError(f"stdin read failed: {exc}") from None
        if not chunk:
            break
        total += len(chunk)
        if total > limit:
            raise StdinError(f"payload larger than {limit} bytes")
        chunks.append(chunk)
        if chunk.rstrip().endswith((b"}", b"]")):
            try:
                return json.loads(b"".join(chunks))
            except ValueError:
                continue
    data = b"".join(chunks)
    if not data.strip():
        raise StdinError("no payload on stdin" + (" (timed out)" if left <= 0 else ""))
    try:
        return json.loads(data)
    except ValueError as exc:
        raise StdinError(f"payload is not JSON: {exc}") from None


def _child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    out = dict(os.environ if env is None else env)
    out["SIGNET_NO_HOOKS"] = "1"
    return out


def spawn_detached(argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """Start ``argv`` in its own session, detached from our stdio; returns its pid.

    A new session keeps it alive when the harness kills the hook's process
    group; /dev/null stdio and closed descriptors keep the harness from
    waiting on a pipe the child would otherwise hold open.
    """
    import subprocess

    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        start_new_session=True,
        env=_child_env(env),
    )
    # Never waited for on purpose: it outlives this process. Marking it done
    # keeps Popen's destructor from warning about a child still running.
    proc.returncode = 0
    return proc.pid


def spawn_flusher(env: Mapping[str, str] | None = None, seconds: float | None = None) -> int:
    """Start a detached ``python -m signet_sdk.hooks.runner flush`` for the outbox.

    It retries an unreachable daemon for ``seconds`` (default
    ``SIGNET_OUTBOX_FLUSH_SECONDS``, else 60) and then leaves what is left to
    the next trigger.
    """
    if seconds is None:
        raw = (os.environ if env is None else env).get("SIGNET_OUTBOX_FLUSH_SECONDS", "")
        try:
            seconds = min(max(float(raw), 0.0), 3600.0) if raw.strip() else FLUSH_SECONDS
        except ValueError:
            seconds = FLUSH_SECONDS
    argv = [sys.executable, "-m", "signet_sdk.hooks.runner", "flush", "--seconds", str(seconds)]
    return spawn_detached(argv, env)


def _sender(base: ClientConfig) -> Any:
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
        return LeanClient(config).call(entry.action, body, timeout=timeout)

    return send


class _Deadline:
    """The whole process's time budget, backed by a timer that ends the process."""

    def __init__(self, seconds: float, on_expire: Any) -> None:
        self.end = time.monotonic() + seconds
        self._armed = False
        self._previous: Any = None
        self._on_expire = on_expire
        try:
            import signal

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
            import signal

            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous or signal.SIG_DFL)
            self._armed = False

    def hold(self) -> Any:
        """Block the timer while a durable write is in progress (restored on exit)."""
        return _Blocked(self._armed)


class _Blocked:
    def __init__(self, armed: bool) -> None:
        self.armed = armed

    def __enter__(self) -> None:
        if self.armed:
            import signal

            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})

    def __exit__(self, *exc: object) -> None:
        if self.armed:
            import signal

            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})


def run_hook(
    plugin: HarnessPlugin,
    event: str | None,
    *,
    stdin_fd: int = 0,
    stdout: IO[bytes] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Run one hook event of ``plugin`` end to end and return the exit code (always 0).

    ``event`` may be None, in which case the payload's ``hook_event_name``
    names it. The event's :class:`EventSpec` picks the deadline (its timeout
    class), whether its writes only go to the outbox and a detached sender
    (``detach``) and whether queued writes are replayed (``replay``).
    """
    environ = os.environ if env is None else env
    if bypassed(environ):
        return 0
    harness = plugin.name
    name = event or "-"

    def log(message: str) -> None:
        hook_log(message, harness=harness, event=name, env=environ)

    try:
        config = resolve_config(
            harness=harness,
            runtime_path=plugin.runtime_path,  # type: ignore[arg-type]
            env=environ,
        )
    except ConfigError as exc:
        log(f"configuration error, hook skipped: {exc}")
        return 0
    # Children (flushers, anything a library spawns) must not re-enter hooks.
    os.environ["SIGNET_NO_HOOKS"] = "1"
    spec = plugin.events.get(name)
    seconds = config.timeouts.for_class(spec.timeout_class if spec else "default") or 10.0
    deadline = _Deadline(seconds, lambda: log(f"deadline of {seconds:.1f}s reached, exited"))
    out = stdout if stdout is not None else sys.stdout.buffer
    try:
        text = _run(plugin, event, config, deadline, log, environ, stdin_fd)
        deadline.disarm()
        if text:
            try:
                out.write(text.encode("utf-8"))
                out.flush()
            except OSError as exc:  # the harness closed our stdout
                log(f"could not write output: {exc}")
    except BaseException as exc:  # fail open, whatever it was
        deadline.disarm()
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            log(f"interrupted: {type(exc).__name__}")
        else:
            log(f"internal error, failed open: {type(exc).__name__}: {exc}")
    return 0


def _run(
    plugin: HarnessPlugin,
    event: str | None,
    config: ClientConfig,
    deadline: _Deadline,
    log: Any,
    env: Mapping[str, str],
    stdin_fd: int,
) -> str:
    """Read the payload, then dispatch it with a sender that keeps writes durable."""
    try:
        payload = read_payload(
            stdin_fd, timeout=min(STDIN_TIMEOUT, max(deadline.left() - 0.5, 0.1))
        )
    except Exception as exc:
        log(f"bad stdin, failed open: {exc}")
        return ""
    if not isinstance(payload, dict):
        log("bad stdin, failed open: payload is not a JSON object")
        return ""
    if event is None:
        named = payload.get("hook_event_name")
        if not isinstance(named, str) or not named:
            log("no event named on the command line or in hook_event_name")
            return ""
        event = named
    from signet_sdk.runtime.dispatch import dispatch

    spec = plugin.events.get(event)
    translator = plugin.make_translator(env)
    sender = _HookSender(plugin, config, deadline, log, env, bool(spec and spec.detach))
    if spec is not None and spec.replay:
        sender.replay_if_pending()
    run = dispatch(translator, event, payload, sender.send)
    if run.error is not None:
        reason = "payload rejected" if not run.calls else "daemon call failed"
        log(f"{reason}, failed open: {run.error}")
    return run.output.text


class _HookSender:
    """``send`` for the hook path: writes through the outbox, reads straight to the daemon."""

    def __init__(
        self,
        plugin: HarnessPlugin,
        config: ClientConfig,
        deadline: _Deadline,
        log: Any,
        env: Mapping[str, str],
        detached: bool,
    ) -> None:
        self.plugin = plugin
        self.config = config
        self.deadline = deadline
        self.log = log
        self.env = env
        self.detached = detached
        self._outbox: Outbox | None = None

    def outbox(self) -> Outbox:
        if self._outbox is None:
            from signet_sdk.hooks.outbox import Outbox, state_dir

            self._outbox = Outbox(state_dir(self.env) / "outbox", log=self.log)
        return self._outbox

    def replay_if_pending(self) -> None:
        if self.outbox().pending():
            _spawn_flusher(self.log, self.env)

    def send(self, call: LifecycleCall) -> Any:
        if call.durable:
            return self._durable(call)
        from signet_sdk.wire.lean import LeanClient

        timeout = max(self.deadline.left() - _EXIT_MARGIN, 0.05)
        return LeanClient(self.config).call(call.action, call.body, timeout=timeout)

    def _durable(self, call: LifecycleCall) -> Any:
        """Hand one write to the outbox, then send it now or leave it to a flusher."""
        from signet_sdk.runtime.transcripts import take_transcript

        roots = self.plugin.transcript_roots(self.env) or ()
        body, snapshot = take_transcript(call.body, roots, self.log)
        config, deadline = self.config, self.deadline
        with deadline.hold():
            entry = self.outbox().put(
                call.action,
                body,
                harness=config.harness,
                runtime_path=config.runtime_path,
                agent_id=config.agent_id,
                transcript=snapshot,
            )
        if self.detached:
            _spawn_flusher(self.log, self.env)
            return None
        answer: list[Any] = []
        send = _sender(config)

        def send_now(e: Entry, b: dict[str, Any]) -> Any:
            result = send(e, b, timeout=max(deadline.left() - _EXIT_MARGIN, 0.05))
            answer.append(result)
            return result

        outcome = self.outbox().deliver(entry.id, send_now)
        if outcome in ("kept", "failed", "busy"):
            _spawn_flusher(self.log, self.env)
        return answer[0] if answer else None


def _spawn_flusher(log: Any, env: Mapping[str, str]) -> None:
    try:
        spawn_flusher(env)
    except Exception as exc:
        log(f"could not start the outbox flusher (entries stay queued): {exc}")


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

    from signet_sdk.hooks.outbox import Outbox, state_dir
    from signet_sdk.runtime.transcripts import sweep_staged

    config = resolve_config(env=environ)
    sweep_staged()
    outbox = Outbox(state_dir(environ) / "outbox", log=log)
    send = _sender(config)
    counts = outbox.flush(lambda e, b: send(e, b), deadline=time.monotonic() + seconds)
    left = len(outbox.pending())
    if left:
        log(f"{left} outbox entries still queued after {seconds:.0f}s ({counts}); replayed later")
    return counts


HOOK_USAGE = """\
usage: signet-sdk hook <harness> [<event>]

Run one native hook event of <harness>: the payload is read from stdin, the
harness's output is written to stdout, and the exit code is always 0 (the
hook fails open). The event may be left out when the payload names it in
hook_event_name. A harness with no installed plugin runs the generic events
(session-start, user-prompt-submit, ...). Off switches: SIGNET_BYPASS=1,
SIGNET_NO_HOOKS=1. Problems are logged to
${XDG_STATE_HOME:-~/.local/state}/signet-sdk/hooks.log.
"""


def hook_command(args: Sequence[str]) -> int:
    """``signet-sdk hook <harness> [<event>]``: find the plugin, run the event, exit 0."""
    if bypassed(os.environ):
        return 0  # before reading stdin or loading any plugin
    if not args or args[0] in ("-h", "--help"):
        (sys.stdout if args else sys.stderr).write(HOOK_USAGE)
        return 0 if args else 2
    harness, event = args[0], (args[1] if len(args) > 1 else None)
    try:
        from signet_sdk.runtime.registry import find_plugin

        plugin = find_plugin(harness)
        if plugin is None:
            from signet_sdk.runtime.generic import generic_plugin

            plugin = generic_plugin(harness)
    except Exception as exc:
        hook_log(f"plugin failed to load, hook skipped: {exc}", harness=harness, event=event or "-")
        return 0
    return run_hook(plugin, event)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m signet_sdk.hooks.runner flush [--seconds N]``: the detached flusher."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "flush":
        sys.stderr.write("usage: python -m signet_sdk.hooks.runner flush [--seconds N]\n")
        return 2
    seconds = FLUSH_SECONDS
    if len(args) >= 3 and args[1] == "--seconds":
        try:
            seconds = float(args[2])
        except ValueError:
            sys.stderr.write(f"--seconds: not a number: {args[2]!r}\n")
            return 2
    try:
        flush(seconds)
    except Exception as exc:
        hook_log(f"flush failed: {type(exc).__name__}: {exc}", harness="outbox", event="flush")
    return 0


if __name__ == "__main__":
    sys.exit(main())
