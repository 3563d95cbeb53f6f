"""``signet-sdk tools list|call``: what a shell (or a shim with no server yet) gets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.tools import anthropic_tools, openai_tools, tool_definitions


def _run(*args: str, stdin: str = "", **env: str) -> tuple[int, Any]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    proc = subprocess.run(
        [sys.executable, "-m", "signet_sdk", "tools", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=60,
    )
    assert proc.stderr == "", proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_list_prints_each_rendering_of_the_one_tool_set() -> None:
    assert _run("list") == (0, tool_definitions())
    assert _run("list", "--format", "openai-chat") == (0, openai_tools("chat"))
    assert _run("list", "--format", "openai-responses") == (0, openai_tools("responses"))
    assert _run("list", "--format", "anthropic") == (0, anthropic_tools())
    code, listed = _run("list", SIGNET_TOOLS_ALLOW_EXEC="1")
    assert code == 0 and "secrets_exec" in [t["name"] for t in listed]


def test_call_stores_and_finds_with_the_context(stored_daemon: tuple[MockDaemon, str]) -> None:
    mock, url = stored_daemon
    code, stored = _run(
        "call",
        "memory_store",
        "--session-key",
        "s-7",
        "--project",
        "/srv/atlas",
        stdin=json.dumps({"content": "Atlas ships with make ship", "tags": ["deploy"]}),
        SIGNET_DAEMON_URL=url,
    )
    assert code == 0, stored
    (body,) = [json.loads(r.body) for r in mock.requests if r.path == "/api/memory/remember"]
    assert body["content"] == "Atlas ships with make ship"
    assert body["project"] == "/srv/atlas"
    memory_id = stored["result"]["id"]
    code, found = _run(
        "call", "memory_search", stdin='{"query": "make ship"}', SIGNET_DAEMON_URL=url
    )
    assert code == 0
    assert memory_id in [hit["id"] for hit in found["result"]["results"]]


def test_call_errors_are_json_with_exit_1(stored_daemon: tuple[MockDaemon, str]) -> None:
    _, url = stored_daemon
    assert _run("call", "memory_search", stdin="{}", SIGNET_DAEMON_URL=url) == (
        1,
        {"error": "query: memory_search: Field required", "field": "query"},
    )
    code, answer = _run("call", "memory_search", stdin="[1]", SIGNET_DAEMON_URL=url)
    assert (code, answer["field"]) == (1, "arguments")
    code, answer = _run("call", "memory_search", stdin="{no", SIGNET_DAEMON_URL=url)
    assert (code, answer["field"]) == (1, "arguments")
    code, answer = _run("call", "nope", stdin="{}", SIGNET_DAEMON_URL=url)
    assert code == 1 and "memory_search" in answer["error"]
    code, answer = _run("call", "secrets_exec", stdin='{"command": "true"}', SIGNET_DAEMON_URL=url)
    assert code == 1 and "disabled" in answer["error"]


def test_call_with_the_daemon_down_says_so() -> None:
    code, answer = _run(
        "call",
        "memory_search",
        stdin='{"query": "x"}',
        SIGNET_DAEMON_URL="http://127.0.0.1:9",
        SIGNET_MAX_RETRIES="0",
    )
    assert code == 1
    assert answer["error"].startswith("memory_search failed: cannot connect")


def test_call_with_arguments_nested_too_deeply_is_a_bad_argument() -> None:
    """The JSON parser recurses per level: 100 000 brackets must be a field error, not a crash."""
    assert _run(
        "call", "memory_search", stdin="[" * 100_000, SIGNET_DAEMON_URL="http://127.0.0.1:9"
    ) == (1, {"error": "arguments are nested too deeply to be read", "field": "arguments"})
