"""The end-to-end kit's own parts, each against a real process or socket on this machine.

The e2e tests that use them need a harness from npm; these need nothing, so
a broken terminal driver or a daemon that answers when it should not shows
up in every run, not only where the harnesses are installed.
"""

from __future__ import annotations

import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from signet_e2e import (
    DAEMONS,
    Terminal,
    base_env,
    daemon_of,
    down_daemon_url,
    new_project,
    on_every_daemon,
    project_parent,
    silent_daemon,
    summary_or_reply,
)

#: A one-line interactive program: a prompt, then what it read.
ECHO = "line = input('ready> '); print('got:', line.upper())"


@pytest.mark.parametrize("key_delay", [None, 0.01])
def test_the_terminal_types_a_line_and_reads_the_answer(
    tmp_path: Path, key_delay: float | None
) -> None:
    argv = [sys.executable, "-c", ECHO]
    with Terminal(argv, tmp_path, base_env(), set_size=True, key_delay=key_delay) as term:
        term.wait_for("ready>", timeout=20)
        term.type("atlas")
        term.wait_for("got: ATLAS", timeout=20)
        assert term.proc.wait(timeout=20) == 0
    with (
        pytest.raises(AssertionError, match="no 'never' on screen"),
        Terminal(argv, tmp_path, base_env()) as term,
    ):
        term.wait_for("never", timeout=0.5)


def test_a_down_daemon_refuses_and_a_silent_one_never_answers() -> None:
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(down_daemon_url() + "/health", timeout=5)
    with silent_daemon() as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            conn.settimeout(0.5)
            with pytest.raises(TimeoutError):
                conn.recv(1)


def test_summary_or_reply_reads_the_last_message_only() -> None:
    answer = summary_or_reply("Summarize now", "SUMMARY", "REPLY")
    ask = {"messages": [{"role": "user", "content": "Summarize now, please"}]}
    earlier = {"messages": [*ask["messages"], {"role": "user", "content": "next"}]}
    assert (answer(ask), answer(earlier), answer({})) == ("SUMMARY", "REPLY", "REPLY")


def test_a_new_project_is_outside_tmp_and_removed_after() -> None:
    with new_project("signet-kit-") as project:
        assert project.name == "atlas" and project.is_dir()
        assert str(project).startswith(str(Path(project_parent()).resolve()))
    assert not project.parent.exists()


def test_the_base_environment_keeps_nothing_else_of_the_shell(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SIGNET_DAEMON_URL", "http://elsewhere")
    env = base_env(EXTRA="1")
    assert set(env) <= {"PATH", "LANG", "HOME", "XDG_STATE_HOME", "EXTRA"}
    assert (env["LANG"], env["EXTRA"]) == ("C.UTF-8", "1")


@pytest.fixture
def daemon_name(request: pytest.FixtureRequest) -> str:
    return daemon_of(request)


def test_an_unmarked_test_gets_the_mock(daemon_name: str) -> None:
    assert daemon_name == "mock"


@on_every_daemon("daemon_name")
def test_a_marked_test_runs_on_every_daemon(daemon_name: str) -> None:
    assert daemon_name in DAEMONS and DAEMONS[0] == "mock" and len(DAEMONS) >= 3
