"""``signet-sdk mcp`` over stdio, driven by the official MCP client, against the mock daemon."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from signet_sdk import AdapterClient, RememberParams
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.tools import TOOLS


def _params(url: str, **env: str) -> StdioServerParameters:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    base.update(SIGNET_DAEMON_URL=url, SIGNET_PROJECT="/srv/atlas", **env)
    return StdioServerParameters(command=sys.executable, args=["-m", "signet_sdk", "mcp"], env=base)


async def _session_calls(url: str, calls: list[tuple[str, dict[str, Any]]], **env: str) -> Any:
    async with stdio_client(_params(url, **env)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        listed = await s.list_tools()
        results = [await s.call_tool(name, args) for name, args in calls]
    return listed, results


def _text(result: Any) -> str:
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


@pytest.mark.anyio
async def test_tools_listed_with_the_shared_schemas(stored_daemon: tuple[MockDaemon, str]) -> None:
    listed, _ = await _session_calls(stored_daemon[1], [])
    tools = {t.name: t for t in listed.tools}
    assert sorted(tools) == sorted(n for n, t in TOOLS.items() if not t.runs_commands)
    for name, tool in tools.items():
        ours = dict(TOOLS[name].input_schema())
        theirs = dict(tool.input_schema)
        for schema in (ours, theirs):
            schema.pop("title", None)
            schema.pop("additionalProperties", None)
        assert theirs == ours, name
        assert tool.description == TOOLS[name].description


@pytest.mark.anyio
async def test_search_and_store_through_mcp(stored_daemon: tuple[MockDaemon, str]) -> None:
    mock, url = stored_daemon
    with AdapterClient("seed", url) as client:
        client.remember(RememberParams(content="Billing deploys blue-green on Tuesdays"))
    _, (found, stored) = await _session_calls(
        url,
        [
            ("memory_search", {"query": "billing deploys"}),
            ("memory_store", {"content": "The staging database is pg-staging-2"}),
        ],
    )
    assert not found.is_error
    hits = json.loads(_text(found))
    assert hits["results"][0]["content"] == "Billing deploys blue-green on Tuesdays"
    assert not stored.is_error and json.loads(_text(stored))["status"] == "saved"
    body = json.loads([r for r in mock.requests if r.path == "/api/memory/remember"][-1].body)
    assert body == {"content": "The staging database is pg-staging-2", "project": "/srv/atlas"}


@pytest.mark.anyio
async def test_errors_are_tool_errors_not_crashes(stored_daemon: tuple[MockDaemon, str]) -> None:
    _, results = await _session_calls(
        "http://127.0.0.1:9",  # nothing listens: daemon down
        [
            ("memory_search", {"query": "anything"}),
            ("memory_get", {"id": ""}),
            ("secrets_exec", {"command": "env", "secrets": {"A": "b"}}),
            ("memory_search", {"query": "still alive"}),
        ],
    )
    down, invalid, disabled, again = results
    assert down.is_error and "cannot connect" in _text(down)
    assert invalid.is_error and "id" in _text(invalid)
    assert disabled.is_error and "secrets_exec" in _text(disabled)
    assert again.is_error and "cannot connect" in _text(again)  # the server kept serving


@pytest.mark.anyio
async def test_the_input_models_own_rules_hold_over_mcp(
    stored_daemon: tuple[MockDaemon, str],
) -> None:
    # Checks MCP's per-argument validation cannot make: whitespace stripped
    # before a length check, a rule across fields. Each is a tool error naming
    # the field, as `signet-sdk tools call` gives it, and nothing is sent.
    mock, url = stored_daemon
    before = len(mock.requests)
    _, (blank_query, blank_content, no_change) = await _session_calls(
        url,
        [
            ("memory_search", {"query": "   "}),
            ("memory_store", {"content": "   "}),
            ("memory_modify", {"id": "m1", "reason": "tidy"}),
        ],
    )
    short = "String should have at least 1 character"
    assert blank_query.is_error and f"query: memory_search: {short}" in _text(blank_query)
    assert blank_content.is_error and f"content: memory_store: {short}" in _text(blank_content)
    assert no_change.is_error and (
        "arguments: memory_modify: Value error, at least one of content, tags, importance, "
        "pinned is required"
    ) in _text(no_change)
    assert len(mock.requests) == before


@pytest.mark.anyio
async def test_an_unknown_argument_is_refused_over_mcp(
    stored_daemon: tuple[MockDaemon, str],
) -> None:
    # MCP's argument model dropped an argument it did not know, so a model's
    # misspelt `tag` or `importance_level` was stored without it and reported saved.
    mock, url = stored_daemon
    before = len(mock.requests)
    _, (extra,) = await _session_calls(url, [("memory_store", {"content": "x", "bogus": 1})])
    assert extra.is_error and "bogus" in _text(extra)
    assert len(mock.requests) == before
