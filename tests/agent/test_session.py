"""The session loop on the mock daemon: which daemon calls a session makes, and what the model sees.

The model is a :class:`ScriptedProvider`, so every request it received is
asserted as it was built; the daemon is the mock on a real socket, so every
call is asserted as it arrived.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from signet_sdk import AdapterClient
from signet_sdk.agent import Agent, Compaction, Limits, Message
from signet_sdk.agent.context import FENCE_TAG
from signet_sdk.agent.types import CompletionResult, ToolCall, Usage
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.testing.providers import ScriptedProvider, tool_use
from signet_sdk.wire.errors import AuthenticationError

HOOKS = "/api/hooks/"


def _calls(daemon: MockDaemon) -> list[str]:
    """The daemon calls made, in order, as ``METHOD path`` (hook routes by their slug)."""
    out = []
    for r in daemon.requests:
        path = r.path.removeprefix(HOOKS) if r.path.startswith(HOOKS) else r.path
        out.append(path if r.path.startswith(HOOKS) else f"{r.method} {path}")
    return out


WRITES = {"session-checkpoint-extract", "compaction-complete", "session-end", "remember"}


def _reads(calls: list[str]) -> list[str]:
    return [c for c in calls if c not in WRITES and not c.startswith("POST /api/memory/")]


def _writes(calls: list[str]) -> list[str]:
    return [c for c in calls if c in WRITES]


def _without_ids(requests: list[Any]) -> str:
    text = repr([(r.messages, r.options) for r in requests])
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", text)


def _agent(provider: Any, url: str, env: dict[str, str], **kw: Any) -> Agent:
    return Agent(provider, daemon_url=url, env=env, instructions="You are terse.", **kw)


def test_one_turn_makes_the_lifecycle_calls_in_order(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str], tmp_path: Path
) -> None:
    daemon, url = mock_daemon
    model = ScriptedProvider(["Deploy with make ship."])
    with _agent(model, url, agent_env, research=()).session(project=str(tmp_path)) as chat:
        out = chat.send("How do we deploy?")
        key = chat.key
    assert out.content == "Deploy with make ship."
    assert out.stop_reason == "end_turn" and out.model_calls == 1
    assert _calls(daemon) == [
        "GET /health",
        "session-start",
        "user-prompt-submit",
        "session-checkpoint-extract",
        "session-end",
    ]
    start, prompt, checkpoint, end = (r.json for r in daemon.requests[1:])
    assert start == {
        "harness": "signet-agent",
        "runtimePath": "plugin",
        "sessionKey": key,
        "project": str(tmp_path),
        "source": "startup",
    }
    assert prompt["userMessage"] == prompt["userPrompt"] == "How do we deploy?"
    assert prompt["sessionKey"] == key and "lastAssistantMessage" not in prompt
    assert checkpoint["sessionKey"] == key
    assert end["sessionKey"] == key and end["reason"] == "exit" and end["cwd"] == str(tmp_path)
    # The transcript reached the daemon with the turn, without fences.
    with AdapterClient("check", url) as client:
        sent = client.get_session_transcript(key).content
    # The daemon reduced the JSONL transcript to its turns: no fences, no context.
    assert sent == "user: How do we deploy?\nassistant: Deploy with make ship."


def test_two_sessions_a_fact_stored_in_one_reaches_the_next(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str], tmp_path: Path
) -> None:
    daemon, url = mock_daemon
    fact = "Staging runs on pg-staging-3 since the November migration."
    model = ScriptedProvider([tool_use(("memory_store", {"content": fact})), "Noted."])
    agent = _agent(model, url, agent_env)
    with agent.session(project=str(tmp_path)) as chat:
        out = chat.send("Remember where staging runs: pg-staging-3.")
    assert [c.name for c in out.tool_calls] == ["memory_store"]
    assert not out.tool_results[0].is_error, out.tool_results[0].content
    stored = daemon.requests_to("/api/memory/remember")
    assert stored and stored[0].json["content"] == fact

    model.requests.clear()
    with agent.session(project=str(tmp_path)) as chat:
        chat.send("Where does staging run?")
    first = model.requests[0].messages
    assert fact in first[-1].text  # the next session's first request carries it


def test_each_request_extends_the_one_before(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    _, url = mock_daemon
    model = ScriptedProvider(
        [tool_use(("memory_search", {"query": "deploy"})), "first", "second", "third"]
    )
    with _agent(model, url, agent_env).session() as chat:
        for text in ("one", "two", "three"):
            chat.send(text)
    requests = model.requests
    assert len(requests) == 4
    for before, after in itertools.pairwise(requests):
        assert after.options.system == before.options.system
        assert after.options.tools == before.options.tools
        assert after.messages[: len(before.messages)] == before.messages
    assert [t.name for t in requests[0].options.tools] == sorted(
        t.name for t in requests[0].options.tools
    )


def test_sync_and_async_sessions_send_the_same_requests_and_daemon_calls(
    agent_env: dict[str, str],
) -> None:
    def story(run: Any) -> tuple[list[Any], list[str], list[Any]]:
        daemon = MockDaemon(clock=lambda: 1_777_550_400.0)  # the same "now" for both runs
        with daemon.serve() as handle:
            model = ScriptedProvider([tool_use(("memory_store", {"content": "A fact."})), "ok"])
            agent = Agent(
                model, daemon_url=handle.url, env=agent_env, instructions="x", research=()
            )
            run(agent, "fixed-key")
        bodies = [(r.path, r.json) for r in daemon.requests if r.method == "POST"]
        daemon.close()
        for _, body in bodies:  # the transcript file's name is the only thing that may differ
            body.pop("transcriptPath", None)
            body.pop("transcript", None)
        return model.requests, _calls(daemon), bodies

    def sync_run(agent: Agent, key: str) -> None:
        with agent.session(key=key) as chat:
            chat.send("store a fact")
            chat.send("and again")

    def async_run(agent: Agent, key: str) -> None:
        async def main() -> None:
            async with agent.async_session(key=key) as chat:
                await chat.send("store a fact")
                await chat.send("and again")

        asyncio.run(main())

    sync_requests, sync_calls, sync_bodies = story(sync_run)
    async_requests, async_calls, async_bodies = story(async_run)
    # Equal but for the ids the daemon drew at random for the stored memories.
    assert _without_ids(sync_requests) == _without_ids(async_requests)
    assert len(sync_requests) == 3
    # Reads are made in the turn, in order; writes go to the outbox in order and reach
    # the daemon from the writer thread, so the two streams are compared one by one.
    assert _reads(sync_calls) == _reads(async_calls)
    assert _writes(sync_calls) == _writes(async_calls)
    for kind in (_reads, _writes):
        assert [b for p, b in sync_bodies if kind([p.removeprefix(HOOKS)])] == [
            b for p, b in async_bodies if kind([p.removeprefix(HOOKS)])
        ]


def test_a_daemon_that_is_down_costs_a_notice_not_the_chat(
    agent_env: dict[str, str], tmp_path: Path
) -> None:
    model = ScriptedProvider(["still here"])
    agent = Agent(model, daemon_url="http://127.0.0.1:9", env=agent_env, research=())
    with agent.session(project=str(tmp_path)) as chat:
        assert not chat.memory_online
        assert len(chat.notices) == 1 and chat.notices[0].startswith("memory offline:")
        out = chat.send("hello")
    assert out.content == "still here"
    outbox = Path(agent_env["XDG_STATE_HOME"], "signet-sdk", "outbox")
    kept = sorted(p.name for p in outbox.iterdir() if p.suffix == ".json")
    assert kept, "the checkpoint and the session end wait in the outbox"


def test_a_provider_error_rolls_the_turn_back_and_the_session_goes_on(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    daemon, url = mock_daemon
    denied = AuthenticationError(
        "scripted: 401", method="POST", url="x", status_code=401, body=None, headers={}
    )
    model = ScriptedProvider([denied, "recovered"])
    with _agent(model, url, agent_env, research=()).session() as chat:
        with pytest.raises(AuthenticationError):
            chat.send("first try")
        out = chat.send("second try")
    assert out.content == "recovered"
    # The failed turn is not in the history the model saw next.
    assert [m.text.rsplit("\n\n", 1)[-1] for m in model.requests[1].messages] == ["second try"]
    assert _calls(daemon).count("session-end") == 1


def test_refusal_ends_the_turn_without_running_its_tools(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    daemon, url = mock_daemon
    refused = CompletionResult(
        "I can't help with that.",
        (ToolCall("c1", "memory_store", {"content": "x"}),),
        "refusal",
        Usage(5, 5),
    )
    model = ScriptedProvider([refused, "fine"])
    with _agent(model, url, agent_env, research=()).session() as chat:
        out = chat.send("do a bad thing")
        assert out.stop_reason == "refusal" and out.tool_results == ()
        chat.send("something else")
    assert daemon.requests_to("/api/memory/remember") == []
    owed = model.requests[1].messages[-1]
    assert owed.role == "user" and owed.tool_results[0].is_error
    assert owed.text.endswith("something else")


def test_the_tool_loop_stops_at_the_model_call_limit(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    _, url = mock_daemon
    search = tool_use(("memory_search", {"query": "x"}))
    model = ScriptedProvider([search, search, search, "done"])
    agent = _agent(model, url, agent_env, research=(), limits=Limits(max_model_calls=2))
    with agent.session() as chat:
        out = chat.send("loop")
        assert out.stop_reason == "max_model_calls" and out.model_calls == 2
        assert any("2 model calls" in n for n in out.notices)
        chat.send("next")
    # The owed results travel with the next turn's message, as the API requires.
    last = model.requests[2].messages[-1]
    assert last.tool_results and last.text.endswith("next")


def test_compaction_summarises_without_tools_and_keeps_the_latest_turns(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    daemon, url = mock_daemon
    summary = "We set up staging; next, the billing fix."
    big = CompletionResult("a2", (), "end_turn", Usage(200, 5))
    model = ScriptedProvider(["a1", big, summary, "a3"])
    agent = _agent(
        model, url, agent_env, research=(), compaction=Compaction(at_tokens=100, keep_turns=1)
    )
    with agent.session() as chat:
        chat.send("t1")
        events = list(chat.stream("t2"))
        chat.send("t3")
    assert [e.text for e in events if e.type == "compacted"] == [summary]
    calls = _calls(daemon)
    assert calls.count("pre-compaction") == 1 and calls.count("compaction-complete") == 1
    assert calls.index("pre-compaction") < calls.index("compaction-complete")
    summary_request = model.requests[2]
    assert summary_request.options.tools == ()
    done = daemon.requests_to("/api/hooks/compaction-complete")[0].json
    assert done["summary"] == summary
    after = model.requests[3].messages
    # The summary, then the kept turn (t2) and the new one: t1 is gone.
    assert [m.role for m in after] == ["user", "assistant", "user"]
    assert after[0].text.startswith(f'<{FENCE_TAG} kind="summary">') and "t2" in after[0].text
    assert "t1" not in after[0].text and after[-1].text.endswith("t3")


def test_resume_gives_the_earlier_turns_back(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    _, url = mock_daemon
    model = ScriptedProvider(["The answer is 42."])
    agent = _agent(model, url, agent_env, research=())
    with agent.session() as chat:
        chat.send("What is the answer?")
        key = chat.key
    with agent.session(resume=key) as chat:
        assert chat.key == key
        chat.send("Say it again.")
    resumed = model.requests[-1].messages
    assert len(resumed) == 1
    assert "The answer is 42." in resumed[0].text and resumed[0].text.endswith("Say it again.")


def test_a_process_killed_mid_session_is_ended_by_the_next_one(
    mock_daemon: tuple[MockDaemon, str], agent_env: dict[str, str]
) -> None:
    daemon, url = mock_daemon
    agent = _agent(ScriptedProvider(["hi"]), url, agent_env, research=())
    chat = agent.session(key="orphan")
    chat.send("hello")
    live = Path(chat.files.live)
    record = json.loads(live.read_text())
    record["pid"] = 2**22 + 12345  # no such process: this session's process "died"
    live.write_text(json.dumps(record))
    chat.ended = True  # it never ends itself
    with agent.session(key="next"):
        pass
    assert not live.exists()

    # The detached sender delivers it (to the daemon the session was opened on).
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        ends = [r.json["sessionKey"] for r in daemon.requests_to("/api/hooks/session-end")]
        if len(ends) == 2:
            break
        time.sleep(0.1)
    assert sorted(ends) == ["next", "orphan"]


def test_messages_are_plain_values() -> None:
    assert Message("user", "x") == Message("user", "x")
