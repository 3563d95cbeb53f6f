"""End to end with the real OpenClaw, offline.

OpenClaw (pinned, with Node 24, both installed from the npm registry by the
kit's ``npm_binary`` through ``oc_support.openclaw_install`` into
``${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}``)
runs headless with a temporary state directory, its config written with
comments and our plugin installed into it by our installer. Its model is the
kit's fake OpenAI-compatible server on 127.0.0.1 and its memory daemon the
SDK's mock daemon on 127.0.0.1 (the kit's ``harness_world``). Hooks reach the
daemon through ``signet-sdk serve`` (started here, found through its state
file); the transport never starts a server of its own here
(``SIGNET_ADAPTER_AUTOSTART=0``).

``agent --local`` runs the turn hooks; the gateway adds session start and
end and compaction. The module takes about 95 s on two cores (an OpenClaw
turn is 10-13 s, the gateway test 27 s), plus about 35 s for a first
install, so ``dev.py check`` and CI run it with everything else. Without npm
the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from oc_support import (
    QUIET,
    REPLY,
    SUMMARY,
    Install,
    fake_model,
    fake_provider,
    openclaw_install,
    turns,
)
from signet_adapter_openclaw.install import main as install_main
from signet_e2e import HarnessWorld, harness_world, long_prompt, remember

from signet_sdk.testing import ServeProcess, free_port, outbox_entries
from signet_sdk.testing.fake_openai import FakeOpenAI, tool_results

MARK = "MEMO-OPENCLAW-E2E-3318"
MEMORY = f"Atlas deploys go through make ship, marker {MARK}"
PROMPT = long_prompt(f"How do atlas deploys work? {MARK}")
AGENT = "main"  # OpenClaw's default agent; the daemon reads it from the session key
TOKEN = "e2e-gateway-token"


@pytest.fixture(scope="session")
def openclaw() -> Install:
    """Node 24 and the pinned ``openclaw``, installed once per cache directory."""
    return openclaw_install()


def _config_text(fake: FakeOpenAI, workspace: Path, port: int, log: Path) -> str:
    provider = fake_provider(fake, context_window=32000)
    return (
        "{\n"
        "  // written by the end-to-end test; the installer adds its plugin below\n"
        f"  models: {{ providers: {{ fake: {json.dumps(provider)} }} }},\n"
        "  agents: { defaults: { model: { primary: 'fake/fake-model' },"
        f" workspace: {json.dumps(str(workspace))} }} }},\n"
        f"  gateway: {{ port: {port} }}, /* loopback only */\n"
        f"  logging: {{ file: {json.dumps(str(log))} }}, // not /tmp/openclaw\n"
        "}\n"
    )


@dataclass(kw_only=True)
class World(HarnessWorld):
    """The kit's world (``project`` is OpenClaw's workspace) and OpenClaw's own parts."""

    install: Install
    state: Path
    fake: FakeOpenAI
    port: int

    def hook_paths(self) -> list[str]:
        return [r.path for r in self.daemon.requests if r.path.startswith("/api/hooks/")]

    def wait_for(self, name: str, count: int = 1, timeout: float = 30.0) -> list[Any]:
        return super().wait_for(name, count, timeout)

    def turns(self) -> list[dict[str, Any]]:
        return turns(self.fake)

    def openclaw(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 180
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.install.openclaw, *args],
            env=env or self.env,
            cwd=self.project,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def local_turn(
        self, key: str, message: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        args = ["agent", "--local", "--agent", AGENT, "--session-key", key]
        return self.openclaw(*args, "--message", message, "--json", env=env)


@pytest.fixture
def world(openclaw: Install, tmp_path: Path, isolated: Path) -> Iterator[World]:
    state = Path(os.environ["OPENCLAW_STATE_DIR"])
    state.mkdir(parents=True)
    port = free_port()
    with (
        fake_model(tmp_path / "openai.jsonl") as fake,
        # 0.110 serves /api/sessions/:key/transcript.
        harness_world(
            tmp_path,
            version="0.110",
            prefix="signet-openclaw-e2e-",
            PATH=openclaw.path(),  # Node 24 first: OpenClaw needs it
            TMPDIR=str(tmp_path),
            XDG_CONFIG_HOME=str(isolated / ".config"),
            XDG_CACHE_HOME=str(isolated / ".cache"),
            OPENCLAW_STATE_DIR=str(state),
            OPENCLAW_CONFIG_PATH=str(state / "openclaw.json"),
            OPENCLAW_GATEWAY_TOKEN=TOKEN,
            OPENCLAW_GATEWAY_PORT=str(port),
            SIGNET_ADAPTER_AUTOSTART="0",
        ) as base,
    ):
        base.env.update(QUIET, SIGNET_OUTBOX_FLUSH_SECONDS="5")
        config = _config_text(fake, base.project, port, tmp_path / "openclaw.log")
        (state / "openclaw.json").write_text(config)
        assert install_main(["install"]) == 0
        yield World(**vars(base), install=openclaw, state=state, fake=fake, port=port)


@pytest.fixture
def server(world: World) -> Iterator[ServeProcess]:
    with ServeProcess(world.env) as running:
        yield running


def _user_texts(turn: dict[str, Any]) -> list[str]:
    out = []
    for message in turn.get("messages") or []:
        if message.get("role") == "user":
            content = message.get("content")
            out.append(content if isinstance(content, str) else json.dumps(content))
    return out


def _check_hook_call(call: Any, key: str) -> None:
    assert call.status == 200, (call.path, call.response_json)
    assert call.json["harness"] == "openclaw"
    assert call.json["runtimePath"] == "plugin"
    assert call.headers["x-signet-runtime-path"] == "plugin"
    assert call.json["sessionKey"] == key


def _check_ended_at_shutdown(world: World, key: str) -> None:
    """The session's one session-end: at the gateway's stop, with its later turn's messages."""
    (ended,) = world.wait_for("session-end")
    _check_hook_call(ended, key)
    assert ended.json["reason"] == "shutdown"
    assert ended.json["cwd"] == str(world.project)
    assert "What was decided about atlas?" in ended.json["transcript"]
    assert REPLY in ended.json["transcript"]


# -- agent --local: the turn hooks ---------------------------------------------------


def test_local_turn_reaches_the_daemon_and_memory_reaches_the_model(
    world: World, server: ServeProcess
) -> None:
    remember(world.url, MEMORY, agentId=AGENT)
    key = "agent:main:e2e-local"
    start = time.monotonic()
    proc = world.local_turn(key, PROMPT)
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout

    (started,) = world.hook_calls("session-start")
    (prompt,) = world.hook_calls("user-prompt-submit")
    (checkpoint,) = world.wait_for("session-checkpoint-extract")
    for call in (started, prompt, checkpoint):
        _check_hook_call(call, key)
        assert "agentId" not in call.json  # the daemon reads "main" from the key
        assert call.json["project"] == str(world.project)
    assert started.json["source"] == "startup"
    assert prompt.json["userMessage"] == PROMPT
    assert world.hook_paths().index(started.path) < world.hook_paths().index(prompt.path)
    assert MARK in checkpoint.json["transcript"] and REPLY in checkpoint.json["transcript"]

    # The stored memory reached the model, before the user's text in the turn's request.
    (turn,) = world.turns()
    (asked,) = [t for t in _user_texts(turn) if PROMPT[:40] in t]
    assert f"marker {MARK}" in asked
    assert asked.index('<signet-memory source="prompt-recall">') < asked.index(PROMPT[:40])
    assert elapsed < 90


def test_the_model_calls_the_memory_tools_the_plugin_registers(
    world: World, server: ServeProcess
) -> None:
    remember(world.url, MEMORY, agentId=AGENT)
    key = "agent:main:e2e-tools"
    # OpenClaw's default Tool Search catalogs plugin tools behind tool_search /
    # tool_describe / tool_call: the model reaches ours through tool_call.
    args = {"query": "atlas deploys", "limit": 5}
    world.fake.tool_script = [("tool_call", {"id": "signet_memory_search", "args": args})]
    proc = world.local_turn(key, "What do we know about atlas deploys?")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "tool name conflict" not in proc.stderr
    results = tool_results(world.turns()[-1])
    assert results and f"marker {MARK}" in results[-1]  # the stored memory, found by the tool
    (search,) = [r for r in world.daemon.requests if r.path == "/api/memory/recall"]
    assert search.json["query"] == "atlas deploys"
    assert search.json["agentId"] == "main"  # the tool context's agent, from OpenClaw


def test_without_a_server_the_hook_process_serves_every_hook(world: World) -> None:
    remember(world.url, MEMORY, agentId=AGENT)
    key = "agent:main:e2e-process"
    proc = world.local_turn(key, PROMPT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout
    for name in ("session-start", "user-prompt-submit", "session-checkpoint-extract"):
        (call,) = world.wait_for(name)
        _check_hook_call(call, key)
    assert not (Path(world.env["XDG_STATE_HOME"]) / "signet-sdk" / "adapter-server.json").exists()
    assert f"marker {MARK}" in json.dumps(world.turns()[0])


@pytest.mark.parametrize("switch", ["SIGNET_BYPASS", "SIGNET_NO_HOOKS"])
def test_off_switches_leave_the_daemon_alone(
    world: World, server: ServeProcess, switch: str
) -> None:
    proc = world.local_turn("agent:main:e2e-off", "hello", env={**world.env, switch: "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout
    time.sleep(0.3)
    assert world.hook_paths() == []
    assert "signet-memory" not in json.dumps(world.turns())


def test_daemon_down_the_turn_completes(world: World) -> None:
    down = {**world.env, "SIGNET_DAEMON_URL": f"http://127.0.0.1:{free_port()}"}
    with ServeProcess(down):
        start = time.monotonic()
        proc = world.local_turn("agent:main:e2e-down", PROMPT, env=down)
        elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout
    assert elapsed < 90
    assert world.hook_paths() == []
    assert "signet-memory" not in json.dumps(world.turns())
    queued = {e["action"] for e in outbox_entries(down)}
    assert queued == {"session_checkpoint_extract"}  # the write waits for the daemon
    shutil.rmtree(Path(down["XDG_STATE_HOME"]) / "signet-sdk" / "outbox")  # nobody will take it


# -- the gateway: session start and end, compaction -----------------------------------


class Gateway:
    """``openclaw gateway run`` in the background, stopped by its PID (SIGTERM)."""

    def __init__(self, world: World, log: Path) -> None:
        self.log = log.open("w")
        args = ["gateway", "run", "--bind", "loopback", "--port", str(world.port)]
        args += ["--auth", "token", "--token", TOKEN, "--allow-unconfigured"]
        self.proc = subprocess.Popen(
            [world.install.openclaw, *args],
            env=world.env,
            cwd=world.project,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        end = time.monotonic() + 120
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise AssertionError(f"gateway exited: {log.read_text()[-3000:]}")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", world.port)) == 0:
                    return
            time.sleep(0.25)
        self.stop()
        raise AssertionError(f"gateway not listening after 120 s: {log.read_text()[-3000:]}")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()
        return self.proc.returncode


def test_gateway_session_compaction_and_shutdown(
    world: World, server: ServeProcess, tmp_path: Path
) -> None:
    remember(world.url, MEMORY, agentId=AGENT)
    key = "agent:main:e2e-gateway"
    gateway = Gateway(world, tmp_path / "gateway.log")
    try:
        turn = ["agent", "--agent", AGENT, "--session-key", key, "--json"]
        first = world.openclaw(*turn, "--message", PROMPT)
        assert first.returncode == 0, first.stderr[-3000:]
        assert REPLY in first.stdout
        compact = world.openclaw("sessions", "compact", key, "--json")
        assert compact.returncode == 0, compact.stderr[-3000:]
        assert json.loads(compact.stdout)["compacted"] is True
        second = world.openclaw(*turn, "--message", "What was decided about atlas?")
        assert second.returncode == 0, second.stderr[-3000:]
    finally:
        code = gateway.stop()
    assert code == 0, (tmp_path / "gateway.log").read_text()[-3000:]

    # session_start (gateway, new key) made the one session-start; its context came
    # with the first turn.
    (started,) = world.hook_calls("session-start")
    _check_hook_call(started, key)
    prompts = world.hook_calls("user-prompt-submit")
    assert [p.json["userMessage"] for p in prompts] == [PROMPT, "What was decided about atlas?"]
    for call in prompts:
        _check_hook_call(call, key)
        assert call.json["project"] == str(world.project)
    first_turn = json.dumps(world.turns()[0])
    assert 'source=\\"session-start\\"' in first_turn and f"marker {MARK}" in first_turn

    (pre,) = world.hook_calls("pre-compaction")
    _check_hook_call(pre, key)
    assert pre.json["sessionContext"].startswith("openclaw compaction")
    (done,) = world.wait_for("compaction-complete")
    _check_hook_call(done, key)
    assert SUMMARY in done.json["summary"]
    # Sent by the first prompt hook after the compaction, right before its recall.
    paths = world.hook_paths()
    after = paths.index("/api/hooks/pre-compaction")
    assert paths[after:].index(done.path) + 1 == paths[after:].index(prompts[1].path)

    _check_ended_at_shutdown(world, key)
    transcript = f"{world.url}/api/sessions/{key}/transcript?agent_id={AGENT}"
    with urllib.request.urlopen(transcript, timeout=10) as response:
        stored = json.loads(response.read())
    assert "What was decided about atlas?" in json.dumps(stored)


def test_a_local_session_continued_in_the_gateway_ends_when_the_gateway_stops(
    world: World, server: ServeProcess, tmp_path: Path
) -> None:
    """OpenClaw sends no session_start or session_end for it: the plugin ends it once,
    with its messages, when the gateway stops. The compaction made right before the
    stop has no later prompt in that gateway: its summary goes with the session's
    first prompt in the next process."""
    key = "agent:main:e2e-continued"
    local = world.local_turn(key, PROMPT)
    assert local.returncode == 0, local.stderr[-3000:]
    gateway = Gateway(world, tmp_path / "gateway.log")
    try:
        turn = ["agent", "--agent", AGENT, "--session-key", key, "--json"]
        later = world.openclaw(*turn, "--message", "What was decided about atlas?")
        assert later.returncode == 0, later.stderr[-3000:]
        compact = world.openclaw("sessions", "compact", key, "--json")
        assert compact.returncode == 0, compact.stderr[-3000:]
        assert json.loads(compact.stdout)["compacted"] is True
        world.wait_for("pre-compaction")
        before_stop = world.hook_paths()
    finally:
        code = gateway.stop()
    assert code == 0, (tmp_path / "gateway.log").read_text()[-3000:]
    assert "/api/hooks/session-end" not in before_stop

    _check_ended_at_shutdown(world, key)
    assert world.hook_calls("compaction-complete") == []

    # The session's next process: its first prompt sends the compaction's summary first.
    again = world.local_turn(key, "And the staging flag?")
    assert again.returncode == 0, again.stderr[-3000:]
    (done,) = world.wait_for("compaction-complete")
    _check_hook_call(done, key)
    assert SUMMARY in done.json["summary"]
    paths = world.hook_paths()
    last_prompt = len(paths) - 1 - paths[::-1].index("/api/hooks/user-prompt-submit")
    assert paths.index(done.path) < last_prompt
    time.sleep(1.0)  # nothing more arrives: each sent once
    assert len(world.hook_calls("session-end")) == 1
    assert len(world.hook_calls("compaction-complete")) == 1
