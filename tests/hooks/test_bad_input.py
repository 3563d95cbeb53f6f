"""The hook command as a harness runs it, a real process, with garbage on its stdin.

``signet-sdk hook <harness> <event>`` for a few harnesses (two that must
always print an answer, Cursor and Gemini CLI, two that print nothing when
they have nothing to add, and a harness with no package), with the daemon
at the mock daemon or at a port nobody listens on. Its stdin gets a spoiled
payload (:mod:`bad_input_support`), invalid UTF-8, half a document, a byte
order mark, nesting 10,000 levels deep, or nothing while the pipe stays
open. What a harness relies on:

* exit code 0, nothing on stderr, and an answer well within the deadline;
* when the payload could not be read or the plugin refused it (the hook's
  log says which), exactly the plugin's neutral output on stdout;
* with no daemon to answer, the neutral output whatever the payload.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import currently_in_test_context, given, settings
from hypothesis import event as hypothesis_event
from hypothesis import strategies as st

from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.testing.hook_process import SIGNET_SDK
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.wire.config import resolve_config

from .. import bad_input_support as bad

#: Cursor and Gemini CLI read an answer on every event; Claude Code and Codex
#: read nothing as "carry on"; the last has no package (the generic events).
HARNESSES = ["cursor", "gemini", "claude-code", "codex", "unpackaged-harness"]
PLUGINS: dict[str, HarnessPlugin] = {p.name: p for p in bad.all_plugins() if p.name in HARNESSES}
#: A hook that has not exited by now is hung (the longest deadline is well under it).
HUNG_SECONDS = 30.0
#: What a process may take past its event's deadline: starting, and writing its answer.
EXIT_SLACK = 5.0


def test_the_harnesses_are_installed() -> None:
    assert sorted(PLUGINS) == sorted(HARNESSES)


@dataclass
class Ran:
    returncode: int
    stdout: bytes
    stderr: bytes
    log: list[str]
    seconds: float


class Hooks:
    """Runs the hook command in one state folder, against one daemon address."""

    def __init__(self, state: Path, home: Path, daemon_url: str, daemon_down: bool) -> None:
        self.daemon_down = daemon_down
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
        self.env.update(
            XDG_STATE_HOME=str(state),
            HOME=str(home),
            SIGNET_DAEMON_URL=daemon_url,
            SIGNET_OUTBOX_FLUSH_SECONDS="0",  # a detached sender tries once, then exits
        )
        self.log_path = state / "signet-sdk" / "hooks.log"

    def run(self, harness: str, event: str, stdin: bytes | None, keep_open: bool = False) -> Ran:
        start = time.monotonic()
        proc = subprocess.Popen(
            [SIGNET_SDK, "hook", harness, event],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
        )
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        try:
            if keep_open:  # the pipe stays open until the hook has exited
                proc.stdin.write(stdin or b"")
                proc.stdin.flush()
                proc.wait(timeout=HUNG_SECONDS)
                out, err = proc.stdout.read(), proc.stderr.read()
                proc.stdin.close()
            else:
                out, err = proc.communicate(stdin or b"", timeout=HUNG_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise AssertionError(
                f"hook {harness} {event} still running after {HUNG_SECONDS}s"
            ) from None
        seconds = time.monotonic() - start
        lines = self.log_path.read_text().splitlines() if self.log_path.exists() else []
        mine = [line for line in lines if f" pid={proc.pid} " in line]
        return Ran(proc.returncode, out, err, mine, seconds)


@pytest.fixture(scope="module")
def mock_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    mock = MockDaemon(db_path=tmp_path_factory.mktemp("hook-daemon") / "daemon.sqlite3")
    with mock.serve() as handle:
        yield handle.url
    mock.close()


def _dead_url() -> str:
    """An address nobody listens on: the port was just free, and is closed again."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module", params=["mock daemon", "dead port"])
def hooks(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, mock_url: str
) -> Hooks:
    root = tmp_path_factory.mktemp("hooks")
    (root / "home").mkdir()
    down = request.param == "dead port"
    return Hooks(root / "state", root / "home", _dead_url() if down else mock_url, down)


def _neutral(harness: str, event: str) -> bytes:
    return PLUGINS[harness].make_translator({}).neutral(event).text.encode("utf-8")


#: What the hook logs when it gave the neutral output because of its input.
REFUSED = ("bad stdin, failed open", "payload rejected, failed open")


def note(outcome: str) -> None:
    """Counted in hypothesis's statistics; outside a hypothesis test, nothing."""
    if currently_in_test_context():
        hypothesis_event(outcome)


def _deadline(harness: str, event: str) -> float:
    spec = PLUGINS[harness].events.get(event)
    timeouts = resolve_config(env={}).timeouts
    return timeouts.for_class(spec.timeout_class if spec else "default") or 10.0


def check(ran: Ran, harness: str, event: str, daemon_down: bool) -> None:
    assert ran.returncode == 0, ran
    assert ran.stderr == b"", ran.stderr[-2000:]
    assert ran.seconds < _deadline(harness, event) + EXIT_SLACK, ran
    neutral = _neutral(harness, event)
    refused = any(reason in line for line in ran.log for reason in REFUSED)
    if refused or daemon_down:
        assert ran.stdout == neutral, (ran.stdout[:500], ran.log)
    else:
        ran.stdout.decode("utf-8")  # whatever the daemon made of it, the harness can read it
    note("input refused" if refused else "daemon down" if daemon_down else "daemon answered")
    assert not any("internal error" in line for line in ran.log), ran.log


@st.composite
def stdin_bytes(draw: st.DrawFn, seed: bad.Seed) -> bytes:
    """The seed's payload spoiled, as bytes; one time in four, garbage instead."""
    if draw(st.integers(0, 3)) == 0:
        return draw(bad.garbage_bytes(), label="garbage")
    change = draw(bad.spoils(seed.payload), label="change")
    return bad.encode(bad.spoil(seed.payload, change))


@pytest.mark.parametrize("harness", HARNESSES)
@settings(settings.get_profile("bad-input-hook"))
@given(data=st.data())
def test_a_spoiled_payload_gets_the_neutral_output_or_an_answer(
    harness: str, data: st.DataObject, hooks: Hooks
) -> None:
    seed = data.draw(st.sampled_from(bad.seeds(PLUGINS[harness])), label="seed")
    stdin = data.draw(stdin_bytes(seed), label="stdin")
    ran = hooks.run(harness, seed.event, stdin)
    check(ran, harness, seed.event, hooks.daemon_down)


@pytest.mark.parametrize("raw", bad.GARBAGE, ids=[repr(g[:12]) for g in bad.GARBAGE])
def test_garbage_gets_cursors_neutral_answer(raw: bytes, hooks: Hooks) -> None:
    """Cursor reads ``{"continue":true}`` before a prompt goes on; garbage must not cost it that."""
    ran = hooks.run("cursor", "beforeSubmitPrompt", raw)
    check(ran, "cursor", "beforeSubmitPrompt", daemon_down=True)
    assert ran.stdout == b'{"continue":true}'


def test_a_harness_that_never_closes_stdin_gets_its_answer(hooks: Hooks) -> None:
    """Half a document and a pipe left open: the hook stops waiting and answers neutral."""
    for harness, event in (("cursor", "beforeSubmitPrompt"), ("gemini", "BeforeAgent")):
        ran = hooks.run(harness, event, b'{"prompt": "half a', keep_open=True)
        check(ran, harness, event, daemon_down=True)
        assert any("bad stdin" in line for line in ran.log), ran.log
