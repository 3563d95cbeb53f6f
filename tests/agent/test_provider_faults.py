"""The fault matrix over the runtime's loop: each fault, on both built-in providers.

Real wire on every side: the providers talk to the fake model servers, the
session to a daemon on a socket (the mock, a scripted one that errs or
stalls, or nothing at all). For every cell the user-visible promise holds:
the chat answers or says why, the session goes on, its end reaches the
daemon exactly once (or waits in the outbox when the daemon is gone), and
no turn the user made is lost from the transcript.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from signet_sdk import AdapterClient
from signet_sdk.agent import Agent, tool
from signet_sdk.agent.providers import (
    AnthropicProvider,
    IncompleteStreamError,
    OpenAIProvider,
)
from signet_sdk.testing.fake_anthropic import FakeAnthropic
from signet_sdk.testing.fake_openai import FakeOpenAI
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.testing.scripted import Reply, ScriptedDaemon
from signet_sdk.wire.errors import (
    APIConnectionError,
    AuthenticationError,
    InternalServerError,
)
from signet_sdk.wire.retry import RetryPolicy


@dataclass
class Model:
    """One built-in provider and the fake server it talks to."""

    name: str
    fake: Any
    make: Callable[..., Any]


@pytest.fixture(params=["anthropic", "openai"])
def model(request: pytest.FixtureRequest) -> Iterator[Model]:
    fast = RetryPolicy(max_retries=2, initial_delay=0.01, max_delay=0.05)
    if request.param == "anthropic":
        fake: Any = FakeAnthropic()

        def make() -> Any:
            return AnthropicProvider("m", api_key="k", base_url=fake.base_url, retry=fast)

    else:
        fake = FakeOpenAI()

        def make() -> Any:
            return OpenAIProvider("m", api_key="k", base_url=fake.base_url, retry=fast)

    with fake:
        yield Model(request.param, fake, make)


@pytest.fixture
def agent(model: Model, mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]) -> Agent:
    """The agent under test: the model's provider, the mock daemon, the test's own HOME."""
    return Agent(model.make(), daemon_url=mock_daemon[1], env=agent_env)


def _ends(daemon: MockDaemon) -> list[str]:
    return [r.json["sessionKey"] for r in daemon.requests_to("/api/hooks/session-end")]


def _user_lines(agent_env: dict[str, str], key: str) -> list[str]:
    """The user's turns as the session's transcript file keeps them."""
    from signet_sdk.agent.durable import SessionFiles

    files = SessionFiles(key, agent_env)
    return [t["content"] for t in files.read_transcript() if t["role"] == "user"]


def _assert_ended_once(
    daemon: MockDaemon, agent_env: dict[str, str], key: str, user_lines: list[str]
) -> None:
    """Session ``key`` ended once at the daemon, its transcript holding the user's turns."""
    assert _ends(daemon) == [key]
    assert _user_lines(agent_env, key) == user_lines


# -- provider faults ---------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_provider_401_says_why_and_the_session_goes_on(
    model: Model, mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str], stream: bool
) -> None:
    mock, url = mock_daemon
    model.fake.fail_next(401, "invalid key")
    agent = Agent(model.make(), daemon_url=url, env=agent_env, stream=stream)
    with agent.session() as chat:
        with pytest.raises(AuthenticationError) as info:
            chat.send("first")
        assert f"{model.name}:" in str(info.value) and "invalid key" in str(info.value)
        assert chat.send("second").content == "Hello from the fake model."
        key = chat.key
    _assert_ended_once(mock, agent_env, key, ["first", "second"])


def test_provider_429_is_retried_after_its_retry_after(
    model: Model, mock_daemon: tuple[MockDaemon, str], agent: Agent
) -> None:
    model.fake.fail_next(429, "slow down", retry_after=0.05)
    with agent.session() as chat:
        assert chat.send("hi").content == "Hello from the fake model."
    calls = [r for r in model.fake.requests() if r["method"] == "POST"]
    assert len(calls) == 2  # the refused one, then the one that answered
    assert len(_ends(mock_daemon[0])) == 1


def test_provider_500_past_its_retries_fails_the_turn_only(
    model: Model, mock_daemon: tuple[MockDaemon, str], agent: Agent
) -> None:
    model.fake.fail_next(500, "boom", times=3)
    with agent.session() as chat:
        with pytest.raises(InternalServerError):
            chat.send("first")
        assert chat.send("second").content == "Hello from the fake model."
    assert len(_ends(mock_daemon[0])) == 1


def test_a_stream_cut_mid_tool_call_fails_the_turn_and_is_not_retried(
    model: Model, mock_daemon: tuple[MockDaemon, str], agent: Agent
) -> None:
    mock = mock_daemon[0]
    model.fake.tool_script.append(("memory_store", {"content": "half a fact"}))
    model.fake.cut_next_stream()
    with agent.session() as chat:
        with pytest.raises(IncompleteStreamError):
            chat.send("store something")
        out = chat.send("try again")
        assert out.content == "Hello from the fake model."
    # Nothing half-made was stored; the cut answer was asked for once.
    assert mock.requests_to("/api/memory/remember") == []
    assert len(_ends(mock)) == 1
    assert issubclass(IncompleteStreamError, APIConnectionError)


# -- daemon faults -------------------------------------------------------------------


def test_a_daemon_that_is_down_never_stops_the_chat(
    model: Model, agent_env: dict[str, str], tmp_path: Path
) -> None:
    agent = Agent(model.make(), daemon_url="http://127.0.0.1:9", env=agent_env)
    with agent.session(project=str(tmp_path)) as chat:
        assert chat.notices[0].startswith("memory offline:")
        assert chat.send("hello").content == "Hello from the fake model."
        key = chat.key
    # The checkpoint and the end wait in the outbox, the transcript with them.
    outbox = Path(agent_env["XDG_STATE_HOME"], "signet-sdk", "outbox")
    entries = [json.loads(p.read_text()) for p in outbox.glob("*.json")]
    actions = sorted(e.get("action", "") for e in entries)
    assert actions == ["session_checkpoint_extract", "session_end"]
    assert all(e["body"]["sessionKey"] == key for e in entries)


def test_a_slow_daemon_costs_its_read_deadline_not_the_turn(
    model: Model, agent_env: dict[str, str]
) -> None:
    with ScriptedDaemon() as slow:
        slow.script(
            [Reply(200, {"inject": "LATE-RECALL"}, delay=3.0, path="/api/hooks/user-prompt-submit")]
        )
        agent = Agent(model.make(), daemon_url=slow.url, env=agent_env, timeout=0.5)
        with agent.session() as chat:
            out = chat.send("hello")
        assert out.content == "Hello from the fake model."
        assert any(n.startswith("memory: prompt recall skipped") for n in out.notices)
        first = model.fake.requests()[-1]["body"]
        assert "LATE-RECALL" not in json.dumps(first)


def test_a_daemon_5xx_on_reads_is_a_notice(model: Model, agent_env: dict[str, str]) -> None:
    with ScriptedDaemon() as failing:
        failing.script([Reply(500, {"error": "Hook execution failed"}), Reply(500, {})])
        agent = Agent(model.make(), daemon_url=failing.url, env=agent_env)
        with agent.session() as chat:
            out = chat.send("hello")
        assert out.content == "Hello from the fake model."
        assert chat.notices[0].startswith("memory: session start skipped")
        assert out.notices[0].startswith("memory: prompt recall skipped")


# -- tools and the user --------------------------------------------------------------


def test_a_tool_that_raises_goes_back_to_the_model_as_an_error(
    model: Model, mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    mock, url = mock_daemon

    @tool
    def deploy(service: str) -> str:
        """Deploy a service."""
        raise RuntimeError(f"{service} is frozen")

    model.fake.tool_script.append(("deploy", {"service": "billing"}))
    with Agent(model.make(), daemon_url=url, env=agent_env, tools=[deploy]).session() as chat:
        out = chat.send("deploy billing")
    assert out.tool_results[0].is_error
    assert out.tool_results[0].content == "deploy raised RuntimeError: billing is frozen"
    assert out.content == "Hello from the fake model."
    assert len(_ends(mock)) == 1


def _interrupt_soon(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_mid_stream_cancels_the_turn_and_keeps_the_session(
    model: Model, mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    mock, url = mock_daemon
    model.fake.delay = 1.0
    with Agent(model.make(), daemon_url=url, env=agent_env).session() as chat:
        timer = _interrupt_soon(0.3)
        with pytest.raises(KeyboardInterrupt):
            for _ in chat.stream("a long answer please"):
                pass
        timer.cancel()
        model.fake.delay = 0.0
        out = chat.send("shorter then")
        key = chat.key
    assert out.content == "Hello from the fake model."
    last = model.fake.requests()[-1]["body"]["messages"]
    assert "a long answer please" not in json.dumps(last)  # the cancelled turn is gone
    _assert_ended_once(mock, agent_env, key, ["a long answer please", "shorter then"])


def test_ctrl_c_mid_tool_cancels_the_turn_and_ends_the_session_once(
    model: Model, mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    mock, url = mock_daemon
    started = threading.Event()

    @tool
    def wait_for_build(build: str) -> str:
        """Wait for a build to finish."""
        started.set()
        threading.Event().wait(5)
        return "done"

    model.fake.tool_script.append(("wait_for_build", {"build": "42"}))
    agent = Agent(model.make(), daemon_url=url, env=agent_env, tools=[wait_for_build])
    with pytest.raises(KeyboardInterrupt), agent.session() as chat:
        key = chat.key
        timer = _interrupt_soon(0.5)
        try:
            chat.send("wait for build 42")
        finally:
            timer.cancel()
    assert started.is_set()
    assert _ends(mock) == [key]
    end = mock.requests_to("/api/hooks/session-end")[0].json
    assert end["reason"] == "interrupted"


def test_a_state_folder_that_cannot_be_written_sends_writes_directly(
    model: Model, mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    mock, url = mock_daemon
    state = Path(agent_env["XDG_STATE_HOME"])
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text("a file where the state folder should be")
    with Agent(model.make(), daemon_url=url, env=agent_env).session() as chat:
        assert chat.notices[0].startswith("memory: the state folder cannot be used")
        assert chat.send("hello").content == "Hello from the fake model."
        key = chat.key
    assert _ends(mock) == [key]
    with AdapterClient("check", url) as client:
        stored = client.get_session_transcript(key).content
    assert stored == "user: hello\nassistant: Hello from the fake model."
