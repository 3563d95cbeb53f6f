"""McpTools: our own MCP server (``signet-sdk mcp``) over stdio, against the mock daemon."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from signet_sdk import AdapterClient, SignetError
from signet_sdk.agent.tools import CallContext, McpServerError, McpTools, ToolRegistry
from signet_sdk.agent.types import ToolCall, ToolResult
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.tools import TOOLS
from signet_sdk.tools.mcp import MCP_HINT

from ...daemon_support import only_memory_stored

SERVER = [sys.executable, "-m", "signet_sdk", "mcp"]
MEMORY = sorted(n for n, t in TOOLS.items() if not t.runs_commands)


def _env(url: str) -> dict[str, str]:
    return {"SIGNET_DAEMON_URL": url, "SIGNET_PROJECT": "/srv/atlas", "SIGNET_AGENT_ID": "ops"}


def _children() -> dict[int, str]:
    """This process's child processes: pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # the process ended while being read
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid():
            found[int(entry.name)] = cmdline
    return found


def _without_mcp_wrapping(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema less the two keys the MCP server words its own way (title, extra fields)."""
    return {k: v for k, v in schema.items() if k not in ("title", "additionalProperties")}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc for the child")
def test_tools_listed_called_and_the_server_stopped(stored_daemon: tuple[MockDaemon, str]) -> None:
    mock, url = stored_daemon
    before = _children()
    with McpTools(SERVER, env=_env(url)) as mcp:
        started = [
            pid for pid, cmd in _children().items() if pid not in before and "signet_sdk mcp" in cmd
        ]
        assert len(started) == 1

        assert sorted(t.name for t in mcp.tools) == MEMORY
        for listed in mcp.tools:
            definition = TOOLS[listed.name]
            assert listed.description == definition.description
            ours = definition.input_schema()
            assert listed.input_schema["title"] == f"{listed.name}Arguments"
            assert _without_mcp_wrapping(dict(listed.input_schema)) == _without_mcp_wrapping(ours)

        registry = ToolRegistry(mcp.tools, memory=False)
        call = ToolCall("c1", "memory_store", {"content": "The staging database is pg-staging-2"})
        result = registry.run(call, CallContext())
        body = {"content": call.arguments["content"], "project": "/srv/atlas", "agentId": "ops"}
        memory_id = only_memory_stored(mock, body)
        assert not result.is_error
        assert json.loads(result.content) == {
            "status": "saved",
            "id": memory_id,
            "dedup_outcome": "new",
        }
        with AdapterClient("check", url) as client:
            assert client.get_memory(memory_id).content == "The staging database is pg-staging-2"

    assert not [pid for pid in started if Path(f"/proc/{pid}").exists()]
    assert registry.run(call, CallContext()) == ToolResult(
        "c1",
        "memory_store",
        "memory_store cannot run: the MCP server is not running",
        is_error=True,
    )


@pytest.mark.anyio
async def test_async_sessions_share_the_server_and_errors_are_error_results(
    stored_daemon: tuple[MockDaemon, str],
) -> None:
    mock, url = stored_daemon
    async with McpTools(" ".join(SERVER), env=_env(url), prefix="signet_") as mcp:
        assert sorted(t.name for t in mcp.tools) == [f"signet_{n}" for n in MEMORY]
        assert {t.remote_name for t in mcp.tools} == set(MEMORY)
        registry = ToolRegistry(mcp.tools, memory=False)
        stored = await registry.arun(
            ToolCall("c1", "signet_memory_store", {"content": "Billing deploys on Tuesdays"}),
            CallContext(),
        )
        assert not stored.is_error
        memory_id = json.loads(stored.content)["id"]

        # The same object serves a sync call while the async session holds it.
        found = registry.run(
            ToolCall("c2", "signet_memory_search", {"query": "billing deploys"}), CallContext()
        )
        assert [hit["id"] for hit in json.loads(found.content)["results"]] == [memory_id]

        invalid = await registry.arun(
            ToolCall("c3", "signet_memory_get", {"id": ""}), CallContext()
        )
        assert invalid.is_error and invalid.call_id == "c3"
        assert "String should have at least 1 character" in invalid.content
        missing = await registry.arun(
            ToolCall("c4", "signet_memory_get", {"id": "no-such-memory"}), CallContext()
        )
        with AdapterClient("check", url) as client, pytest.raises(SignetError):
            client.get_memory("no-such-memory")  # the daemon's 404
        assert missing.is_error
        # The server's own words, after the prefix the mcp package puts on a tool error.
        assert missing.content.endswith(
            ": memory_get failed: id: memory_get: no memory with id 'no-such-memory' "
            "(never stored, or forgotten)"
        )
    assert len(mock.requests_to("/api/memory/remember")) == 1


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc for the child")
def test_a_server_that_does_not_start_is_a_clear_error_and_leaves_no_process() -> None:
    before = _children()
    with pytest.raises(McpServerError) as exited:
        McpTools([sys.executable, "-c", "pass"], timeout=20).start()
    assert str(exited.value) == (
        f"MCP server '{sys.executable} -c pass' did not start: MCPError: Connection closed"
    )
    with pytest.raises(McpServerError) as silent:
        McpTools([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5).start()
    assert str(silent.value).endswith("did not start: no answer within 0.5s")
    left = [pid for pid, cmd in _children().items() if pid not in before and " -c " in cmd]
    assert left == []
    with pytest.raises(McpServerError, match="did not start: FileNotFoundError: "):
        McpTools(["/nonexistent/mcp-server"]).start()


def test_tools_before_start_and_a_second_start_are_refused() -> None:
    mcp = McpTools(SERVER)
    with pytest.raises(RuntimeError, match="not started: use it in a with block"):
        _ = mcp.tools
    mcp.close()  # closing what never started is a no-op
    with pytest.raises(ValueError, match="command is empty"):
        McpTools([])


def test_without_the_mcp_extra_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "mcp.client.stdio", None)
    with pytest.raises(ImportError) as raised:
        McpTools(SERVER)
    assert str(raised.value) == f"McpTools: {MCP_HINT}"
    assert "pip install 'signetai-sdk[mcp]'" in str(raised.value)
