# long module: every promise of the command, each told as a user meets it (a process, a terminal)
"""``signet-sdk chat`` run as a user runs it: a child process, the mock daemon, a fake model.

The model is :class:`FakeOpenAI` on 127.0.0.1 (``--provider openai
--base-url ...``), so every request the command sent is asserted as it
arrived; the daemon is the mock on a free port, so every lifecycle call is
too. The interactive tests drive the command through a pseudo-terminal, as
a person at a terminal would: stdin and stdout are the terminal, stderr a
file.
"""

from __future__ import annotations

import io
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.agent import AgentEvent, AgentOutput, Channel, ToolCall, ToolResult
from signet_sdk.agent.terminal import TerminalChannel
from signet_sdk.testing.fake_openai import FakeOpenAI
from signet_sdk.testing.mock_daemon import MockDaemon

SIGNET_SDK = str(Path(sys.executable).parent / "signet-sdk")
HOOKS = "/api/hooks/"
#: Seconds a test waits for something the command must do before it fails (never a pass).
WAIT = 30.0

FACT = "Staging runs on pg-staging-3 since the November migration."


@pytest.fixture
def model() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def project(tmp_path: Path) -> Path:
    where = tmp_path / "project"
    where.mkdir()
    return where


@pytest.fixture
def env(agent_env: dict[str, str], mock_daemon: tuple[MockDaemon, str]) -> dict[str, str]:
    """The child's environment: its own HOME and state, the mock daemon, a key for the fake."""
    _, url = mock_daemon
    out = {k: v for k, v in agent_env.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    out.update(SIGNET_DAEMON_URL=url, OPENAI_API_KEY="x", TERM="dumb")
    return out


def _argv(model: FakeOpenAI, *args: str) -> list[str]:
    return [
        SIGNET_SDK,
        "chat",
        "--provider",
        "openai",
        "--base-url",
        model.base_url,
        "--model",
        "fake-model",
        *args,
    ]


def _run(
    argv: list[str], env: dict[str, str], cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def _hooks(daemon: MockDaemon) -> list[str]:
    """The lifecycle hooks the daemon received, in order, by their slug."""
    return [r.path.removeprefix(HOOKS) for r in daemon.requests if r.path.startswith(HOOKS)]


def _hook_bodies(daemon: MockDaemon, slug: str) -> list[Any]:
    return [r.json for r in daemon.requests if r.path == HOOKS + slug]


def _user_texts(body: dict[str, Any]) -> list[str]:
    """The text of every user message of one chat-completions request."""
    out = []
    for message in body["messages"]:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        out.append(str(content))
    return out


def _wait_for(what: str, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)


# -- one turn ------------------------------------------------------------------


def test_p_prints_exactly_the_answer_and_the_daemon_sees_the_lifecycle(
    model: FakeOpenAI, env: dict[str, str], mock_daemon: tuple[MockDaemon, str], project: Path
) -> None:
    daemon, _ = mock_daemon
    model.script_reply("Deploy with `make ship`, then watch the canary.")
    done = _run(_argv(model, "-p", "How do we deploy?"), env, project)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "Deploy with `make ship`, then watch the canary.\n"

    assert _hooks(daemon) == [
        "session-start",
        "user-prompt-submit",
        "session-checkpoint-extract",
        "session-end",
    ]
    (start,) = _hook_bodies(daemon, "session-start")
    (prompt,) = _hook_bodies(daemon, "user-prompt-submit")
    (end,) = _hook_bodies(daemon, "session-end")
    key = start["sessionKey"]
    assert start["project"] == str(project) and start["harness"] == "signet-agent"
    assert prompt["sessionKey"] == key and prompt["userMessage"] == "How do we deploy?"
    assert end["sessionKey"] == key and end["reason"] == "exit" and end["cwd"] == str(project)

    (request,) = model.chat_bodies()
    assert request["model"] == "fake-model" and request["stream"] is True
    assert _user_texts(request)[-1].endswith("How do we deploy?")
    (sent,) = [r for r in model.requests() if r["method"] == "POST"]
    assert {k.lower(): v for k, v in sent["headers"].items()}["authorization"] == "Bearer x"


def test_piped_stdin_is_the_one_prompt(
    model: FakeOpenAI, env: dict[str, str], mock_daemon: tuple[MockDaemon, str], project: Path
) -> None:
    daemon, _ = mock_daemon
    model.script_reply("It runs on pg-staging-3.")
    piped = "Where does staging run?\nIt moved last week.\n"
    done = _run(_argv(model), env, project, stdin=piped)
    assert (done.returncode, done.stdout, done.stderr) == (0, "It runs on pg-staging-3.\n", "")
    (prompt,) = _hook_bodies(daemon, "user-prompt-submit")
    assert prompt["userMessage"] == "Where does staging run?\nIt moved last week."
    (request,) = model.chat_bodies()
    assert _user_texts(request)[-1].endswith("Where does staging run?\nIt moved last week.")


def test_no_stream_asks_for_a_whole_answer(
    model: FakeOpenAI, env: dict[str, str], project: Path
) -> None:
    model.script_reply("One piece.")
    done = _run(_argv(model, "--no-stream", "-p", "hi"), env, project)
    assert (done.returncode, done.stdout, done.stderr) == (0, "One piece.\n", "")
    (request,) = model.chat_bodies()
    assert not request.get("stream")


def test_json_prints_every_event_as_a_line(
    model: FakeOpenAI, env: dict[str, str], mock_daemon: tuple[MockDaemon, str], project: Path
) -> None:
    daemon, _ = mock_daemon
    model.tool_script = [("memory_store", {"content": FACT})]
    done = _run(_argv(model, "--json", "-p", "Remember where staging runs."), env, project)
    assert (done.returncode, done.stderr) == (0, "")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["type"] for line in lines] == [
        "session",
        "tool_call",
        "tool_result",
        "text",
        "done",
        "end",
    ]
    session, call, result, text, turn, end = lines
    (start,) = _hook_bodies(daemon, "session-start")
    assert session == {
        "type": "session",
        "key": start["sessionKey"],
        "memory": True,
        "provider": "openai:fake-model",
        "project": str(project),
    }
    assert call["tool_call"]["name"] == "memory_store"
    assert call["tool_call"]["arguments"] == {"content": FACT}
    assert result["tool_result"]["name"] == "memory_store"
    assert result["tool_result"]["is_error"] is False
    assert text == {"type": "text", "text": "Hello from the fake model."}
    assert turn["output"]["content"] == "Hello from the fake model."
    assert turn["output"]["tool_calls"] == ["memory_store"] and turn["output"]["model_calls"] == 2
    assert end == {
        "type": "end",
        "key": start["sessionKey"],
        "reason": "exit",
        "turns": 1,
        "usage": {"input": 24, "output": 10, "cache_read": 0, "cache_write": 0},
    }


def test_json_with_piped_stdin_too(model: FakeOpenAI, env: dict[str, str], project: Path) -> None:
    done = _run(_argv(model, "--json"), env, project, stdin="hello")
    assert done.returncode == 0, done.stderr
    types = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    assert types == ["session", "text", "done", "end"]


def test_two_sessions_a_fact_stored_in_one_reaches_the_next(
    model: FakeOpenAI, env: dict[str, str], mock_daemon: tuple[MockDaemon, str], project: Path
) -> None:
    daemon, _ = mock_daemon
    model.tool_script = [("memory_store", {"content": FACT})]
    first = _run(_argv(model, "-p", "Remember where staging runs: pg-staging-3."), env, project)
    assert first.returncode == 0, first.stderr
    stored = daemon.requests_to("/api/memory/remember")
    assert [r.json["content"] for r in stored] == [FACT]

    before = len(model.chat_bodies())
    second = _run(_argv(model, "-p", "Where does staging run?"), env, project)
    assert second.returncode == 0, second.stderr
    opening = model.chat_bodies()[before]
    assert FACT in _user_texts(opening)[-1]
    keys = {body["sessionKey"] for body in _hook_bodies(daemon, "session-start")}
    assert len(keys) == 2  # two sessions, each ended once
    assert sorted(b["sessionKey"] for b in _hook_bodies(daemon, "session-end")) == sorted(keys)


# -- errors --------------------------------------------------------------------


def test_an_unknown_provider_is_one_usage_line(
    env: dict[str, str], mock_daemon: tuple[MockDaemon, str], project: Path
) -> None:
    daemon, _ = mock_daemon
    done = _run([SIGNET_SDK, "chat", "--provider", "nope", "-p", "hi"], env, project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "signet-sdk chat: error: argument --provider: unknown provider 'nope'; "
        "known: anthropic, openai\n"
    )
    assert daemon.requests == []


def test_a_missing_key_names_the_variable(
    env: dict[str, str], mock_daemon: tuple[MockDaemon, str], project: Path
) -> None:
    daemon, _ = mock_daemon
    bare = {k: v for k, v in env.items() if k != "OPENAI_API_KEY"}
    done = _run([SIGNET_SDK, "chat", "--provider", "anthropic", "-p", "hi"], bare, project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("signet-sdk chat: error: ANTHROPIC_API_KEY is not set")

    done = _run([SIGNET_SDK, "chat", "--provider", "openai", "-p", "hi"], bare, project)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("signet-sdk chat: error: OPENAI_API_KEY is not set")

    done = _run([SIGNET_SDK, "chat", "-p", "hi"], bare, project)  # nothing names a provider
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    for variable in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "--provider"):
        assert variable in done.stderr
    assert daemon.requests == []


def test_a_bad_flag_is_a_usage_error(env: dict[str, str], project: Path) -> None:
    done = _run([SIGNET_SDK, "chat", "--bogus"], env, project)
    assert (done.returncode, done.stdout) == (2, "")
    assert "unrecognized arguments: --bogus" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_key_is_chosen_from_the_environment(
    model: FakeOpenAI, env: dict[str, str], project: Path
) -> None:
    """No --provider: OPENAI_BASE_URL alone picks OpenAI, as a local server needs no key."""
    local = {k: v for k, v in env.items() if k != "OPENAI_API_KEY"}
    local["OPENAI_BASE_URL"] = model.base_url
    done = _run([SIGNET_SDK, "chat", "--model", "fake-model", "-p", "hi"], local, project)
    assert (done.returncode, done.stdout, done.stderr) == (0, "Hello from the fake model.\n", "")


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(lambda m: m.fail_next(401), id="401"),
        pytest.param(lambda m: m.fail_next(500, times=3), id="500-after-retries"),
        pytest.param(lambda m: (m.script_reply("cut short"), m.cut_next_stream()), id="cut"),
    ],
)
def test_a_provider_error_is_one_line_and_exit_1(
    fault: Callable[[FakeOpenAI], object],
    model: FakeOpenAI,
    env: dict[str, str],
    mock_daemon: tuple[MockDaemon, str],
    project: Path,
) -> None:
    daemon, _ = mock_daemon
    fault(model)
    done = _run(_argv(model, "-p", "hi"), env, project)
    assert (done.returncode, done.stdout) == (1, "")
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: openai: ")
    assert "Traceback" not in done.stderr
    (end,) = _hook_bodies(daemon, "session-end")
    assert end["reason"] == "error"


def test_a_401_names_the_status(model: FakeOpenAI, env: dict[str, str], project: Path) -> None:
    model.fail_next(401)
    done = _run(_argv(model, "-p", "hi"), env, project)
    assert done.stderr.endswith("-> 401: Incorrect API key provided.\n")


def test_a_daemon_that_is_down_costs_a_notice_not_the_answer(
    model: FakeOpenAI, env: dict[str, str], project: Path
) -> None:
    down = {**env, "SIGNET_DAEMON_URL": "http://127.0.0.1:9"}
    done = _run(_argv(model, "-p", "hi"), down, project)
    assert (done.returncode, done.stdout) == (0, "Hello from the fake model.\n")
    assert done.stderr.startswith("note: memory offline: ")
    assert done.stderr.count("memory offline") == 1
    assert "Traceback" not in done.stderr


def test_ctrl_c_in_one_turn_exits_130_after_ending_the_session(
    model: FakeOpenAI, env: dict[str, str], mock_daemon: tuple[MockDaemon, str], project: Path
) -> None:
    daemon, _ = mock_daemon
    model.delay = WAIT * 4  # the answer never comes in time
    child = subprocess.Popen(
        _argv(model, "-p", "a long question"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=project,
        text=True,
    )
    try:
        _wait_for("the model request", lambda: bool(model.chat_bodies()))
        _interrupt(child)
        out, err = child.communicate(timeout=WAIT)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert (child.returncode, out) == (130, "")
    assert "(turn cancelled)" in err and "Traceback" not in err
    (end,) = _hook_bodies(daemon, "session-end")
    assert end["reason"] == "interrupted"


def test_help_explains_every_option(env: dict[str, str], project: Path) -> None:
    done = _run([SIGNET_SDK, "chat", "--help"], env, project)
    assert done.returncode == 0
    for option in (
        "--prompt",
        "--json",
        "--provider",
        "--model",
        "--base-url",
        "--project",
        "--resume",
        "--mcp",
        "--allow-commands",
        "--no-stream",
        "--instructions",
    ):
        assert option in done.stdout


# -- on a terminal ---------------------------------------------------------------


def _interrupt(process: subprocess.Popen[Any]) -> None:
    """Ctrl-C, once the process waits (for a key at the prompt, or for the model's answer).

    Python acts on a signal that arrives while it waits in ``poll`` or
    ``select``; one that comes just before the wait begins is only seen when
    the wait ends. A person is never that quick; a test is, so it first
    waits for the process to wait (Linux says where, in ``wchan``).
    """
    proc = Path(f"/proc/{process.pid}")

    def waiting() -> bool:
        where = (proc / "wchan").read_text().strip()
        if where == "0":  # running, or a kernel that will not say: ask which call it is in
            return not (proc / "syscall").read_text().startswith("running")
        return "poll" in where or "select" in where

    if (proc / "wchan").exists():
        _wait_for("the process to wait", waiting)
    process.send_signal(signal.SIGINT)


class Terminal:
    """The command on a pseudo-terminal (its stdin and stdout); stderr goes to a file."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, stderr: Path) -> None:
        self.stderr_path = stderr
        master, slave = pty.openpty()
        with stderr.open("wb") as err:
            self.process = subprocess.Popen(
                argv, stdin=slave, stdout=slave, stderr=err, env=env, cwd=cwd
            )
        os.close(slave)
        self.fd = master
        self.screen = b""
        self._mark = 0

    def expect(self, text: str) -> str:
        """Read until ``text`` appears after what was expected before; the output up to it."""
        wanted = text.encode()
        deadline = time.monotonic() + WAIT
        while wanted not in self.screen[self._mark :]:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} did not appear; the screen: {self.screen!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:  # the child is gone and the terminal with it
                data = b""
            if not data:
                raise AssertionError(f"{text!r} did not appear; the screen: {self.screen!r}")
            self.screen += data
        end = self.screen.index(wanted, self._mark) + len(wanted)
        seen = self.screen[self._mark : end]
        self._mark = end
        return seen.decode()

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def prompt(self) -> None:
        self.expect("> ")

    def errors(self) -> str:
        return self.stderr_path.read_text()

    def wait(self) -> int:
        return self.process.wait(timeout=WAIT)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.fd)


@pytest.fixture
def terminal(
    model: FakeOpenAI, env: dict[str, str], project: Path, tmp_path: Path
) -> Iterator[Terminal]:
    term = Terminal(_argv(model), env, project, tmp_path / "stderr.txt")
    try:
        yield term
    finally:
        term.close()


def test_a_conversation_with_memory_commands_ended_by_ctrl_d(
    terminal: Terminal, model: FakeOpenAI, mock_daemon: tuple[MockDaemon, str]
) -> None:
    daemon, _ = mock_daemon
    terminal.prompt()
    model.script_reply("Deploy with make ship.")
    terminal.type("How do we deploy?\r")
    assert terminal.expect("Deploy with make ship.\r\n").endswith(
        "How do we deploy?\r\nDeploy with make ship.\r\n"
    )
    terminal.prompt()

    terminal.type("/remember Staging runs on pg-staging-3\r")
    terminal.expect("remembered\r\n")
    terminal.prompt()
    _wait_for("the remember", lambda: bool(daemon.requests_to(HOOKS + "remember")))
    (remembered,) = _hook_bodies(daemon, "remember")
    assert remembered["content"] == "Staging runs on pg-staging-3"
    terminal.type("/recall pg-staging-3\r")
    terminal.expect("1. Staging runs on pg-staging-3")
    terminal.prompt()

    terminal.type("/usage\r")
    terminal.expect("1 turn; tokens: 12 input, 5 output, 0 read from cache, 0 written to cache\r\n")
    terminal.prompt()

    terminal.type("/compact\r")
    terminal.expect("summary of the conversation so far:\r\nA fake summary.\r\n")
    terminal.prompt()
    terminal.type("/help\r")
    terminal.expect("/remember TEXT   store TEXT as a memory\r\n")
    terminal.prompt()
    terminal.type("/bogus\r")
    terminal.prompt()
    terminal.type("\x04")  # Ctrl-D
    assert terminal.wait() == 0

    assert _hooks(daemon) == [
        "session-start",
        "user-prompt-submit",
        "session-checkpoint-extract",
        "remember",
        "recall",
        "pre-compaction",
        "compaction-complete",
        "session-end",
    ]
    (compacted,) = _hook_bodies(daemon, "compaction-complete")
    assert compacted["summary"] == "A fake summary."
    (start,) = _hook_bodies(daemon, "session-start")
    (end,) = _hook_bodies(daemon, "session-end")
    assert end["sessionKey"] == start["sessionKey"] and end["reason"] == "exit"
    errors = terminal.errors().splitlines()
    assert errors[0].startswith(f"session {start['sessionKey']} with openai:fake-model, memory on")
    assert errors[1:] == [
        "error: unknown command /bogus; commands: /remember /recall /compact /usage /help /exit",
        f"session ended; continue it with: signet-sdk chat --resume {start['sessionKey']}",
    ]


def test_ctrl_c_cancels_a_turn_and_the_session_goes_on(
    terminal: Terminal, model: FakeOpenAI, mock_daemon: tuple[MockDaemon, str]
) -> None:
    daemon, _ = mock_daemon
    terminal.prompt()
    model.delay = WAIT * 4  # this answer never comes in time
    terminal.type("a question I regret\r")
    _wait_for("the model request", lambda: len(model.chat_bodies()) == 1)
    _interrupt(terminal.process)  # what Ctrl-C at the terminal sends
    terminal.prompt()
    assert "(turn cancelled)" in terminal.errors()

    model.delay = 0
    model.script_reply("Answered.")
    terminal.type("the real question\r")
    terminal.expect("Answered.\r\n")
    terminal.prompt()
    # The cancelled turn is not in what the model saw next.
    assert not any("regret" in text for text in _user_texts(model.chat_bodies()[-1]))

    _interrupt(terminal.process)  # Ctrl-C at the prompt ends the session
    assert terminal.wait() == 0
    assert _hooks(daemon).count("session-end") == 1
    (end,) = _hook_bodies(daemon, "session-end")
    assert end["reason"] == "exit"


def test_a_provider_error_mid_conversation_prints_one_line_and_goes_on(
    terminal: Terminal, model: FakeOpenAI, mock_daemon: tuple[MockDaemon, str]
) -> None:
    daemon, _ = mock_daemon
    terminal.prompt()
    model.fail_next(401)
    terminal.type("first try\r")
    terminal.prompt()
    model.script_reply("Second time lucky.")
    terminal.type("second try\r")
    terminal.expect("Second time lucky.\r\n")
    terminal.prompt()
    terminal.type("/exit\r")
    assert terminal.wait() == 0
    errors = [line for line in terminal.errors().splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: openai: POST {model.base_url}/chat/completions -> 401: Incorrect API key provided."
    ]
    assert "Traceback" not in terminal.errors()
    assert _hooks(daemon).count("session-end") == 1


# -- options that shape the session ----------------------------------------------


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]


def test_instructions_and_allow_commands_reach_the_request(
    model: FakeOpenAI, env: dict[str, str], project: Path
) -> None:
    done = _run(_argv(model, "--instructions", "You are terse.", "-p", "hi"), env, project)
    assert done.returncode == 0, done.stderr
    done = _run(_argv(model, "--allow-commands", "-p", "hi"), env, project)
    assert done.returncode == 0, done.stderr
    plain, allowed = model.chat_bodies()
    system = plain["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You are terse.")
    assert "memory_store" in _tool_names(plain) and "secrets_exec" not in _tool_names(plain)
    assert "secrets_exec" in _tool_names(allowed)


SHOUTER = '''\
from mcp.server.mcpserver import MCPServer

app = MCPServer("shouter")


@app.tool()
def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()


app.run()
'''


def test_mcp_server_tools_join_the_session(
    model: FakeOpenAI, env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    server = tmp_path / "shouter.py"
    server.write_text(SHOUTER)
    model.tool_script = [("shout", {"text": "quiet please"})]
    command = f"{sys.executable} {server}"
    done = _run(_argv(model, "--json", "--mcp", command, "-p", "Shout it."), env, project)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    (result,) = [line["tool_result"] for line in lines if line["type"] == "tool_result"]
    assert (result["name"], result["content"], result["is_error"]) == (
        "shout",
        "QUIET PLEASE",
        False,
    )
    first, second = model.chat_bodies()
    assert "shout" in _tool_names(first) and "memory_store" in _tool_names(first)
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_shout",
        "content": "QUIET PLEASE",
    }


def test_an_mcp_tool_name_taken_already_is_a_usage_error(
    model: FakeOpenAI, env: dict[str, str], mock_daemon: tuple[MockDaemon, str], project: Path
) -> None:
    daemon, _ = mock_daemon
    command = f"{sys.executable} -m signet_sdk mcp"  # serves the memory tools again
    done = _run(_argv(model, "--mcp", command, "-p", "hi"), env, project)
    assert (done.returncode, done.stdout) == (2, "")
    (line,) = done.stderr.splitlines()
    assert line.startswith("signet-sdk chat: error: ") and "memory_" in line
    assert model.chat_bodies() == [] and daemon.requests == []


def test_a_terminal_gets_no_control_characters_from_the_model(
    terminal: Terminal, model: FakeOpenAI
) -> None:
    terminal.prompt()
    model.script_reply("Safe \x1b]0;retitled\x07 text")
    terminal.type("hi\r")
    terminal.expect("Safe ]0;retitled text\r\n")
    terminal.prompt()
    assert b"\x1b]0;" not in terminal.screen and b"\x07" not in terminal.screen
    terminal.type("/exit\r")
    assert terminal.wait() == 0


# -- the channel on its own ------------------------------------------------------


def _channel(stdin: str = "", **options: Any) -> tuple[TerminalChannel, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    channel = TerminalChannel(stdin=io.StringIO(stdin), stdout=out, stderr=err, **options)
    return channel, out, err


def _a_turn() -> list[AgentEvent]:
    call = ToolCall("c1", "memory_search", {"query": "deploy\nsteps"})
    return [
        AgentEvent("text", "Let me look."),
        AgentEvent("tool_call", tool_call=call),
        AgentEvent("tool_result", tool_result=ToolResult("c1", "memory_search", "[]")),
        AgentEvent("notice", "memory: prompt recall skipped (timeout)"),
        AgentEvent("text", "Deploy with "),
        AgentEvent("text", "make ship."),
        AgentEvent("done", output=AgentOutput("Deploy with make ship.")),
    ]


def test_the_channel_streams_text_and_puts_the_rest_on_stderr() -> None:
    channel, out, err = _channel()
    assert isinstance(channel, Channel)
    for event in _a_turn():
        channel.send(event)
    channel.send(AgentEvent("error", "openai: 500\nupstream down"))
    channel.on_close()
    assert out.getvalue() == "Let me look.\nDeploy with make ship.\n"
    assert err.getvalue() == (
        'tool: memory_search {"query": "deploy\\nsteps"}\n'
        "note: memory: prompt recall skipped (timeout)\n"
        "error: openai: 500 upstream down\n"
    )


def test_the_channel_without_streaming_prints_only_the_final_answer() -> None:
    channel, out, _ = _channel(stream=False)
    for event in _a_turn():
        channel.send(event)
    assert out.getvalue() == "Deploy with make ship.\n"


def test_the_channel_shows_a_failed_tool_and_cuts_long_arguments() -> None:
    channel, _, err = _channel()
    channel.send(AgentEvent("tool_call", tool_call=ToolCall("c", "shout", {"text": "x" * 500})))
    failed = ToolResult("c", "shout", "shout raised OSError:\nno such file", is_error=True)
    channel.send(AgentEvent("tool_result", tool_result=failed))
    first, second = err.getvalue().splitlines()
    assert first.startswith('tool: shout {"text": "xxx') and first.endswith("...")
    assert len(first) == len("tool: shout ") + 120
    assert second == "tool: shout failed: shout raised OSError: no such file"


def test_the_channel_reads_lines_until_the_end_of_input() -> None:
    channel, out, err = _channel("first\r\nsecond\n")
    assert [channel.receive(), channel.receive(), channel.receive()] == ["first", "second", None]
    assert out.getvalue() == ""  # the prompt is not part of any answer
    assert err.getvalue() == "> > > \n"


def test_json_on_a_terminal_keeps_stdout_for_the_json_lines(
    model: FakeOpenAI, env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    term = Terminal(_argv(model, "--json"), env, project, tmp_path / "stderr.txt")
    try:
        term.expect('"type": "session"')
        _wait_for("the prompt", lambda: term.errors().endswith("> "))
        term.type("hello\r")
        term.expect('"type": "done"')
        term.type("/usage\r")
        term.expect('"type": "usage"')
        term.type("\x04")
        assert term.wait() == 0
        term.expect('"type": "end"')
    finally:
        term.close()
    lines = [line for line in term.screen.decode().splitlines() if line.startswith("{")]
    assert [json.loads(line)["type"] for line in lines] == [
        "session",
        "text",
        "done",
        "usage",
        "end",
    ]
    assert json.loads(lines[3]) == {
        "type": "usage",
        "turns": 1,
        "usage": {"input": 12, "output": 5, "cache_read": 0, "cache_write": 0},
    }


def test_resume_continues_a_session_with_its_earlier_turns(
    model: FakeOpenAI, env: dict[str, str], mock_daemon: tuple[MockDaemon, str], project: Path
) -> None:
    daemon, _ = mock_daemon
    model.script_reply("Noted: the canary goes first.")
    first = _run(_argv(model, "--json", "-p", "The canary deploys first."), env, project)
    assert first.returncode == 0, first.stderr
    key = json.loads(first.stdout.splitlines()[0])["key"]

    second = _run(_argv(model, "--resume", key, "-p", "What deploys first?"), env, project)
    assert second.returncode == 0, second.stderr
    starts = _hook_bodies(daemon, "session-start")
    assert [(s["sessionKey"], s["source"]) for s in starts] == [(key, "startup"), (key, "resume")]
    resumed = _user_texts(model.chat_bodies()[1])[-1]
    assert "user: The canary deploys first." in resumed
    assert "assistant: Noted: the canary goes first." in resumed
    assert resumed.endswith("What deploys first?")


def test_a_prompt_that_is_not_utf8_is_a_usage_error(
    model: FakeOpenAI, env: dict[str, str], mock_daemon: tuple[MockDaemon, str], project: Path
) -> None:
    daemon, _ = mock_daemon
    # The C locale decodes stdin with surrogateescape: the bad byte arrives as a lone surrogate.
    done = subprocess.run(
        _argv(model),
        input=b"bad \xff",
        capture_output=True,
        env={**env, "LC_ALL": "C", "PYTHONUTF8": "0"},
        cwd=project,
        timeout=120,
    )
    err = done.stderr.decode()
    assert (done.returncode, done.stdout) == (2, b""), err
    assert "stdin: not valid text" in err and "Traceback" not in err
    assert model.chat_bodies() == [] and _hook_bodies(daemon, "user-prompt-submit") == []
