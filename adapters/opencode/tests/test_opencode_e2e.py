"""End to end with the real OpenCode, offline.

OpenCode (pinned, from the npm registry; see ``opencode_support``) runs
headless in a temporary project with our plugin installed by our installer.
Its model is a fake OpenAI-compatible server on 127.0.0.1 and its memory
daemon the SDK's mock daemon on 127.0.0.1 (and, for the tests marked with
``DAEMONS``, the real Signet 0.109.15 and 0.145.8 behind a recording proxy).
Events reach the daemon through
``signet-sdk serve`` (started here, found by the shim through its state
file) or, with no server, through ``signet-sdk hook opencode <event>``
processes; the transport never starts a server of its own here
(``SIGNET_ADAPTER_AUTOSTART=0``).

Without node and npm the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opencode_support import (
    REPLY,
    SUMMARY,
    World,
    install_opencode,
    make_world,
    plugin_seed,
    reply,
)
from signet_e2e import daemon_of, long_prompt, on_every_daemon, recording_daemon, remember

from signet_sdk.plugin import context_text
from signet_sdk.testing import ServeProcess, free_port, outbox_entries, outbox_left
from signet_sdk.testing.fake_openai import FakeOpenAI, system_text

MARK = "MEMO-OPENCODE-E2E-3307"
MEMORY = f"Atlas deploys go through make ship, marker {MARK}"
PROMPT = long_prompt(f"How do atlas deploys work? {MARK}")
AGENT = "atlas-agent"
# ``opencode run`` 1.18.33 puts its positional message into the session wrapped
# in double quotes (observed); that is the prompt text the plugin is handed.
RUN_TEXT = f'"{PROMPT}"'


@pytest.fixture(scope="session")
def opencode_bin() -> str:
    return install_opencode()


@pytest.fixture(scope="session")
def seed(opencode_bin: str) -> Path:
    return plugin_seed()


#: ``@DAEMONS`` runs a test on the mock and on each real daemon release.
DAEMONS = on_every_daemon("world")


@pytest.fixture
def world(
    opencode_bin: str,
    seed: Path,
    tmp_path: Path,
    isolated: Path,
    request: pytest.FixtureRequest,
) -> Iterator[World]:
    # The mock answers as 0.110: its prompt recall repeats what the session
    # start injected (0.145 leaves it out), which the first test asserts on.
    kind = daemon_of(request)
    with (
        FakeOpenAI(reply, models=["fake-model", "fake-small"]) as fake,
        recording_daemon(kind, request, tmp_path / "daemon.sqlite3") as (daemon, url),
        make_world(opencode_bin, seed, isolated, fake, url, daemon) as made,
    ):
        made.version = kind
        yield made
        outbox_left(env=made.env)  # background senders get a while before the daemon goes


@pytest.fixture(params=["server", "process"])
def path(request: pytest.FixtureRequest, world: World) -> Iterator[str]:
    if request.param == "process":
        yield "process"
        return
    server = ServeProcess(world.env)
    try:
        yield "server"
    finally:
        server.stop()


def _post(url: str, body: Any, method: str = "POST", timeout: float = 60) -> Any:
    request = urllib.request.Request(
        url,
        data=None if body is None else json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method=method,
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read() or b"null")


def _text(content: Any) -> str:
    """A chat message's content as text (a string, or the text of its parts)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))


def _systems(body: dict[str, Any]) -> str:
    return system_text(body)


@DAEMONS
def test_a_turn_reaches_the_daemon_and_memory_reaches_the_model(world: World, path: str) -> None:
    remember(world.url, MEMORY, agentId=AGENT)
    proc = world.run(PROMPT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout

    (started,) = world.hook_calls("session-start")
    (prompt,) = world.hook_calls("user-prompt-submit")
    session = started.json["sessionKey"]
    assert session.startswith("ses_")
    for call in (started, prompt):
        assert call.status == 200, (call.path, call.response_json)
        assert call.json["harness"] == "opencode"
        assert call.json["runtimePath"] == "plugin"
        assert call.json["sessionKey"] == session
        assert call.json["agentId"] == AGENT
        assert call.json["project"] == str(world.project)
    assert prompt.json["userMessage"] == RUN_TEXT

    # The stored memory reached the main turn's system prompt from session
    # start, and from the prompt's recall when the daemon recalled it (0.145
    # leaves out what the session start injected); the title request got none.
    (turn,) = world.turns()
    system = _systems(turn)
    assert 'source="session-start"' in system
    assert f"marker {MARK}" in context_text(started.response_json, prompt=False)
    recall = context_text(prompt.response_json, prompt=True)
    assert ('source="prompt-recall"' in system) is bool(recall)
    assert system.count(f"marker {MARK}") == 1 + (f"marker {MARK}" in recall)
    if world.version == "mock":
        assert f"marker {MARK}" in recall  # the mock as 0.110 recalls it for the prompt
    titles = [b for b in world.fake.chat_bodies() if b.get("model") == "fake-small"]
    assert titles and all(MARK not in _systems(b) for b in titles)

    # After the turn: a checkpoint; at exit: the session end with the conversation.
    (checkpoint,) = world.wait_for("session-checkpoint-extract")
    assert checkpoint.json["sessionKey"] == session
    assert checkpoint.json["transcript"] == f"User: {RUN_TEXT}\nAssistant: {REPLY}"
    (ended,) = world.wait_for("session-end")
    assert ended.json["sessionKey"] == session
    assert ended.json["reason"] == "exit"
    assert ended.json["cwd"] == str(world.project)
    assert ended.json["transcript"] == f"User: {RUN_TEXT}\nAssistant: {REPLY}"
    assert ended.json["harness"] == "opencode"
    time.sleep(1.0)
    assert len(world.hook_calls("session-end")) == 1


def _tool_results(body: dict[str, Any]) -> list[str]:
    return [_text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "tool"]


def test_the_model_calls_the_memory_tools_over_mcp(world: World) -> None:
    """``mcp.signet`` (``signet-sdk mcp``) gives OpenCode's model the memory tools."""
    remember(world.url, MEMORY, agentId=AGENT)
    world.fake.tool_script = [
        ("signet_memory_search", {"query": "atlas deploys"}),
        ("signet_memory_store", {"content": "Atlas rollbacks use make rollback"}),
    ]
    proc = world.run("Look up atlas deploys, then remember the rollback command.", "--auto")
    assert proc.returncode == 0, proc.stderr[-3000:]
    offered = {t["function"]["name"] for t in world.turns()[0]["tools"]}
    assert {"signet_memory_search", "signet_memory_store"} <= offered, sorted(offered)
    assert world.fake.tool_script == []
    results = [r for body in world.turns() for r in _tool_results(body)]
    assert any(MARK in r for r in results), results
    assert world.daemon is not None
    (stored,) = [
        r
        for r in world.daemon.requests
        if r.path == "/api/memory/remember"
        and r.json.get("content") == "Atlas rollbacks use make rollback"
    ]
    assert stored.status == 200
    assert stored.json["project"] == str(world.project)
    assert stored.json["agentId"] == AGENT


def test_serve_mode_compaction_and_deletion(world: World) -> None:
    server = ServeProcess(world.env)
    port = free_port()
    serve = subprocess.Popen(
        [world.opencode, "serve", "--port", str(port), "--hostname", "127.0.0.1"],
        cwd=world.project,
        env=world.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    world.procs.append(serve)
    base = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + 60
        while True:
            try:
                # A request that arrives while OpenCode boots can hang: poll briefly.
                _post(f"{base}/session", None, method="GET", timeout=3)
                break
            except OSError:
                if time.monotonic() > end or serve.poll() is not None:
                    raise
                time.sleep(0.2)
        session = _post(f"{base}/session", {"title": "atlas"})["id"]
        model = {"providerID": "fake", "modelID": "fake-model"}
        _post(
            f"{base}/session/{session}/message",
            {"model": model, "parts": [{"type": "text", "text": PROMPT}]},
        )
        assert _post(f"{base}/session/{session}/summarize", model) is True

        (pre,) = world.wait_for("pre-compaction")
        assert pre.json["sessionKey"] == session and pre.json["harness"] == "opencode"
        (done,) = world.wait_for("compaction-complete")
        assert done.json["sessionKey"] == session
        assert done.json["summary"] == SUMMARY
        assert done.json["project"] == str(world.project)
        # The daemon's guidance reached the compaction request's prompt.
        guidelines = pre.response_json["guidelines"]
        assert guidelines
        compaction = [
            b for b in world.fake.chat_bodies() if "context summarization" in system_text(b)
        ]
        assert compaction
        users = [m for m in compaction[-1]["messages"] if m.get("role") == "user"]
        assert any(guidelines.strip() in _text(m.get("content")) for m in users)

        _post(f"{base}/session/{session}", None, method="DELETE")
        (ended,) = world.wait_for("session-end")
        assert ended.json["sessionKey"] == session
        assert ended.json["reason"] == "session.deleted"
        assert PROMPT in ended.json["transcript"]
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=15)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait(timeout=5)
        server.stop()
    assert len(world.hook_calls("session-end")) == 1


def test_with_the_daemon_down_the_turn_completes_and_writes_wait_in_the_outbox(
    opencode_bin: str, seed: Path, isolated: Path
) -> None:
    down = f"http://127.0.0.1:{free_port()}"
    with (
        FakeOpenAI(reply, models=["fake-model", "fake-small"]) as fake,
        make_world(opencode_bin, seed, isolated, fake, down, None) as world,
    ):
        start = time.monotonic()
        proc = world.run(PROMPT)
        elapsed = time.monotonic() - start
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert proc.stdout.strip().endswith(REPLY)
        assert "signet" not in (proc.stdout + proc.stderr).lower()
        assert len([b for b in fake.chat_bodies() if b.get("tools")]) == 1
        actions = sorted(e["action"] for e in outbox_entries(world.env))
        assert actions == ["session_checkpoint_extract", "session_end"]
        assert elapsed < 60
