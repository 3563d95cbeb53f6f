"""Running one harness hook event as a short-lived process, failing open.

A CLI-hook harness (Claude Code, Codex, ...) starts a process per event, pipes
a JSON payload to its stdin and reads its stdout. Whatever happens to the
daemon, that process must not hang the harness, must not print a traceback
into the model's context, and must not lose a transcript. This module is the
harness-independent part; an adapter supplies its translator and a few
choices (transcript roots, which events detach, per-event deadlines).

What ``run_hook`` guarantees:

* ``SIGNET_BYPASS=1`` or ``SIGNET_NO_HOOKS=1``: exit 0 before reading stdin
  or touching the network, with the plugin's neutral output (as on every
  fail-open path: a harness that needs an answer, such as Cursor's
  ``{"continue": true}``, always gets one).
* A variable that cannot be read costs no write: a bad ``SIGNET_*_TIMEOUT``
  falls back to its default; a bad daemon address keeps the writes in the
  outbox for the first hook after it is fixed.
* A bounded stdin read (size cap, and a time bound for a harness that keeps
  the pipe open); it returns early once a whole JSON object has arrived.
* One deadline for the whole process, from the contract's per-hook defaults
  and the ``SIGNET_*_TIMEOUT`` variables, counted from when the harness
  started the process (Python's start-up is part of it); a timer ends the
  process (exit 0, no stdout) if it is ever overrun.
* Fail open: a daemon that is down, slow, erroring or answering 409, and a
  malformed payload, all give exit 0, the neutral output and one line in
  ``${XDG_STATE_HOME:-~/.local/state}/signet-sdk/hooks.log``.
* Writes (session-end, checkpoints, compaction summaries) are handed to the
  durable outbox before anything is sent, then sent inline or by a detached
  flusher, so a harness that kills its hook cannot lose them.
* Every child process gets ``SIGNET_NO_HOOKS=1``.
* ``event_id`` (``--event-id``): the id a shim's transport gave the event
  before the adapter server it sent it to went away. The event's writes are
  stored under ids made from it, so what that server already stored or
  delivered is found or recognised, not stored twice
  (:class:`~signet_sdk.hooks.entry.EventWrites`).
* A state directory that cannot be written (read-only, full, a file in the
  way) costs no write: each is sent directly, and ``hooks.log`` says so once
  where it can be written.

Standard library only, plus signet_sdk's stdlib modules: this is on the
prompt's critical path.
"""

from __future__ import annotations

import os
import sys

from signet_sdk.hooks.deadline import Deadline, process_age
from signet_sdk.hooks.process import (
    STDIN_LIMIT,
    STDIN_TIMEOUT,
    StdinError,
    bypassed,
    hook_log,
    read_payload,
    spawn_detached,
)
from signet_sdk.hooks.sender import (
    FLUSH_SECONDS,
    flush,
    outbox_sender,
    spawn_flusher,
    tolerant_config,
)
from signet_sdk.wire.errors import ConfigError

# Names below are for annotations only: a hook process does not import typing,
# collections.abc or the outbox (and pathlib with it) unless a write needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import IO, Any

    from signet_sdk.hooks.entry import EventWrites
    from signet_sdk.runtime.plugin import HarnessPlugin
    from signet_sdk.wire.config import ClientConfig

__all__ = [
    "FLUSH_SECONDS",
    "STDIN_LIMIT",
    "STDIN_TIMEOUT",
    "StdinError",
    "bypassed",
    "flush",
    "hook_command",
    "hook_log",
    "main",
    "outbox_sender",
    "read_payload",
    "run_hook",
    "spawn_detached",
    "spawn_flusher",
]

#: Seconds kept back from the deadline to hand unsent work to a sender and exit.
_EXIT_MARGIN = 0.3


def run_hook(
    plugin: HarnessPlugin,
    event: str | None,
    *,
    stdin_fd: int = 0,
    stdout: IO[bytes] | None = None,
    env: Mapping[str, str] | None = None,
    event_id: str | None = None,
    spent: float = 0.0,
) -> int:
    """Run one hook event of ``plugin`` end to end and return the exit code (always 0).

    ``event`` may be None, in which case the payload's ``hook_event_name``
    names it. The event's :class:`EventSpec` picks the deadline (its timeout
    class), whether its writes only go to the outbox and a detached sender
    (``detach``) and whether pending writes are flushed (``flushes``).
    ``event_id`` is the event's id from a transport whose adapter server went
    away mid-event; one that is not an event id is logged and left out.
    ``spent`` is the part of the deadline gone before the call: the hook
    command passes the process's age, since the harness's clock started
    when it started the process.
    """
    environ = os.environ if env is None else env
    # A harness may start the hook with stdout closed (None): then the output has nowhere to go.
    out = stdout if stdout is not None else getattr(sys.stdout, "buffer", None)
    harness = plugin.name
    name = event or "-"

    def log(message: str) -> None:
        hook_log(message, harness=harness, event=name, env=environ)

    if bypassed(environ):
        _answer(out, _neutral(plugin, event, environ), log)
        return 0
    try:
        config, held = tolerant_config(
            environ,
            log,
            harness=harness,
            runtime_path=plugin.runtime_path,
        )
    except ConfigError as exc:
        log(f"configuration error, hook skipped: {exc}")
        _answer(out, _neutral(plugin, event, environ), log)
        return 0
    # Children (flushers, anything a library spawns) must not re-enter hooks.
    os.environ["SIGNET_NO_HOOKS"] = "1"
    spec = plugin.events.get(name)
    seconds = config.timeouts.for_class(spec.timeout_class if spec else "default") or 10.0
    deadline = Deadline(
        seconds,
        lambda: log(f"deadline of {seconds:.1f}s reached ({spent:.1f}s of it starting), exited"),
        spent,
    )
    writes = None
    if event_id is not None:
        from signet_sdk.hooks.entry import EventWrites, valid_event_id

        if valid_event_id(event_id):
            writes = EventWrites(event_id, repeat=True)
        else:
            log(f"--event-id {event_id[:100]!r} is not an event id: the event runs without it")
    try:
        text = _run(plugin, event, config, deadline, log, environ, stdin_fd, writes, held)
        deadline.disarm()
        _answer(out, text, log)
    except BaseException as exc:  # fail open, whatever it was
        deadline.disarm()
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            log(f"interrupted: {type(exc).__name__}")
        else:
            log(f"internal error, failed open: {type(exc).__name__}: {exc}")
            _answer(out, _neutral(plugin, event, environ), log)
    return 0


def _answer(out: IO[bytes] | None, text: str, log: Any) -> None:
    """Write the harness's output (nothing when ``text`` is empty or there is no stdout)."""
    if not text or out is None:
        return
    try:
        out.write(text.encode("utf-8"))
        out.flush()
    except OSError as exc:  # the harness closed our stdout
        log(f"could not write output: {exc}")


def _run(
    plugin: HarnessPlugin,
    event: str | None,
    config: ClientConfig,
    deadline: Deadline,
    log: Any,
    env: Mapping[str, str],
    stdin_fd: int,
    writes: EventWrites | None = None,
    held: ConfigError | None = None,
) -> str:
    """Read the payload, then dispatch it with a sender that keeps writes durable."""
    try:
        payload = read_payload(
            stdin_fd, timeout=min(STDIN_TIMEOUT, max(deadline.left() - 0.5, 0.1))
        )
    except Exception as exc:
        log(f"bad stdin, failed open: {exc}")
        return _neutral(plugin, event, env)
    if not isinstance(payload, dict):
        log("bad stdin, failed open: payload is not a JSON object")
        return _neutral(plugin, event, env)
    if event is None:
        named = payload.get("hook_event_name")
        if not isinstance(named, str) or not named:
            log("no event named on the command line or in hook_event_name")
            return ""
        event = named
    from signet_sdk.hooks.delivery import Delivery
    from signet_sdk.runtime.dispatch import dispatch
    from signet_sdk.wire.errors import BreakerOpenError

    spec = plugin.events.get(event)
    translator = plugin.make_translator(env)
    delivery = Delivery(
        config,
        env,
        log=log,
        left=lambda: max(deadline.left() - _EXIT_MARGIN, 0.05),
        transcript_roots=lambda: plugin.transcript_roots(env),
        hold=deadline.hold,
        event=writes,
        held=held,
    )
    detached = bool(spec and spec.detach)
    if spec is not None and spec.flushes and held is None:
        delivery.flush_if_pending()
    run = dispatch(translator, event, payload, lambda call: delivery.send(call, detached=detached))
    if run.error is not None and not isinstance(run.error, BreakerOpenError):
        # (A call the open breaker skipped is not logged: its opening was, once.)
        reason = "payload rejected" if not run.calls else "daemon call failed"
        log(f"{reason}, failed open: {run.error}")
    if run.error is not None and run.calls and env.get("SIGNET_DEGRADED_NOTICE") == "1":
        from signet_sdk.runtime.dispatch import degraded_notice

        return str(degraded_notice(translator, event, payload, run).text)
    return run.output.text


def _neutral(plugin: HarnessPlugin, event: str | None, env: Mapping[str, str]) -> str:
    """The plugin's fail-open output for ``event``: some harnesses need one (Cursor's
    ``{"continue":true}``) even when the payload could not be read; nothing for no event."""
    if event is None:
        return ""
    try:
        return str(plugin.make_translator(env).neutral(event).text)
    except Exception:
        return ""


HOOK_USAGE = """\
usage: signet-sdk hook <harness> [<event>] [--event-id ID]

Run one native hook event of <harness>: the payload is read from stdin, the
harness's output is written to stdout, and the exit code is always 0 (the
hook fails open). The event may be left out when the payload names it in
hook_event_name. --event-id is for shims: the id the event was sent to an
adapter server with, before that server went away (its writes are then not
stored twice). A harness with no installed plugin runs the generic events
(session-start, user-prompt-submit, ...). Off switches: SIGNET_BYPASS=1,
SIGNET_NO_HOOKS=1. Problems are logged to
${XDG_STATE_HOME:-~/.local/state}/signet-sdk/hooks.log.
"""


def hook_command(args: Sequence[str]) -> int:
    """``signet-sdk hook <harness> [<event>]``: find the plugin, run the event, exit 0."""
    if not args or args[0] in ("-h", "--help"):
        (sys.stdout if args else sys.stderr).write(HOOK_USAGE)
        return 0 if args else 2
    words, event_id = _event_id_option(args)
    if not words:
        sys.stderr.write(HOOK_USAGE)
        return 2
    harness, event = words[0], (words[1] if len(words) > 1 else None)
    try:
        from signet_sdk.runtime.registry import find_plugin

        plugin = find_plugin(harness)
        if plugin is None:
            from signet_sdk.runtime.generic import generic_plugin

            plugin = generic_plugin(harness)
    except Exception as exc:
        hook_log(f"plugin failed to load, hook skipped: {exc}", harness=harness, event=event or "-")
        return 0
    # Off (SIGNET_BYPASS, SIGNET_NO_HOOKS) too, the harness gets the plugin's
    # neutral answer: some need one (Cursor's {"continue": true}).
    return run_hook(plugin, event, event_id=event_id, spent=process_age())


def _event_id_option(args: Sequence[str]) -> tuple[list[str], str | None]:
    """``args`` without ``--event-id ID`` (or ``--event-id=ID``), and that ID."""
    words: list[str] = []
    event_id = None
    rest = iter(args)
    for word in rest:
        if word == "--event-id":
            event_id = next(rest, "")
        elif word.startswith("--event-id="):
            event_id = word.partition("=")[2]
        else:
            words.append(word)
    return words, event_id


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
            seconds = float("nan")
        if seconds != seconds:
            sys.stderr.write(f"--seconds: not a number: {args[2]!r}\n")
            return 2
    try:
        flush(seconds)
    except Exception as exc:
        hook_log(f"flush failed: {type(exc).__name__}: {exc}", harness="outbox", event="flush")
    return 0


if __name__ == "__main__":
    sys.exit(main())
