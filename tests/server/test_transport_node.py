"""The JavaScript shim transport against the real server and the real hook command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from signet_sdk import RememberParams, create_adapter
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
    mock = MockDaemon(db_path=tmp_path / "d.sqlite3")
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
    proc = subprocess.Popen(
        [SDK, "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None and "listening" in proc.stdout.readline()
        # Found through the state file the server wrote.
        out = _node_send(env, "claude-code", "UserPromptSubmit", PROMPT)
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert isinstance(out, dict)
    assert "we deploy on Tuesdays" in out["hookSpecificOutput"]["additionalContext"]


def test_through_the_hook_process_when_no_server_runs(tmp_path: Path, daemon: str) -> None:
    env = _env(
        tmp_path, SIGNET_DAEMON_URL=daemon, SIGNET_SDK_COMMAND=SDK, SIGNET_ADAPTER_AUTOSTART="0"
    )
    out = _node_send(env, "claude-code", "UserPromptSubmit", PROMPT)
    assert isinstance(out, dict)
    assert "we deploy on Tuesdays" in out["hookSpecificOutput"]["additionalContext"]
