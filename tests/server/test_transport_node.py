"""The JavaScript shim transport against the real server and the real hook command."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from signet_sdk import RememberParams, create_adapter
from signet_sdk.testing import ServeProcess
from signet_sdk.testing.mock_daemon import MockDaemon

TRANSPORT = Path(__file__).resolve().parents[2] / "signet_sdk" / "shims" / "transport.mjs"
NODE = shutil.which("node")
SDK = str(Path(sys.executable).parent / "signet-sdk")
PROMPT = {"session_id": "js-1", "cwd": "/srv/atlas", "prompt": "which day do we deploy?"}

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")  # CI installs it


def _node_send(env: dict[str, str], harness: str, event: str, payload: object) -> object:
    script = (
        f"const t = await import({json.dumps(TRANSPORT.as_uri())});"
        f"const out = await t.send({json.dumps(harness)}, {json.dumps(event)}, "
        f"{json.dumps(payload)});"
        "process.stderr.write(JSON.stringify({out}));"
    )
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # the transport never writes to stdout
    return json.loads(done.stderr)["out"]


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[str]:
    mock = MockDaemon(db_path=tmp_path / "d.sqlite3", version="0.109")  # prompt recall
    with mock.serve() as handle:
        with create_adapter("seed", handle.url) as seed:
            seed.remember(RememberParams(content="we deploy on Tuesdays"))
        yield handle.url


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIGNET_", "CLAUDE_"))}
    env.update(XDG_STATE_HOME=str(tmp_path / "state"), HOME=str(tmp_path), **extra)
    return env


def test_through_a_running_server(tmp_path: Path, daemon: str) -> None:
    env = _env(tmp_path, SIGNET_DAEMON_URL=daemon)
    with ServeProcess(env):
        # Found through the state file the server wrote.
        out = _node_send(env, "claude-code", "UserPromptSubmit", PROMPT)
    assert isinstance(out, dict)
    assert "we deploy on Tuesdays" in out["hookSpecificOutput"]["additionalContext"]


def test_through_the_hook_process_when_no_server_runs(tmp_path: Path, daemon: str) -> None:
    env = _env(
        tmp_path, SIGNET_DAEMON_URL=daemon, SIGNET_SDK_COMMAND=SDK, SIGNET_ADAPTER_AUTOSTART="0"
    )
    out = _node_send(env, "claude-code", "UserPromptSubmit", PROMPT)
    assert isinstance(out, dict)
    assert "we deploy on Tuesdays" in out["hookSpecificOutput"]["additionalContext"]


# -- twenty events at once, no server running ---------------------------------------


def _ours(pid: int, state: Path) -> bool:
    """Whether ``pid`` is still a server this test started (not a reused pid)."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
    return f"XDG_STATE_HOME={state}".encode() in environ.split(b"\0")


def _stop(pids: list[int], state: Path) -> None:
    for pid in pids:
        if _ours(pid, state):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while any(_ours(p, state) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in pids:
        if _ours(pid, state):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("lock", ["none", "stale"])
def test_twenty_concurrent_events_leave_one_server(tmp_path: Path, daemon: str, lock: str) -> None:
    state = tmp_path / "state"
    log = tmp_path / "starts.log"
    wrapper = tmp_path / "signet-sdk-logged"
    wrapper.write_text(f'#!/bin/sh\necho "$$ $*" >> {log}\nexec {SDK} "$@"\n')
    wrapper.chmod(0o755)
    if lock == "stale":  # left by a start long ago, as after a server that idled out
        (state / "signet-sdk").mkdir(parents=True, mode=0o700)
        stale = state / "signet-sdk" / "adapter-server.lock"
        stale.write_text("1")
        os.utime(stale, (time.time() - 60, time.time() - 60))
    env = _env(tmp_path, SIGNET_DAEMON_URL=daemon, SIGNET_SDK_COMMAND=str(wrapper))
    script = (
        f"const t = await import({json.dumps(TRANSPORT.as_uri())});"
        f"const out = await t.send('claude-code', 'UserPromptSubmit', {json.dumps(PROMPT)});"
    )
    events = [
        subprocess.Popen([str(NODE), "--input-type=module", "-e", script], env=env)
        for _ in range(20)
    ]
    servers: list[int] = []
    try:
        for event in events:
            assert event.wait(timeout=120) == 0
        state_file = state / "signet-sdk" / "adapter-server.json"
        deadline = time.monotonic() + 60
        while not state_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        servers = [
            int(line.split()[0]) for line in log.read_text().splitlines() if " serve " in line
        ]
        owner = json.loads(state_file.read_text())["pid"]
        # Any other start gives up at once (the state directory is taken): within seconds.
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if [p for p in servers if _ours(p, state)] == [owner]:
                break
            time.sleep(0.1)
        assert [p for p in servers if _ours(p, state)] == [owner], (servers, owner)
        if lock == "none":
            assert len(servers) == 1  # the lock let exactly one event start one
        assert not (state / "signet-sdk" / "adapter-server.lock").exists()  # removed once up
    finally:
        for event in events:
            if event.poll() is None:
                event.kill()
                event.wait()
        _stop(servers, state)
