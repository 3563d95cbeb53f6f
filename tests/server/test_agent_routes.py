"""Agent sessions over HTTP: ``/v1/agent/sessions`` on a real socket, the mock daemon behind.

The server runs on uvicorn in a thread (lifespan and all), so shutdown is
the real one; the model is a :class:`ScriptedProvider` run on worker threads,
so a reply can block (a turn still running) without blocking the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from signet_sdk.agent import Agent, Message
from signet_sdk.agent.threaded import ThreadedProvider
from signet_sdk.agent.types import CompletionOptions
from signet_sdk.server import RuntimeAdapterServer
from signet_sdk.testing.fake_openai import FakeOpenAI
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.testing.providers import ScriptedProvider
from signet_sdk.wire.errors import APIConnectionError

from .server_support import serve_process

HOOKS = "/api/hooks/"
TOKEN = "agent-routes-token-51f0"


# -- the server on a socket ------------------------------------------------------


class Served:
    """``server.asgi`` on uvicorn in a thread, on a free 127.0.0.1 port."""

    def __init__(self, server: RuntimeAdapterServer, graceful: int = 10) -> None:
        self.app = server
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(
            server.asgi, log_level="warning", lifespan="on", timeout_graceful_shutdown=graceful
        )
        self.uvicorn = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        _wait_until(lambda: self.uvicorn.started, "the server to start")

    def _run(self) -> None:
        asyncio.run(self.uvicorn.serve(sockets=[self.sock]))

    def begin_stop(self) -> None:
        self.uvicorn.should_exit = True

    def stop(self) -> None:
        self.begin_stop()
        self.thread.join(60)
        self.sock.close()
        assert not self.thread.is_alive(), "the server did not stop"

    def client(self, **headers: str) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


class Hold:
    """A model reply that waits until released: a turn that is still running."""

    def __init__(self, answer: str = "late answer") -> None:
        self.answer = answer
        self.entered = threading.Event()
        self.released = threading.Event()

    def __call__(self, messages: Sequence[Message], options: CompletionOptions) -> str:
        self.entered.set()
        if not self.released.wait(60):
            raise TimeoutError("the test never released the reply")
        return self.answer


def _wait_until(condition: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def _hook_calls(daemon: MockDaemon) -> list[str]:
    """The daemon's calls in order: hook routes by their slug, the rest as ``METHOD path``."""
    return [
        r.path.removeprefix(HOOKS) if r.path.startswith(HOOKS) else f"{r.method} {r.path}"
        for r in daemon.requests
    ]


def _ends(daemon: MockDaemon) -> list[dict[str, Any]]:
    return [r.json for r in daemon.requests_to(HOOKS + "session-end")]


def _sse(raw: str) -> list[tuple[str, dict[str, Any]]]:
    """A text/event-stream body as (event, data) pairs; every event has exactly those two lines."""
    assert raw.endswith("\n\n"), raw
    out = []
    for block in raw[:-2].split("\n\n"):
        event_line, data_line = block.split("\n")
        assert event_line.startswith("event: ") and data_line.startswith("data: "), block
        out.append((event_line[len("event: ") :], json.loads(data_line[len("data: ") :])))
    return out


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[MockDaemon, str]]:
    mock = MockDaemon(db_path=tmp_path / "daemon.sqlite3")
    with mock.serve() as handle:
        yield mock, handle.url
    mock.close()


@pytest.fixture
def model() -> ScriptedProvider:
    return ScriptedProvider()


@contextmanager
def serving(
    daemon_url: str, model: ScriptedProvider, *, holds: Sequence[Hold] = (), **options: Any
) -> Iterator[Served]:
    agent = Agent(
        ThreadedProvider(model), daemon_url=daemon_url, instructions="You are terse.", research=()
    )
    served = Served(RuntimeAdapterServer(daemon_url, agent=agent, **options))
    try:
        yield served
    finally:
        for hold in holds:  # a blocked worker thread would keep the server's loop from closing
            hold.released.set()
        served.stop()


def _open(client: httpx.Client, **body: str) -> str:
    answer = client.post("/v1/agent/sessions", json=body)
    assert answer.status_code == 201, answer.text
    key: str = answer.json()["key"]
    return key


# -- the routes ------------------------------------------------------------------


def test_a_turn_streams_its_events_and_the_daemon_sees_the_lifecycle_in_order(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider, tmp_path: Path
) -> None:
    mock, url = daemon
    model.script.append("Deploy with make ship.")
    with serving(url, model) as served, served.client() as client:
        opened = client.post("/v1/agent/sessions", json={"project": str(tmp_path)})
        assert opened.status_code == 201
        key = opened.json()["key"]
        assert opened.json() == {"key": key, "memory": True, "notices": []}
        assert key.startswith("agent-")

        turn = client.post(f"/v1/agent/sessions/{key}/turns", json={"text": "How do we deploy?"})
        assert turn.status_code == 200
        assert turn.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert turn.headers["x-signet-turn"] == "1"
        done = {
            "type": "done",
            "output": {
                "content": "Deploy with make ship.",
                "stop_reason": "end_turn",
                "model_calls": 1,
                "tool_calls": [],
                "usage": {"input": 10, "output": 5, "cache_read": 0, "cache_write": 0},
                "notices": [],
            },
        }
        assert turn.text == (
            'event: text\ndata: {"type":"text","text":"Deploy with"}\n\n'
            'event: text\ndata: {"type":"text","text":" make ship."}\n\n'
            f"event: done\ndata: {json.dumps(done, separators=(',', ':'))}\n\n"
        )
        assert [event for event, data in _sse(turn.text) if data["type"] == event] == [
            "text",
            "text",
            "done",
        ]
        _wait_until(lambda: "session-checkpoint-extract" in _hook_calls(mock), "the checkpoint")
    # The server stopped, so the session ended too (its own health checks are GETs).
    assert [call for call in _hook_calls(mock) if not call.startswith("GET ")] == [
        "session-start",
        "user-prompt-submit",
        "session-checkpoint-extract",
        "session-end",
    ]
    start, prompt, checkpoint, end = (r.json for r in mock.requests if r.method == "POST")
    assert end["sessionKey"] == key and end["reason"] == "shutdown"
    assert start["sessionKey"] == prompt["sessionKey"] == checkpoint["sessionKey"] == key
    assert start["project"] == str(tmp_path) and start["harness"] == "signet-agent"
    assert prompt["userMessage"] == "How do we deploy?"
    assert model.requests[0].messages[-1].text.endswith("How do we deploy?")


def test_a_failing_model_ends_the_stream_with_error_and_the_session_goes_on(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider
) -> None:
    failure = APIConnectionError("model.test: connection refused", method="POST", url="model.test")
    model.script.extend([failure, "back again"])
    with serving(daemon[1], model) as served, served.client() as client:
        key = _open(client)
        failed = client.post(f"/v1/agent/sessions/{key}/turns", json={"text": "first"})
        assert failed.status_code == 200
        message = json.dumps({"type": "error", "text": str(failure)}, separators=(",", ":"))
        assert failed.text == f"event: error\ndata: {message}\n\n"
        again = client.post(f"/v1/agent/sessions/{key}/turns", json={"text": "second"})
        assert [event for event, _ in _sse(again.text)] == ["text", "text", "done"]
        assert _sse(again.text)[-1][1]["output"]["content"] == "back again"
    # The failed turn was rolled back: the second request holds only the second turn.
    assert [m.role for m in model.requests[1].messages] == ["user"]
    assert "first" not in model.requests[1].messages[0].text


def test_a_turn_posted_while_one_runs_is_refused_with_409(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider
) -> None:
    hold = Hold("finally")
    model.script.append(hold)
    with serving(daemon[1], model, holds=[hold]) as served, served.client() as client:
        key = _open(client)
        with client.stream("POST", f"/v1/agent/sessions/{key}/turns", json={"text": "a"}) as first:
            assert first.status_code == 200
            assert hold.entered.wait(30)
            with served.client() as other:
                second = other.post(f"/v1/agent/sessions/{key}/turns", json={"text": "b"})
                assert second.status_code == 409
                assert second.json() == {
                    "error": f"turn 1 is still running in session {key}; one turn at a time",
                    "key": key,
                    "turn": 1,
                }
                listed = other.get("/v1/agent/sessions").json()
                assert listed["sessions"] == [{"key": key, "running_turn": 1, "idle_seconds": 0.0}]
            hold.released.set()
            events = _sse(first.read().decode())
        assert events[-1][1]["output"]["content"] == "finally"
        assert len(model.requests) == 1  # the refused turn never reached the model
        after = client.post(f"/v1/agent/sessions/{key}/turns", json={"text": "c"})
        assert after.status_code == 200 and after.headers["x-signet-turn"] == "2"


def test_a_key_open_outside_this_server_is_refused_with_409(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider
) -> None:
    # The same key open through the library (here, this process; or another
    # process still running) is as much "already open" as one the server holds.
    outside = Agent(model, daemon_url=daemon[1], instructions="x", research=())
    with (
        outside.session(project="/repo", key="held-outside") as held,
        serving(daemon[1], model) as served,
        served.client() as client,
    ):
        refused = client.post("/v1/agent/sessions", json={"key": "held-outside"})
        assert refused.status_code == 409
        assert refused.json()["key"] == "held-outside"
        assert refused.json()["error"].startswith("key: ")
        assert held.key == "held-outside"


def test_unknown_keys_and_bad_bodies_are_refused_naming_what_is_wrong(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider
) -> None:
    with serving(daemon[1], model) as served, served.client() as client:
        missing = client.post("/v1/agent/sessions/nope/turns", json={"text": "hi"})
        assert missing.status_code == 404
        assert missing.json() == {"error": "no open session nope here", "key": "nope"}
        assert client.delete("/v1/agent/sessions/nope").status_code == 404

        key = _open(client, key="chosen-key-1")
        assert key == "chosen-key-1"
        again = client.post("/v1/agent/sessions", json={"key": key})
        assert again.status_code == 409
        assert again.json() == {"error": f"session {key} is already open here", "key": key}

        for body, field in (
            ({"text": "   "}, "text"),
            ({"text": ""}, "text"),
            ({}, "text"),
            ({"text": "hi", "txt": "x"}, "txt"),
        ):
            bad = client.post(f"/v1/agent/sessions/{key}/turns", json=body)
            assert bad.status_code == 422, body
            assert bad.json()["field"] == field and bad.json()["error"].startswith(f"{field}: ")
        both = client.post("/v1/agent/sessions", json={"key": "k1", "resume": "k2"})
        assert both.status_code == 422 and both.json()["field"] == "key"
        slash = client.post("/v1/agent/sessions", json={"key": "a/b"})
        assert slash.status_code == 422 and slash.json()["field"] == "key"
    assert model.requests == []


def test_the_gate_guards_the_agent_routes(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider
) -> None:
    with serving(daemon[1], model, server_token=TOKEN) as served:
        with served.client() as anonymous:
            refused = anonymous.post("/v1/agent/sessions", json={})
            assert refused.status_code == 401
            assert refused.json() == {"error": "missing or wrong bearer token"}
            assert anonymous.get("/v1/agent/sessions").status_code == 401
        with served.client(authorization=f"Bearer {TOKEN}") as client:
            rebound = client.post("/v1/agent/sessions", json={}, headers={"host": "evil.test"})
            assert rebound.status_code == 421
            assert client.get("/v1/agent/sessions").json()["sessions"] == []  # nothing opened
            key = _open(client)
            turn = client.post(f"/v1/agent/sessions/{key}/turns", json={"text": "x" * 5_000_000})
            assert turn.status_code == 413
            assert client.delete(f"/v1/agent/sessions/{key}").status_code == 200
    assert model.requests == []


def test_delete_ends_the_session_once(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider, tmp_path: Path
) -> None:
    mock, url = daemon
    with serving(url, model) as served, served.client() as client:
        key = _open(client, project=str(tmp_path))
        client.post(f"/v1/agent/sessions/{key}/turns", json={"text": "hello"})
        ended = client.delete(f"/v1/agent/sessions/{key}")
        assert ended.status_code == 200 and ended.json() == {"key": key, "ended": True}
        _wait_until(lambda: _ends(mock), "the session end")
        assert client.delete(f"/v1/agent/sessions/{key}").status_code == 404
        late = client.post(f"/v1/agent/sessions/{key}/turns", json={"text": "still there?"})
        assert late.status_code == 404
        assert client.get("/v1/agent/sessions").json()["sessions"] == []
    # The server stopped too: still the one end, with the reason the DELETE gave.
    ends = [(e["sessionKey"], e["reason"], e["cwd"]) for e in _ends(mock)]
    assert ends == [(key, "exit", str(tmp_path))]


def test_delete_during_a_turn_cancels_it_and_its_stream_says_so(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider
) -> None:
    mock, url = daemon
    hold = Hold()
    model.script.append(hold)
    with serving(url, model, holds=[hold]) as served, served.client() as client:
        key = _open(client)
        with client.stream("POST", f"/v1/agent/sessions/{key}/turns", json={"text": "a"}) as turn:
            assert hold.entered.wait(30)
            with served.client() as other:
                assert other.delete(f"/v1/agent/sessions/{key}").status_code == 200
            events = _sse(turn.read().decode())
        why = "turn 1 cancelled: the session was ended; it was rolled back"
        assert events == [("error", {"type": "error", "text": why})]
    assert [(e["sessionKey"], e["reason"]) for e in _ends(mock)] == [(key, "exit")]
    assert mock.requests_to(HOOKS + "session-checkpoint-extract") == []


def test_a_client_that_goes_away_cancels_its_turn_and_the_session_goes_on(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider
) -> None:
    mock, url = daemon
    hold = Hold("an answer nobody reads")
    model.script.extend([hold, "the next answer"])
    with serving(url, model, holds=[hold]) as served, served.client() as client:
        key = _open(client)
        with served.client() as leaving:
            path = f"/v1/agent/sessions/{key}/turns"
            with leaving.stream("POST", path, json={"text": "cancel me"}) as response:
                assert response.status_code == 200
                assert hold.entered.wait(30)
            # closing an unread stream closes its connection
        _wait_until(
            lambda: client.get("/v1/agent/sessions").json()["sessions"][0]["running_turn"] is None,
            "the turn to be cancelled",
        )
        hold.released.set()
        turn = client.post(path, json={"text": "what now?"})
        assert [event for event, _ in _sse(turn.text)] == ["text", "text", "done"]
        assert _sse(turn.text)[-1][1]["output"]["content"] == "the next answer"
    cancelled, following = model.requests
    assert "cancel me" in cancelled.messages[-1].text
    assert [m.role for m in following.messages] == ["user"]
    assert "cancel me" not in following.messages[0].text
    assert following.messages[0].text.endswith("what now?")
    # Only the finished turn was checkpointed.
    assert len(mock.requests_to(HOOKS + "session-checkpoint-extract")) == 1


def test_stopping_the_server_ends_every_open_session_once(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider
) -> None:
    mock, url = daemon
    hold = Hold()
    model.script.extend(["done here", hold])
    agent = Agent(ThreadedProvider(model), daemon_url=url, research=())
    served = Served(RuntimeAdapterServer(url, agent=agent), graceful=1)
    try:
        with served.client() as client:
            idle, busy = _open(client), _open(client)
            client.post(f"/v1/agent/sessions/{idle}/turns", json={"text": "one turn"})
            with client.stream("POST", f"/v1/agent/sessions/{busy}/turns", json={"text": "x"}):
                assert hold.entered.wait(30)
                served.begin_stop()  # the running turn is cancelled when its request is
                _wait_until(lambda: len(_ends(mock)) == 2, "both session ends")
    finally:
        hold.released.set()
        served.stop()
    assert sorted((e["sessionKey"], e["reason"]) for e in _ends(mock)) == sorted(
        [(idle, "shutdown"), (busy, "shutdown")]
    )
    assert len(mock.requests_to(HOOKS + "session-checkpoint-extract")) == 1


def test_a_session_idle_too_long_is_ended(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider
) -> None:
    mock, url = daemon
    with serving(url, model, agent_idle=0.2) as served, served.client() as client:
        listed = client.get("/v1/agent/sessions").json()
        assert listed == {"sessions": [], "idle_seconds": 0.2}
        key = _open(client)
        _wait_until(lambda: _ends(mock), "the idle session's end")
        assert [(e["sessionKey"], e["reason"]) for e in _ends(mock)] == [(key, "idle")]
        assert client.get("/v1/agent/sessions").json()["sessions"] == []
        late = client.post(f"/v1/agent/sessions/{key}/turns", json={"text": "hi"})
        assert late.status_code == 404
    assert len(_ends(mock)) == 1


def test_the_openapi_document_lists_the_agent_routes(
    daemon: tuple[MockDaemon, str], model: ScriptedProvider
) -> None:
    with serving(daemon[1], model) as served, served.client() as client:
        doc = client.get("/openapi.json").json()
    paths = doc["paths"]
    assert set(paths["/v1/agent/sessions"]) == {"get", "post"}
    assert set(paths["/v1/agent/sessions/{key}/turns"]) == {"post"}
    assert set(paths["/v1/agent/sessions/{key}"]) == {"delete"}
    opening = paths["/v1/agent/sessions"]["post"]
    body = opening["requestBody"]["content"]["application/json"]["schema"]
    assert {"$ref": "#/components/schemas/OpenSession"} in body["anyOf"]
    assert opening["responses"]["201"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/SessionOpened"
    }
    turns = paths["/v1/agent/sessions/{key}/turns"]["post"]
    assert turns["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/TurnRequest"
    }
    stream = turns["responses"]["200"]["content"]["text/event-stream"]
    data = stream["itemSchema"]["properties"]["data"]["contentSchema"]
    assert data["properties"]["type"]["enum"][-1] == "done"
    assert "application/json" in turns["responses"]["409"]["content"]
    ending = paths["/v1/agent/sessions/{key}"]["delete"]["responses"]["200"]
    assert ending["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/SessionEnded"
    }
    assert set(doc["components"]["schemas"]["TurnRequest"]["required"]) == {"text"}


# -- without an agent --------------------------------------------------------------

_WITHOUT_AGENT = """
import asyncio, sys
import httpx
from signet_sdk.server import RuntimeAdapterServer

async def main():
    server = RuntimeAdapterServer("http://127.0.0.1:9")
    await server.warm_up()
    transport = httpx.ASGITransport(app=server.asgi)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        opened = await client.post("/v1/agent/sessions", json={})
        turn = await client.post("/v1/agent/sessions/k/turns", json={"text": "hi"})
        paths = (await client.get("/openapi.json")).json()["paths"]
    await server.aclose()
    print(opened.status_code, turn.status_code, sorted(p for p in paths if "agent" in p))
    print(sorted(m for m in sys.modules if m.startswith("signet_sdk.agent")))

asyncio.run(main())
"""


def test_without_an_agent_the_routes_do_not_exist_and_the_runtime_is_not_imported() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_AGENT], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["404 404 []", "[]"]


# -- signet-sdk serve --agent ---------------------------------------------------------


def _serve_fails(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "signet_sdk.server", "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    return done.stderr


def test_serve_refuses_agent_flags_that_do_not_fit_together() -> None:
    assert "--agent: needs --provider anthropic|openai" in _serve_fails("--agent")
    assert "--provider: only with --agent" in _serve_fails("--provider", "openai")
    assert "--agent-idle: must be a positive" in _serve_fails(
        "--agent", "--provider", "openai", "--base-url", "http://127.0.0.1:9", "--agent-idle", "0"
    )
    no_key = _serve_fails("--agent", "--provider", "anthropic")
    assert "ANTHROPIC_API_KEY" in no_key


def test_serve_agent_runs_sessions_on_the_named_provider(
    tmp_path: Path, daemon: tuple[MockDaemon, str]
) -> None:
    mock, url = daemon
    with FakeOpenAI() as fake:
        flags = ("--agent", "--provider", "openai", "--model", "fake-model")
        with (
            serve_process(url, tmp_path / "state", *flags, "--base-url", fake.base_url) as (_, at),
            httpx.Client(base_url=at, timeout=30) as client,
        ):
            key = _open(client)
            turn = client.post(f"/v1/agent/sessions/{key}/turns", json={"text": "hello there"})
            events = _sse(turn.text)
            text = "".join(data["text"] for event, data in events if event == "text")
            assert text == "Hello from the fake model."
            assert events[-1][0] == "done"
            assert client.delete(f"/v1/agent/sessions/{key}").json() == {"key": key, "ended": True}
        sent = fake.chat_bodies()
    assert [body["model"] for body in sent] == ["fake-model"]
    assert sent[0]["messages"][-1]["content"].endswith("hello there")
    assert [e["sessionKey"] for e in _ends(mock)] == [key]
