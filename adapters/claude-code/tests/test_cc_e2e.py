"""End to end with the real Claude Code CLI, offline.

``claude`` (pinned, installed from the npm registry by the kit's ``npm_binary``
into ``${SIGNET_E2E_CACHE:-~/.cache/signet-sdk/e2e}/claude-code-VERSION``;
2.1.197 is the newest release that installs on Node 20, its native binary an
npm platform package) runs headless in a temporary project whose
``.claude/settings.json`` was written by our installer. Its model is a fake
Anthropic server on 127.0.0.1 and its memory daemon is, test by test, the
SDK's mock daemon and the real Signet daemons (0.109.15 and 0.145.8, behind a
recording proxy so the same assertions read what the real one received and
answered), all on 127.0.0.1; HOME is a temporary directory and the DISABLE_*
variables keep Claude Code from any other traffic.

Without npm the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cc_fake_anthropic import SUMMARY, FakeAnthropic
from signet_adapter_claude_code.install import main as install_main
from signet_e2e import (
    DAEMONS,
    HarnessWorld,
    get_json,
    harness_world,
    long_prompt,
    npm_binary,
    remember,
)

CLAUDE_VERSION = os.environ.get("CLAUDE_CODE_VERSION", "2.1.197")
# Resolved now, before the tests' private HOME is in place: the install is shared.
CACHE = Path(os.environ.get("SIGNET_E2E_CACHE") or os.path.expanduser("~/.cache/signet-sdk/e2e"))
PREFIX = CACHE / f"claude-code-{CLAUDE_VERSION}"
MEMORY = "Atlas deploys go through make ship, marker MEMO-E2E-5150"
PROMPT = long_prompt("How do atlas deploys work? MEMO-E2E-5150")


@pytest.fixture(scope="session")
def claude_bin() -> str:
    """The pinned ``claude`` program, installed once per cache directory."""
    return str(npm_binary("@anthropic-ai/claude-code", CLAUDE_VERSION, "claude", prefix=PREFIX))


@dataclass(kw_only=True)
class World(HarnessWorld):
    claude: str
    fake: FakeAnthropic
    version: str  # "mock", or the real daemon's version

    def paths(self) -> list[str]:
        return [r.path for r in self.daemon.requests]


@pytest.fixture(params=DAEMONS)  # every test: the mock, then each real release
def world(
    claude_bin: str, tmp_path: Path, isolated: Path, request: pytest.FixtureRequest
) -> Iterator[World]:
    home = isolated
    # The mock as 0.110: it serves /api/sessions/:key/transcript, which the first test reads.
    with (
        FakeAnthropic(tmp_path / "anthropic.jsonl") as fake,
        harness_world(
            tmp_path,
            request=request,
            daemon=request.param,
            version="0.110",
            XDG_STATE_HOME=str(home / ".local" / "state"),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_CACHE_HOME=str(home / ".cache"),
            ANTHROPIC_BASE_URL=fake.url,
            ANTHROPIC_API_KEY="dummy",
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_ERROR_REPORTING="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        ) as base,
    ):
        assert install_main(["install", "--project", str(base.project)]) == 0
        yield World(**vars(base), claude=claude_bin, fake=fake, version=request.param)


def test_one_turn_reaches_the_daemon_and_memory_reaches_the_model(world: World) -> None:
    remember(world.url, MEMORY)
    start = time.monotonic()
    proc = subprocess.run(
        [world.claude, "-p", PROMPT, "--output-format", "json"],
        cwd=world.project,
        env=world.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["result"].startswith("FAKE-REPLY")
    session = result["session_id"]

    _, prompt = world.start_and_prompt(session, "claude-code", "legacy")
    assert "MEMO-E2E-5150" in prompt.json["userPrompt"]
    (ended,) = world.wait_for("session-end")
    checkpoints = world.hook_calls("session-checkpoint-extract")
    assert checkpoints, world.paths()  # the Stop hook's per-turn checkpoint
    for call in [ended, *checkpoints]:
        assert call.status == 200, (call.path, call.response_json)
        assert call.json["harness"] == "claude-code"
        assert call.json["runtimePath"] == "legacy"
        assert call.headers["x-signet-runtime-path"] == "legacy"
        assert call.json["sessionKey"] == session
    assert ended.json["cwd"] == str(world.project)
    assert ended.json["reason"] == "other"
    assert ended.json["transcriptPath"].startswith("/tmp/signet/")

    # The daemon read the staged transcript: it holds this session's turn (the
    # transcript route exists from 0.110 on; 0.109 answers the end with what it did).
    if world.version == "0.109.15":
        assert ended.response_json.get("memoriesSaved") is not None, ended.response_json
    else:
        stored = get_json(f"{world.url}/api/sessions/{session}/transcript")
        assert "MEMO-E2E-5150" in json.dumps(stored)

    # The memory stored beforehand reached the model through a hook's additionalContext.
    bodies = [
        json.dumps(r["body"]) for r in world.fake.requests() if r["path"].startswith("/v1/messages")
    ]
    assert any("marker MEMO-E2E-5150" in b and "hook additional context" in b for b in bodies)
    assert elapsed < 30


def _send(proc: subprocess.Popen[str], text: str) -> None:
    assert proc.stdin is not None
    message = {
        "type": "user",
        "session_id": "",
        "parent_tool_use_id": None,
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()


def _wait_result(proc: subprocess.Popen[str], seen: list[dict[str, Any]]) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"claude exited before a result; saw {seen[-5:]}")
        try:
            event: dict[str, Any] = json.loads(line)
        except ValueError:
            continue
        seen.append(event)
        if event.get("type") == "result":
            return event


def test_compaction_in_stream_json_mode_reaches_the_daemon(world: World) -> None:
    argv = [
        world.claude,
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
    ]
    proc = subprocess.Popen(
        argv,
        cwd=world.project,
        env=world.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: list[dict[str, Any]] = []
    try:
        for text in ["first turn", "second turn", "/compact", "after compaction"]:
            _send(proc, text)  # one message per turn, each after the previous result
            _wait_result(proc, seen)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
            assert proc.stdout is not None and proc.stderr is not None
            proc.stdout.close()
            proc.stderr.close()
    assert proc.returncode == 0
    assert any(e.get("subtype") == "compact_boundary" for e in seen)

    (pre,) = world.hook_calls("pre-compaction")
    assert pre.status == 200
    assert pre.json["sessionContext"] == "Claude Code compaction (manual)"
    (done,) = world.hook_calls("compaction-complete")
    assert done.status == 200
    assert SUMMARY in done.json["summary"]
    assert done.json["harness"] == "claude-code"
    assert done.json["sessionKey"] == pre.json["sessionKey"]
    sources = [c.json.get("source") for c in world.hook_calls("session-start")]
    assert sources[0] == "startup" and "compact" in sources
    world.wait_for("session-end")
    # Compaction's internal fork fired SubagentStop: nothing was sent for it.
    assert all(
        "subagent" not in (c.json.get("source") or "") for c in world.hook_calls("session-start")
    )


# -- the memory tools through MCP ---------------------------------------------------


def _tool_turn(
    world: World, tool: str, arguments: dict[str, Any]
) -> subprocess.CompletedProcess[str]:
    prompt = f"Please check memory. USE_TOOL mcp__signet__{tool} {json.dumps(arguments)}"
    # Claude Code connects MCP servers in the background since 2.1.142, and the fake
    # model asks for the tool within milliseconds: on a loaded machine it was told the
    # server "is still connecting". MCP_CONNECTION_NONBLOCKING=0 waits for the connection
    # first (at most MCP_CONNECT_TIMEOUT_MS), as a real model's seconds of thought do.
    return subprocess.run(
        [
            world.claude,
            "-p",
            prompt,
            "--output-format",
            "json",
            "--allowedTools",
            f"mcp__signet__{tool}",
        ],
        cwd=world.project,
        env={**world.env, "MCP_CONNECTION_NONBLOCKING": "0"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _tool_results(world: World) -> list[str]:
    """Text of every tool_result block the model was sent back."""
    found = []
    for request in world.fake.requests():
        for message in (request.get("body") or {}).get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.append(json.dumps(block.get("content")))
    return found


def test_memory_search_through_mcp_returns_a_stored_memory(world: World) -> None:
    remember(world.url, MEMORY)
    proc = _tool_turn(world, "memory_search", {"query": "atlas deploys"})
    assert proc.returncode == 0, proc.stderr
    results = _tool_results(world)
    assert any("MEMO-E2E-5150" in r for r in results), results
    recalls = [r for r in world.daemon.requests if r.path == "/api/memory/recall"]
    assert recalls and recalls[-1].json["query"] == "atlas deploys"


def test_memory_store_through_mcp_lands_in_the_daemon(world: World) -> None:
    fact = "The atlas staging database is pg-staging-7, marker MCP-STORE-881"
    proc = _tool_turn(world, "memory_store", {"content": fact})
    assert proc.returncode == 0, proc.stderr
    (stored,) = [r for r in world.daemon.requests if r.path == "/api/memory/remember"]
    assert stored.json["content"] == fact
    assert stored.json["project"] == str(world.project)
    memory_id = stored.response_json["id"]
    assert any(memory_id in r and "saved" in r for r in _tool_results(world))
