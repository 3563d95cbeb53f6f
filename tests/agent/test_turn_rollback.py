"""What a failed, cancelled or half-finished turn may cost: the turn, never the session's memory.

The one-time context (a resumed session's earlier turns, a summary that kept
no turns) reaches the model once, in the next *answered* turn; a turn that
is answered stays answered, whatever fails after its answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from signet_sdk import AdapterClient
from signet_sdk.agent import Agent, Compaction
from signet_sdk.agent.context import FENCE_TAG
from signet_sdk.agent.providers import OpenAIProvider
from signet_sdk.agent.types import CompletionResult, Usage
from signet_sdk.testing.fake_openai import FakeOpenAI
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.testing.providers import ScriptedProvider
from signet_sdk.wire.errors import InternalServerError, RateLimitError
from signet_sdk.wire.retry import RetryPolicy


def _server_error() -> InternalServerError:
    return InternalServerError(
        "scripted: 500", method="POST", url="x", status_code=500, body=None, headers={}
    )


def _agent(provider: Any, url: str, env: dict[str, str], **kw: Any) -> Agent:
    return Agent(provider, daemon_url=url, env=env, instructions="x", research=(), **kw)


def _last_user(body: dict[str, Any]) -> str:
    """The text of the last user message of a chat-completion request body."""
    message = [m for m in body["messages"] if m["role"] == "user"][-1]
    content = message["content"]
    return content if isinstance(content, str) else json.dumps(content)


def test_a_resumed_session_keeps_its_earlier_turns_past_a_failed_first_turn(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    _, url = mock_daemon
    fast = RetryPolicy(max_retries=2, initial_delay=0.01, max_delay=0.05)
    with FakeOpenAI() as fake:
        agent = _agent(
            OpenAIProvider("m", api_key="k", base_url=fake.base_url, retry=fast), url, agent_env
        )
        with agent.session(key="pelican") as chat:
            chat.send("the secret word is PELICAN")
        chat = agent.session(resume="pelican")
        fake.fail_next(429, retry_after=0, times=3)
        with pytest.raises(RateLimitError):
            chat.send("what was the secret word? (fails)")
        chat.send("what was the secret word?")
        chat.end()
        asked = fake.chat_bodies()[-1]
    last = _last_user(asked)
    assert f'<{FENCE_TAG} kind="summary">' in last and "Earlier in this session" in last
    assert "the secret word is PELICAN" in last and last.endswith("what was the secret word?")
    # The failed turn is not in what the model saw.
    assert "(fails)" not in json.dumps(asked["messages"])


def test_a_summary_that_kept_no_turns_survives_a_failed_turn(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    _, url = mock_daemon
    summary = "The secret word is HERON."
    model = ScriptedProvider(["noted", summary, _server_error(), "HERON"])
    agent = _agent(model, url, agent_env, compaction=Compaction(at_tokens=None, keep_turns=0))
    with agent.session() as chat:
        chat.send("the secret word is HERON")
        assert chat.compact() == summary
        with pytest.raises(InternalServerError):
            chat.send("this one fails")
        chat.send("what was the secret word?")
    asked = model.requests[-1].messages
    assert len(asked) == 1
    assert asked[0].text.startswith(f'<{FENCE_TAG} kind="summary">') and summary in asked[0].text
    assert asked[0].text.endswith("what was the secret word?")


def test_a_stream_left_mid_answer_leaves_the_earlier_turns_for_the_next(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    _, url = mock_daemon
    model = ScriptedProvider(["The answer is 42.", "a long answer", "It was 42."])
    agent = _agent(model, url, agent_env)
    with agent.session() as chat:
        chat.send("What is the answer?")
        key = chat.key
    with agent.session(resume=key) as chat:
        for event in chat.stream("tell me a story"):
            if event.type == "text":
                break  # the user stops reading: the turn is cancelled
        chat.send("Say it again.")
    resumed = model.requests[-1].messages
    assert len(resumed) == 1
    assert "The answer is 42." in resumed[0].text and resumed[0].text.endswith("Say it again.")


def test_a_failed_automatic_summary_costs_a_notice_not_the_answered_turn(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    daemon, url = mock_daemon
    big = CompletionResult("a2", (), "end_turn", Usage(200, 5))
    bigger = CompletionResult("a3", (), "end_turn", Usage(300, 5))
    summary = "t1 to t3 were small talk."
    model = ScriptedProvider(["a1", big, _server_error(), bigger, summary, "a4"])
    agent = _agent(model, url, agent_env, compaction=Compaction(at_tokens=100, keep_turns=1))
    with agent.session() as chat:
        chat.send("t1")
        events = list(chat.stream("t2"))
        chat.send("t3")
        chat.send("t4")
        key = chat.key
    done = [e.output for e in events if e.type == "done"]
    assert done and done[0] is not None and done[0].content == "a2"
    notices = [e.text for e in events if e.type == "notice"]
    assert any(n.startswith("compaction skipped: the summary failed") for n in notices), notices
    # The answered turn stayed in what the model saw next.
    after_failure = [m.text.rsplit("\n\n", 1)[-1] for m in model.requests[3].messages]
    assert after_failure == ["t1", "a1", "t2", "a2", "t3"]
    # Compaction was tried again past the threshold, and it went through that time.
    complete = daemon.requests_to("/api/hooks/compaction-complete")
    assert [r.json["summary"] for r in complete] == [summary]
    last = model.requests[-1].messages
    assert summary in last[0].text and last[-1].text.endswith("t4")
    with AdapterClient("check", url) as client:
        sent = client.get_session_transcript(key).content
    assert sent == "\n".join(
        f"{who}: {text}"
        for pair in (("t1", "a1"), ("t2", "a2"), ("t3", "a3"), ("t4", "a4"))
        for who, text in zip(("user", "assistant"), pair, strict=True)
    )


@pytest.mark.anyio
async def test_a_failed_automatic_summary_is_a_notice_in_the_async_session_too(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    _, url = mock_daemon
    big = CompletionResult("a1", (), "end_turn", Usage(200, 5))
    model = ScriptedProvider([big, _server_error(), "a2"])
    agent = _agent(model, url, agent_env, compaction=Compaction(at_tokens=100, keep_turns=1))
    async with agent.async_session() as chat:
        out = await chat.send("t1")
        await chat.send("t2")
    assert out.content == "a1"
    assert any(n.startswith("compaction skipped: the summary failed") for n in out.notices)
    assert [m.text.rsplit("\n\n", 1)[-1] for m in model.requests[2].messages] == [
        "t1",
        "a1",
        "t2",
    ]


def test_a_compaction_summary_is_not_shown_as_the_answer(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    _, url = mock_daemon
    big = CompletionResult("a1", (), "end_turn", Usage(200, 5))
    model = ScriptedProvider([big, "THE SUMMARY"])
    agent = _agent(model, url, agent_env, compaction=Compaction(at_tokens=100, keep_turns=1))
    with agent.session() as chat:
        events = list(chat.stream("t1"))
    assert "".join(e.text for e in events if e.type == "text") == "a1"
    assert [e.text for e in events if e.type == "compacted"] == ["THE SUMMARY"]


def test_a_new_session_under_a_used_key_sends_only_its_own_turns(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    _, url = mock_daemon
    model = ScriptedProvider(["first answer", "second answer", "third answer"])
    agent = _agent(model, url, agent_env)
    with agent.session(key="reused") as chat:
        chat.send("first question")
    with AdapterClient("check", url) as client:
        assert client.get_session_transcript("reused").content == (
            "user: first question\nassistant: first answer"
        )
    with agent.session(key="reused") as chat:
        chat.send("second question")
    with AdapterClient("check", url) as client:
        sent = client.get_session_transcript("reused").content
    assert sent == "user: second question\nassistant: second answer"
    # A resume continues the latest session under the key, with its turns only.
    with agent.session(resume="reused") as chat:
        chat.send("third question")
    assert "first question" not in model.requests[-1].messages[0].text
    assert "second answer" in model.requests[-1].messages[0].text


def test_a_second_live_session_on_one_key_is_refused(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    daemon, url = mock_daemon
    model = ScriptedProvider(["one", "two"])
    agent = _agent(model, url, agent_env)
    with agent.session(key="shared") as chat:
        for other in ({"key": "shared"}, {"resume": "shared"}):
            with pytest.raises(ValueError, match="key: session shared is already open"):
                agent.session(**other)
        chat.send("mine")
    with agent.session(key="shared") as chat:  # free again once ended
        chat.send("next")
    ends = daemon.requests_to("/api/hooks/session-end")
    assert [r.json["sessionKey"] for r in ends] == ["shared", "shared"]


def test_a_session_that_fails_to_open_leaves_its_key_free(
    mock_daemon: tuple[MockDaemon, str],
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from signet_sdk.agent import agent as agent_module

    _, url = mock_daemon
    agent = _agent(ScriptedProvider(["fine"]), url, agent_env)
    real = agent_module.SessionWriter

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(agent_module, "SessionWriter", failing)
    with pytest.raises(OSError, match="No space left"):
        agent.session(key="retried")
    monkeypatch.setattr(agent_module, "SessionWriter", real)
    with agent.session(key="retried") as chat:  # not "already open"
        assert chat.send("hello").content == "fine"


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_a_session_begun_while_the_daemon_was_down_is_opened_when_it_answers(
    agent_env: dict[str, str],
) -> None:
    port = _free_port()
    model = ScriptedProvider(["first", "second"])
    agent = _agent(model, f"http://127.0.0.1:{port}", agent_env)
    agent.detached_sender = False
    chat = agent.session(project="/repo", key="late")
    assert not chat.memory_online
    daemon = MockDaemon()
    with daemon.serve(port=port):
        chat.send("hello")
        assert chat.memory_online
        chat.send("again")
        chat.end()
    hooks = [r.path.removeprefix("/api/hooks/") for r in daemon.requests]
    assert hooks[:2] == ["user-prompt-submit", "session-start"]
    starts = daemon.requests_to("/api/hooks/session-start")
    assert [r.json["source"] for r in starts] == ["startup"]
    assert starts[0].json["sessionKey"] == "late" and starts[0].json["project"] == "/repo"
    daemon.close()


def test_a_prompt_with_a_lone_surrogate_is_refused_by_name(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    daemon, url = mock_daemon
    model = ScriptedProvider(["fine"])
    with _agent(model, url, agent_env).session() as chat:
        with pytest.raises(ValueError, match="text: not valid text"):
            chat.send("bad \ud800")
        assert chat.send("good").content == "fine"
    prompts = daemon.requests_to("/api/hooks/user-prompt-submit")
    assert [r.json["userMessage"] for r in prompts] == ["good"]
