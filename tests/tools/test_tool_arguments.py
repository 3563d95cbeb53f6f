"""Arguments the memory tools refuse, and daemon refusals they turn into errors naming one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from signet_sdk import AdapterClient, PayloadError
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.tools import ToolError, call_tool


@pytest.fixture
def client(stored_daemon: tuple[MockDaemon, str]) -> Iterator[AdapterClient]:
    with AdapterClient("tools-args-test", stored_daemon[1]) as c:
        yield c


def test_search_refuses_a_since_that_is_no_date(
    client: AdapterClient, stored_daemon: tuple[MockDaemon, str]
) -> None:
    mock = stored_daemon[0]
    call_tool(client, "memory_store", {"content": "Billing deploys on Tuesdays"})
    before = len(mock.requests)
    for since in ("not a date", "2025-13-01", "yesterday", "2025-01-31T25:00"):
        with pytest.raises(PayloadError) as bad:
            call_tool(client, "memory_search", {"query": "billing", "since": since})
        assert bad.value.field == "since" and "ISO 8601" in str(bad.value)
    assert len(mock.requests) == before  # nothing reached the daemon
    for since in ("2000-01-01", "2000-01-01T00:00:00Z", "2000-01-01T00:00:00.5+02:00"):
        found = call_tool(client, "memory_search", {"query": "billing", "since": since})
        assert found["count"] == 1


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("memory_store", {"content": "x"}),
        ("memory_search", {"query": "x"}),
        ("memory_modify", {"id": "m-1", "reason": "retag"}),
    ],
)
@pytest.mark.parametrize("tag", ["a,b", " ", ""])
def test_a_blank_tag_or_one_with_a_comma_is_refused(
    client: AdapterClient,
    stored_daemon: tuple[MockDaemon, str],
    tool: str,
    arguments: dict[str, str],
    tag: str,
) -> None:
    # Tags reach the daemon comma-joined: "a,b" would become two tags, " " none.
    mock = stored_daemon[0]
    before = len(mock.requests)
    with pytest.raises(PayloadError) as bad:
        call_tool(client, tool, {**arguments, "tags": ["ok", tag]})
    assert bad.value.field == "tags"
    assert len(mock.requests) == before


def test_an_unknown_id_is_an_error_naming_id(client: AdapterClient) -> None:
    calls = [
        ("memory_get", {"id": "no-such-memory"}),
        ("memory_modify", {"id": "no-such-memory", "reason": "fix", "content": "y"}),
        ("memory_forget", {"id": "no-such-memory", "reason": "obsolete"}),
    ]
    for tool, arguments in calls:
        with pytest.raises(ToolError) as caught:
            call_tool(client, tool, arguments)
        message = str(caught.value)
        assert message.startswith(f"id: {tool}: ") and "no memory with id" in message
        assert "404" not in message and "http" not in message


def test_a_forgotten_memory_is_an_error_naming_id(client: AdapterClient) -> None:
    stored = call_tool(client, "memory_store", {"content": "Redis runs on cache-1"})
    memory = stored["id"]
    call_tool(client, "memory_forget", {"id": memory, "reason": "obsolete"})
    with pytest.raises(ToolError) as again:
        call_tool(client, "memory_forget", {"id": memory, "reason": "obsolete"})
    assert str(again.value).startswith("id: memory_forget: ")
    assert "already been forgotten" in str(again.value)
    with pytest.raises(ToolError) as got:
        call_tool(client, "memory_get", {"id": memory})
    assert str(got.value).startswith("id: memory_get: ")
    with pytest.raises(ToolError) as changed:
        call_tool(client, "memory_modify", {"id": memory, "reason": "fix", "pinned": True})
    assert str(changed.value).startswith("id: memory_modify: ")
    assert "forgotten" in str(changed.value)
