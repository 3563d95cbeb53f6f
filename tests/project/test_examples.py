"""The scripts in examples/ run, against the mock daemon on a real local socket."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def daemon_url() -> Iterator[str]:
    with MockDaemon(version="0.109").serve() as handle:  # the quickstart shows a prompt recall
        yield handle.url


def run_example(name: str, url: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    env["SIGNET_DAEMON_URL"] = url
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_quickstart_sync(daemon_url: str) -> None:
    out = run_example("quickstart_sync.py", daemon_url)
    assert "prompt inject mentions blue-green: True" in out
    assert "recall hits: ['The example service deploys blue-green']" in out
    assert "session-end did nothing: False" in out


def test_quickstart_async(daemon_url: str) -> None:
    out = run_example("quickstart_async.py", daemon_url)
    assert "sessions that got the gateway port injected: 4 of 4" in out


def test_custom_harness(daemon_url: str) -> None:
    out = run_example("custom_harness.py", daemon_url)
    assert "open -> context injected" in out
    assert (
        "bad payload fails open -> {'system': None} because PayloadError: conversation: "
        "must be a non-empty string"
    ) in out


def test_memory_tools(daemon_url: str) -> None:
    out = run_example("memory_tools.py", daemon_url)
    assert "search found it: True" in out
    assert "modified: updated version 1 -> 2" in out
    assert "forgot: deleted" in out
    assert "get after forget: not found, as expected" in out


def test_agent_chat(daemon_url: str, tmp_path: Path) -> None:
    from signet_sdk.testing.fake_openai import FakeOpenAI

    fact = "Staging runs on pg-staging-3."
    with FakeOpenAI() as model:
        model.tool_script.append(("memory_store", {"content": fact}))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SIGNET_", "OPENAI_"))}
        env.update(
            SIGNET_DAEMON_URL=daemon_url,
            OPENAI_BASE_URL=model.base_url,
            HOME=str(tmp_path),
            XDG_STATE_HOME=str(tmp_path / "state"),
        )
        proc = subprocess.run(
            [sys.executable, str(EXAMPLES / "agent_chat.py")],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
        bodies = model.chat_bodies()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello from the fake model.\nHello from the fake model.\n"
    # Session one stored the fact with a tool call; session two's first request carries it.
    assert [m["content"] for m in bodies[1]["messages"] if m["role"] == "tool"] != []
    session_two = json.dumps(bodies[2]["messages"])
    assert fact in session_two
