"""End to end with the real pi coding agent, offline.

``pi`` (pinned, installed from the npm registry by the kit's ``npm_binary``
into ``${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}``)
runs headless in a temporary project, with our extension installed by our
installer into a temporary agent directory. Its model is a fake
OpenAI-compatible server on 127.0.0.1 and its memory daemon is the SDK's mock
daemon on 127.0.0.1 (and, for the tests marked with ``DAEMONS``, also the real
Signet daemons 0.109.15 and 0.145.8, behind a recording proxy so the same
assertions read what they received and answered). Events reach the daemon
through ``signet-sdk serve`` (started here, found by the shim through its
state file) or, with no server, through ``signet-sdk hook pi <event>``
processes; the transport never starts a server of its own here
(``SIGNET_ADAPTER_AUTOSTART=0``).

Without node and npm the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pi_fake_openai import REPLY, SUMMARY, FakeOpenAI
from pi_support import AdapterServer, PiRpc, install_pi, write_models
from signet_adapter_pi.install import main as install_main
from signet_e2e import (
    HarnessWorld,
    base_env,
    daemon_of,
    get_json,
    long_prompt,
    new_project,
    on_every_daemon,
    recording_daemon,
    remember,
)
from signet_e2e.fixtures import installed_once

from signet_sdk.testing import free_port, outbox_entries, outbox_left
from signet_sdk.testing.fake_openai import tool_results
from signet_sdk.testing.mock_daemon import MockDaemon

PROBE = Path(__file__).parent / "e2e" / "probe.mjs"
# Resolved now, before the tests' private HOME is in place: the install is shared.
MARK = "MEMO-PI-E2E-6021"
MEMORY = f"Atlas deploys go through make ship, marker {MARK}"
PROMPT = long_prompt(f"How do atlas deploys work? {MARK}")
AGENT = "atlas-agent"
SESSION_INJECT = 'source=\\"session-start\\"'
RECALL_INJECT = 'source=\\"prompt-recall\\"'


#: The pinned ``pi`` program, installed once per cache directory.
pi_bin = installed_once(install_pi, "pi_bin")


@dataclass(kw_only=True)
class World(HarnessWorld):
    """The kit's world (project, daemon: the mock or a RecordingProxy in front of a real
    daemon, its URL, the environment) with pi, its agent folder and the fake model."""

    pi: str
    agent: Path
    fake: FakeOpenAI
    version: str = "mock"

    def wait_for(self, name: str, count: int = 1, timeout: float = 20.0) -> list[Any]:
        return super().wait_for(name, count, timeout)

    def argv(self, *extra: str) -> list[str]:
        return [self.pi, "--provider", "fakeoai", "--model", "fake-model", *extra]

    def print_turn(
        self, prompt: str, *extra: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return self.run_in_project(self.argv("-p", prompt, *extra), env=env, timeout=120)

    def rpc(self, *extra: str, env: dict[str, str] | None = None) -> PiRpc:
        return PiRpc(self.argv("--mode", "rpc", *extra), self.project, env or self.env)

    def session_files(self) -> list[Path]:
        return sorted((self.agent / "sessions").rglob("*.jsonl"))

    def session_ids(self) -> list[str]:
        ids = []
        for path in self.session_files():
            header = json.loads(path.read_text().splitlines()[0])
            ids.append(header["id"])
        return ids


@contextmanager
def _make_world(
    pi_bin: str, tmp_path: Path, home: Path, fake: FakeOpenAI, daemon_url: str, daemon: Any
) -> Iterator[World]:
    """A project, our extension installed, pi pointed at the fake model; the daemon given."""
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    with new_project("signet-pi-e2e-") as project:
        assert install_main(["install"]) == 0
        write_models(agent, fake.base_url, 32_000)
        env = base_env(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_CACHE_HOME=str(home / ".cache"),
            PI_CODING_AGENT_DIR=str(agent),
            PI_OFFLINE="1",
            SIGNET_DAEMON_URL=daemon_url,
            SIGNET_AGENT_ID=AGENT,
            SIGNET_OUTBOX_FLUSH_SECONDS="5",
            SIGNET_ADAPTER_AUTOSTART="0",
            PI_E2E_PROBE_LOG=str(tmp_path / "probe.jsonl"),
        )
        yield World(project, daemon, daemon_url, env, pi=pi_bin, agent=agent, fake=fake)


#: ``@DAEMONS`` runs a test on the mock and on each real daemon release.
DAEMONS = on_every_daemon("world")


@pytest.fixture
def world(
    pi_bin: str, tmp_path: Path, isolated: Path, request: pytest.FixtureRequest
) -> Iterator[World]:
    kind = daemon_of(request)
    with (
        FakeOpenAI(tmp_path / "openai.jsonl") as fake,
        recording_daemon(kind, request, tmp_path / "daemon.sqlite3") as (
            daemon,
            url,
        ),
    ):
        with _make_world(pi_bin, tmp_path, isolated, fake, url, daemon) as made:
            made.version = kind
            yield made
        outbox_left()  # background senders get a while to deliver before the daemon goes


@pytest.fixture
def server(world: World) -> Iterator[AdapterServer]:
    with AdapterServer(world.env) as running:
        yield running


def probe_events(world: World) -> list[dict[str, Any]]:
    path = Path(world.env["PI_E2E_PROBE_LOG"])
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# -- print mode -------------------------------------------------------------------


@DAEMONS
def test_print_turn_reaches_the_daemon_and_memory_reaches_the_model(
    world: World, server: AdapterServer
) -> None:
    remember(world.url, MEMORY, agentId=AGENT)
    start = time.monotonic()
    proc = world.print_turn(PROMPT)
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    assert REPLY in proc.stdout

    (session,) = world.session_ids()
    (started,) = world.hook_calls("session-start")
    (prompt,) = world.hook_calls("user-prompt-submit")  # input and before_agent_start: one call
    (ended,) = world.wait_for("session-end")
    (checkpoint,) = world.wait_for("session-checkpoint-extract")
    for call in (started, prompt, ended, checkpoint):
        assert call.status == 200, (call.path, call.response_json)
        assert call.json["harness"] == "pi"
        assert call.json["runtimePath"] == "plugin"
        assert call.headers["x-signet-runtime-path"] == "plugin"
        assert call.json["sessionKey"] == session
        assert call.json["agentId"] == AGENT
    assert started.json["project"] == str(world.project)
    assert started.json["source"] == "startup"
    assert prompt.json["project"] == str(world.project)
    assert prompt.json["userMessage"] == PROMPT
    assert MARK in checkpoint.json["transcript"]
    assert ended.json["cwd"] == str(world.project)
    assert ended.json["reason"] == "quit"
    assert ended.json["sessionId"] == session
    assert ended.json["transcriptPath"].startswith("/tmp/signet/")

    # The daemon read the staged session file: it holds this session's turn (the
    # route exists from 0.110 on).
    if world.version != "0.109.15":
        stored = get_json(f"{world.url}/api/sessions/{session}/transcript?agent_id={AGENT}")
        assert MARK in json.dumps(stored)

    # The stored memory reached the model, in the first (and only) turn's request:
    # from session start, and recalled for the prompt when the daemon chose to
    # (0.145 injects per prompt only for a named entity; the extension adds nothing).
    (turn,) = world.fake.turns()
    body = json.dumps(turn)
    assert SESSION_INJECT in body
    inject = prompt.response_json.get("inject") or ""
    assert (RECALL_INJECT in body) is bool(inject)
    assert body.count(f"marker {MARK}") == 1 + (f"marker {MARK}" in inject)
    if world.version == "mock":
        assert f"marker {MARK}" in inject  # the mock's recall finds it for the prompt
    assert elapsed < 60


@DAEMONS
@pytest.mark.parametrize("path", ["server", "process"])
def test_the_model_calls_the_memory_tools_through_the_extension(
    world: World, path: str, request: pytest.FixtureRequest
) -> None:
    if path == "server":
        request.getfixturevalue("server")
    remember(world.url, MEMORY, agentId=AGENT)
    stored = f"Atlas staging uses feature flags, noted by a tool {MARK}-{path}"
    world.fake.tool_script = [
        ("memory_search", {"query": "atlas deploys make ship", "limit": 5}),
        ("memory_store", {"content": stored, "tags": ["atlas"]}),
    ]
    # The first turn asks for the search; pi runs the tool and sends its result back.
    proc = world.print_turn("What do we know about atlas deploys?")
    assert proc.returncode == 0, proc.stderr
    turns = world.fake.turns()
    offered = {t["function"]["name"] for t in turns[0].get("tools") or []}
    assert {"memory_search", "memory_store", "memory_get", "memory_forget"} <= offered
    (result,) = tool_results(turns[1])
    assert f"marker {MARK}" in result  # the memory stored beforehand, found by the tool
    (session,) = world.session_ids()
    (search,) = [r for r in world.daemon.requests if r.path == "/api/memory/recall"]
    assert search.json["query"] == "atlas deploys make ship"
    # The second prompt's tool call stores a memory in the daemon.
    proc = world.print_turn("Remember the staging flags.", "--continue")
    assert proc.returncode == 0, proc.stderr
    (store,) = [
        r
        for r in world.daemon.requests
        if r.path == "/api/memory/remember" and r.json.get("content") == stored
    ]
    assert store.status == 200
    answer = tool_results(world.fake.turns()[-1])[-1]
    assert store.response_json["id"] in answer  # the model saw the new memory's id
    assert session in world.session_ids()


def test_without_a_server_the_hook_process_serves_every_event(world: World) -> None:
    remember(world.url, MEMORY, agentId=AGENT)
    proc = world.print_turn(PROMPT)
    assert proc.returncode == 0, proc.stderr
    assert REPLY in proc.stdout
    (session,) = world.session_ids()
    names = ["session-start", "user-prompt-submit", "session-checkpoint-extract", "session-end"]
    for name in names:
        (call,) = world.wait_for(name)
        assert call.json["sessionKey"] == session and call.json["harness"] == "pi"
    assert not (Path(world.env["XDG_STATE_HOME"]) / "signet-sdk" / "adapter-server.json").exists()
    assert f"marker {MARK}" in json.dumps(world.fake.turns()[0])


def test_unsaved_session_ends_with_its_transcript_from_memory(
    world: World, server: AdapterServer
) -> None:
    proc = world.print_turn(PROMPT, "--no-session")
    assert proc.returncode == 0, proc.stderr
    assert world.session_files() == []  # pi wrote no session file
    (started,) = world.hook_calls("session-start")
    (ended,) = world.wait_for("session-end")
    assert ended.json["sessionKey"] == started.json["sessionKey"]
    assert "transcriptPath" not in ended.json
    lines = [json.loads(line) for line in ended.json["transcript"].splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["id"] == started.json["sessionKey"]
    said = [line["message"] for line in lines if line.get("type") == "message"]
    assert [m["role"] for m in said] == ["user", "assistant"]
    assert MARK in json.dumps(said[0])


@pytest.mark.parametrize("switch", ["SIGNET_BYPASS", "SIGNET_NO_HOOKS"])
def test_off_switches_leave_the_daemon_alone(
    world: World, server: AdapterServer, switch: str
) -> None:
    proc = world.print_turn("hello", env={**world.env, switch: "1"})
    assert proc.returncode == 0, proc.stderr
    assert REPLY in proc.stdout
    time.sleep(0.3)
    assert [r.path for r in world.daemon.requests if r.path.startswith("/api/hooks/")] == []
    assert "signet-memory" not in json.dumps(world.fake.turns())


# -- RPC mode: several prompts, compaction --------------------------------------------


def test_rpc_prompts_and_compact(world: World, server: AdapterServer) -> None:
    remember(world.url, MEMORY, agentId=AGENT)
    rpc = world.rpc("-e", str(PROBE))
    try:
        for text in (PROMPT, "And the staging flag?", f"Anything else about {MARK}?"):
            rpc.prompt(text)
        compacted = rpc.command({"type": "compact"})
        assert compacted["success"] is True, compacted
        assert compacted["data"]["summary"] == SUMMARY
        rpc.prompt("After the compaction: what was decided?")
    finally:
        code = rpc.close()
    assert code == 0

    (session,) = world.session_ids()
    assert len(world.hook_calls("user-prompt-submit")) == 4  # one per prompt
    (pre,) = world.hook_calls("pre-compaction")
    assert pre.status == 200
    assert pre.json["sessionKey"] == session
    assert pre.json["sessionContext"].startswith("pi compaction")
    (done,) = world.wait_for("compaction-complete")
    assert done.status == 200
    assert done.json["summary"] == SUMMARY
    assert done.json["sessionKey"] == session
    assert done.json["project"] == str(world.project)
    assert len(world.wait_for("session-checkpoint-extract", 4)) == 4
    (ended,) = world.wait_for("session-end")
    assert ended.json["sessionKey"] == session

    turns = world.fake.turns()
    assert len(turns) == 4
    # The session context reaches the first turn, and every later turn exactly once:
    # it is added per request, never stored, so copies cannot pile up.
    for turn in turns:
        body = json.dumps(turn)
        assert body.count(SESSION_INJECT) == 1
        assert body.count(RECALL_INJECT) <= 1
    third = json.dumps(turns[2])
    assert third.count(SESSION_INJECT) == 1 and third.count(RECALL_INJECT) == 1
    # Nothing of ours was written into pi's own session.
    assert "signet-memory" not in world.session_files()[0].read_text()


def test_automatic_compaction_fired_twice_is_called_in_once(
    pi_bin: str, tmp_path: Path, isolated: Path
) -> None:
    """A threshold compaction still running when the next prompt arrives fires twice."""
    daemon = MockDaemon(db_path=tmp_path / "daemon.sqlite3")
    # 31000 prompt tokens in a 32000 window: pi compacts after every turn; the slow
    # compaction answer makes the next prompt start a second one meanwhile.
    fake = FakeOpenAI(tmp_path / "openai.jsonl", prompt_tokens=31000, compaction_delay=0.5)
    with fake, daemon.serve() as handle:
        with (
            _make_world(pi_bin, tmp_path, isolated, fake, handle.url, daemon) as world,
            AdapterServer(world.env),
        ):
            rpc = world.rpc("-e", str(PROBE))
            try:
                for text in ("first", "second", "third"):
                    rpc.prompt(text)
                time.sleep(1.5)  # let the last compaction finish
            finally:
                assert rpc.close() == 0
            events = probe_events(world)
            fired = [e for e in events if e["event"] == "session_before_compact"]
            compactions = [e for e in events if e["event"] == "session_compact"]
            pres = world.hook_calls("pre-compaction")
            done = world.wait_for("compaction-complete", len(compactions))
            assert compactions, events
            assert len(fired) > len(compactions), "pi did not fire twice this time"
            # One pre-compaction per compaction: per distinct leaf it fired at.
            assert len(pres) == len({e["leaf"] for e in fired})
            assert len(pres) <= len(compactions) + 1
            assert len(done) == len(compactions)
            assert all(c.json["summary"] == SUMMARY for c in done)
        outbox_left()


# -- the daemon is down ---------------------------------------------------------------


def test_daemon_down_the_turn_completes_and_writes_wait_in_the_outbox(
    pi_bin: str, tmp_path: Path, isolated: Path
) -> None:
    port = free_port()
    daemon = MockDaemon(db_path=tmp_path / "daemon.sqlite3", version="0.110")
    with FakeOpenAI(tmp_path / "openai.jsonl") as fake:
        down = f"http://127.0.0.1:{port}"
        with _make_world(pi_bin, tmp_path, isolated, fake, down, daemon) as world:
            with AdapterServer(world.env):
                start = time.monotonic()
                proc = world.print_turn(PROMPT)
                elapsed = time.monotonic() - start
                assert proc.returncode == 0, proc.stderr
                assert REPLY in proc.stdout
                assert elapsed < 30
                (session,) = world.session_ids()
                queued = {e["action"]: e for e in outbox_entries(world.env)}
                assert set(queued) == {"session_end", "session_checkpoint_extract"}
                assert queued["session_end"]["body"]["sessionKey"] == session
                assert queued["session_end"]["transcript"] is not None  # the file, snapshotted

            # The daemon comes back: the next session's start replays what waited.
            with daemon.serve(port=port):
                again = world.print_turn("hello again")
                assert again.returncode == 0, again.stderr
                ends = world.wait_for("session-end", 2)
                first = next(c for c in ends if c.json["sessionKey"] == session)
                assert first.json["harness"] == "pi" and first.json["reason"] == "quit"
                assert first.json["transcriptPath"].startswith("/tmp/signet/")
                stored = get_json(f"{world.url}/api/sessions/{session}/transcript?agent_id={AGENT}")
                assert MARK in json.dumps(stored)
                assert outbox_left(env=world.env) == []
