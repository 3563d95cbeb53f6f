"""End to end with the real OpenClaw, offline.

OpenClaw (pinned, with Node 24, both installed from the npm registry by
``e2e/install_openclaw.sh`` into ``${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm``)
runs headless with a temporary state directory, its config written with
comments and our plugin installed into it by our installer. Its model is a
fake OpenAI-compatible server on 127.0.0.1 and its memory daemon the SDK's
mock daemon on 127.0.0.1. Hooks reach the daemon through ``signet-sdk serve``
(started here, found through its state file); the transport never starts a
server of its own here (``SIGNET_ADAPTER_AUTOSTART=0``).

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
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from oc_fake_openai import REPLY, SUMMARY, FakeOpenAI
from oc_support import AdapterServer, outbox_entries
from signet_adapter_openclaw.install import main as install_main

from signet_sdk.testing.mock_daemon import MockDaemon

OPENCLAW_VERSION = os.environ.get("OPENCLAW_VERSION", "2026.9.6")
INSTALLER = Path(__file__).parent / "e2e" / "install_openclaw.sh"
# Resolved now, before the tests' private HOME is in place: the install is shared.
NPM_CACHE = os.environ.get("SIGNET_NPM_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "signet-sdk", "npm"
)
MARK = "MEMO-OPENCLAW-E2E-3318"
MEMORY = f"Atlas deploys go through make ship, marker {MARK}"
# Long enough that the transcript passes the daemon's 500-character minimum.
PROMPT = f"How do atlas deploys work? {MARK} " + " ".join(
    f"Step {i}: check the release notes, the migrations and the staging flag." for i in range(10)
)
AGENT = "main"  # OpenClaw's default agent; the daemon reads it from the session key
TOKEN = "e2e-gateway-token"


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@dataclass
class Install:
    node_dir: str
    openclaw: str


@pytest.fixture(scope="session")
def openclaw_install() -> Install:
    """Node 24 and the pinned ``openclaw``, installed once per cache directory."""
    if shutil.which("npm") is None:
        reason = "npm is needed to install OpenClaw and Node 24 from the npm registry"
        if _in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    env = dict(os.environ, SIGNET_NPM_CACHE=NPM_CACHE)
    proc = subprocess.run(
        ["bash", str(INSTALLER), OPENCLAW_VERSION],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    if proc.returncode != 0:
        message = f"installing openclaw {OPENCLAW_VERSION} failed:\n{proc.stderr[-2000:]}"
        if _in_ci():
            pytest.fail(message)
        pytest.skip(message)
    node_dir, openclaw = proc.stdout.strip().splitlines()[-2:]
    return Install(node_dir, openclaw)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _workspace_parent() -> str:
    # Not under /tmp: the daemon treats /tmp projects as noise and keeps no transcript.
    for candidate in ("/var/tmp", os.path.expanduser("~/.cache")):
        if os.path.isdir(candidate) and os.access(candidate, os.W_OK):
            return candidate
    return tempfile.gettempdir()


def _config_text(fake: FakeOpenAI, workspace: Path, port: int, log: Path) -> str:
    model = {
        "id": "fake-model",
        "name": "Fake model",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 32000,
        "maxTokens": 4096,
    }
    provider = {
        "baseUrl": fake.base_url,
        "apiKey": "sk-fake",
        "api": "openai-completions",
        "models": [model],
    }
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


@dataclass
class World:
    install: Install
    state: Path
    workspace: Path
    env: dict[str, str]
    fake: FakeOpenAI
    daemon: MockDaemon
    url: str
    port: int

    def calls(self, name: str) -> list[Any]:
        return [r for r in self.daemon.requests if r.path == f"/api/hooks/{name}"]

    def hook_paths(self) -> list[str]:
        return [r.path for r in self.daemon.requests if r.path.startswith("/api/hooks/")]

    def wait_for(self, name: str, count: int = 1, timeout: float = 30.0) -> list[Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = self.calls(name)
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(f"{count} x {name} not seen in {timeout}s; saw {self.hook_paths()}")

    def openclaw(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 180
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.install.openclaw, *args],
            env=env or self.env,
            cwd=self.workspace,
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
def world(openclaw_install: Install, tmp_path: Path, isolated: Path) -> Iterator[World]:
    base = Path(tempfile.mkdtemp(prefix="signet-openclaw-e2e-", dir=_workspace_parent()))
    workspace = Path(os.path.realpath(base / "workspace"))
    workspace.mkdir()
    state = Path(os.environ["OPENCLAW_STATE_DIR"])
    state.mkdir(parents=True)
    port = _free_port()
    # 0.110 serves /api/sessions/:key/transcript.
    daemon = MockDaemon(db_path=tmp_path / "daemon.sqlite3", version="0.110")
    try:
        with FakeOpenAI(tmp_path / "openai.jsonl") as fake, daemon.serve() as handle:
            config = _config_text(fake, workspace, port, tmp_path / "openclaw.log")
            (state / "openclaw.json").write_text(config)
            assert install_main(["install"]) == 0
            # Node 24 first: OpenClaw needs it.
            bins = [openclaw_install.node_dir, str(Path(openclaw_install.openclaw).parent)]
            path = os.pathsep.join([*bins, "/usr/bin", "/bin"])
            env = {
                "PATH": path,
                "LANG": "C.UTF-8",
                "HOME": str(isolated),
                "TMPDIR": str(tmp_path),
                "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"],
                "XDG_CONFIG_HOME": str(isolated / ".config"),
                "XDG_CACHE_HOME": str(isolated / ".cache"),
                "OPENCLAW_STATE_DIR": str(state),
                "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
                "OPENCLAW_DISABLE_BONJOUR": "1",
                "OPENCLAW_SKIP_CHANNELS": "1",
                "OPENCLAW_NO_RESPAWN": "1",
                "OPENCLAW_EXEC_SHELL_SNAPSHOT": "0",
                "OPENCLAW_GATEWAY_TOKEN": TOKEN,
                "OPENCLAW_GATEWAY_PORT": str(port),
                "SIGNET_DAEMON_URL": handle.url,
                "SIGNET_OUTBOX_FLUSH_SECONDS": "5",
                "SIGNET_ADAPTER_AUTOSTART": "0",
            }
            yield World(openclaw_install, state, workspace, env, fake, daemon, handle.url, port)
            _let_senders_finish()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _let_senders_finish() -> None:
    end = time.monotonic() + 10
    while time.monotonic() < end and outbox_entries():
        time.sleep(0.05)


@pytest.fixture
def server(world: World) -> Iterator[AdapterServer]:
    with AdapterServer(world.env) as running:
        yield running


def remember(url: str, content: str) -> None:
    data = json.dumps({"content": content, "importance": 0.9, "agentId": AGENT}).encode()
    request = urllib.request.Request(
        f"{url}/api/memory/remember", data=data, headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


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


# -- agent --local: the turn hooks ---------------------------------------------------


def test_local_turn_reaches_the_daemon_and_memory_reaches_the_model(
    world: World, server: AdapterServer
) -> None:
    remember(world.url, MEMORY)
    key = "agent:main:e2e-local"
    start = time.monotonic()
    proc = world.local_turn(key, PROMPT)
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout

    (started,) = world.calls("session-start")
    (prompt,) = world.calls("user-prompt-submit")
    (checkpoint,) = world.wait_for("session-checkpoint-extract")
    for call in (started, prompt, checkpoint):
        _check_hook_call(call, key)
        assert "agentId" not in call.json  # the daemon reads "main" from the key
        assert call.json["project"] == str(world.workspace)
    assert started.json["source"] == "startup"
    assert prompt.json["userMessage"] == PROMPT
    assert world.hook_paths().index(started.path) < world.hook_paths().index(prompt.path)
    assert MARK in checkpoint.json["transcript"] and REPLY in checkpoint.json["transcript"]

    # The stored memory reached the model, before the user's text in the turn's request.
    (turn,) = world.fake.turns()
    (asked,) = [t for t in _user_texts(turn) if PROMPT[:40] in t]
    assert f"marker {MARK}" in asked
    assert asked.index('<signet-memory source="prompt-recall">') < asked.index(PROMPT[:40])
    assert elapsed < 90


def _tool_messages(turn: dict[str, Any]) -> list[str]:
    return [
        m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
        for m in turn.get("messages") or []
        if isinstance(m, dict) and m.get("role") == "tool"
    ]


def test_the_model_calls_the_memory_tools_the_plugin_registers(
    world: World, server: AdapterServer
) -> None:
    remember(world.url, MEMORY)
    key = "agent:main:e2e-tools"
    # OpenClaw's default Tool Search catalogs plugin tools behind tool_search /
    # tool_describe / tool_call: the model reaches ours through tool_call.
    args = {"query": "atlas deploys", "limit": 5}
    world.fake.tool_script = [("tool_call", {"id": "signet_memory_search", "args": args})]
    proc = world.local_turn(key, "What do we know about atlas deploys?")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "tool name conflict" not in proc.stderr
    results = _tool_messages(world.fake.turns()[-1])
    assert results and f"marker {MARK}" in results[-1]  # the stored memory, found by the tool
    (search,) = [r for r in world.daemon.requests if r.path == "/api/memory/recall"]
    assert search.json["query"] == "atlas deploys"
    assert search.json["agentId"] == "main"  # the tool context's agent, from OpenClaw


def test_without_a_server_the_hook_process_serves_every_hook(world: World) -> None:
    remember(world.url, MEMORY)
    key = "agent:main:e2e-process"
    proc = world.local_turn(key, PROMPT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout
    for name in ("session-start", "user-prompt-submit", "session-checkpoint-extract"):
        (call,) = world.wait_for(name)
        _check_hook_call(call, key)
    assert not (Path(world.env["XDG_STATE_HOME"]) / "signet-sdk" / "adapter-server.json").exists()
    assert f"marker {MARK}" in json.dumps(world.fake.turns()[0])


@pytest.mark.parametrize("switch", ["SIGNET_BYPASS", "SIGNET_NO_HOOKS"])
def test_off_switches_leave_the_daemon_alone(
    world: World, server: AdapterServer, switch: str
) -> None:
    proc = world.local_turn("agent:main:e2e-off", "hello", env={**world.env, switch: "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout
    time.sleep(0.3)
    assert world.hook_paths() == []
    assert "signet-memory" not in json.dumps(world.fake.turns())


def test_daemon_down_the_turn_completes(world: World) -> None:
    down = {**world.env, "SIGNET_DAEMON_URL": f"http://127.0.0.1:{_free_port()}"}
    with AdapterServer(down):
        start = time.monotonic()
        proc = world.local_turn("agent:main:e2e-down", PROMPT, env=down)
        elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout
    assert elapsed < 90
    assert world.hook_paths() == []
    assert "signet-memory" not in json.dumps(world.fake.turns())
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
            cwd=world.workspace,
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
    world: World, server: AdapterServer, tmp_path: Path
) -> None:
    remember(world.url, MEMORY)
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
    (started,) = world.calls("session-start")
    _check_hook_call(started, key)
    prompts = world.calls("user-prompt-submit")
    assert [p.json["userMessage"] for p in prompts] == [PROMPT, "What was decided about atlas?"]
    for call in prompts:
        _check_hook_call(call, key)
        assert call.json["project"] == str(world.workspace)
    first_turn = json.dumps(world.fake.turns()[0])
    assert 'source=\\"session-start\\"' in first_turn and f"marker {MARK}" in first_turn

    (pre,) = world.calls("pre-compaction")
    _check_hook_call(pre, key)
    assert pre.json["sessionContext"].startswith("openclaw compaction")
    (done,) = world.wait_for("compaction-complete")
    _check_hook_call(done, key)
    assert SUMMARY in done.json["summary"]
    # Sent by the first prompt hook after the compaction, right before its recall.
    paths = world.hook_paths()
    after = paths.index("/api/hooks/pre-compaction")
    assert paths[after:].index(done.path) + 1 == paths[after:].index(prompts[1].path)

    (ended,) = world.wait_for("session-end")
    _check_hook_call(ended, key)
    assert ended.json["reason"] == "shutdown"
    assert ended.json["cwd"] == str(world.workspace)
    assert "What was decided about atlas?" in ended.json["transcript"]
    assert REPLY in ended.json["transcript"]
    stored = get_json(f"{world.url}/api/sessions/{key}/transcript?agent_id={AGENT}")
    assert "What was decided about atlas?" in json.dumps(stored)


def test_a_local_session_continued_in_the_gateway_ends_when_the_gateway_stops(
    world: World, server: AdapterServer, tmp_path: Path
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

    (ended,) = world.wait_for("session-end")
    _check_hook_call(ended, key)
    assert ended.json["reason"] == "shutdown"
    assert ended.json["cwd"] == str(world.workspace)
    assert "What was decided about atlas?" in ended.json["transcript"]
    assert REPLY in ended.json["transcript"]
    assert world.calls("compaction-complete") == []

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
    assert len(world.calls("session-end")) == 1
    assert len(world.calls("compaction-complete")) == 1
