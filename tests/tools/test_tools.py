"""The memory tool set against the mock daemon: what the daemon receives, what the model gets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from signet_sdk import AdapterClient, AsyncAdapterClient, PayloadError
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.tools import (
    TOOLS,
    ToolContext,
    ToolDisabledError,
    ToolError,
    UnknownToolError,
    anthropic_tools,
    call_tool,
    call_tool_async,
    openai_tools,
)
from signet_sdk.tools.inputs import MAX_CONTENT_CHARS
from signet_sdk.wire.errors import NotSentError, status_error

RECORD = {
    "objective": "Implement the dedup engine for decisions",
    "actions_taken": ["Read ARCHITECTURE.md", "Implemented a SHA-256 hash check"],
    "decisions_made": ["Use hash-only dedup for patterns"],
    "open_items": ["Add an integration test for the manual_review path"],
    "next_actions": ["Write tests for the dedup engine", "Review WriteEngine retry logic"],
    "save_scope": "project",
}


@pytest.fixture
def client(stored_daemon: tuple[MockDaemon, str]) -> Iterator[AdapterClient]:
    with AdapterClient("tools-test", stored_daemon[1]) as c:
        yield c


CTX = ToolContext(session_key="s-1", project="/srv/atlas", agent_id="default")


def _bodies(mock: MockDaemon, path: str) -> list[Any]:
    return [json.loads(r.body) for r in mock.requests if r.path == path]


def test_renderings_come_from_one_source() -> None:
    names = [t.name for t in TOOLS.values() if not t.runs_commands]
    chat = openai_tools("chat")
    flat = openai_tools("responses")
    claude = anthropic_tools()
    assert [t["function"]["name"] for t in chat] == names
    assert [t["name"] for t in flat] == names == [t["name"] for t in claude]
    for tool, c, f, a in zip((TOOLS[n] for n in names), chat, flat, claude, strict=True):
        schema = tool.input_model.model_json_schema()
        assert c["function"]["parameters"] == f["parameters"] == a["input_schema"] == schema
        assert c["function"]["description"] == f["description"] == a["description"]
        assert f["type"] == c["type"] == "function"
    assert "secrets_exec" in [t["name"] for t in anthropic_tools(allow_commands=True)]


def test_store_then_search(client: AdapterClient, stored_daemon: tuple[MockDaemon, str]) -> None:
    mock = stored_daemon[0]
    stored = call_tool(
        client,
        "memory_store",
        {"content": "Billing deploys blue-green on Tuesdays", "tags": ["deploy"]},
        context=CTX,
    )
    assert stored["status"] == "saved" and stored["dedup_outcome"] == "new"
    assert _bodies(mock, "/api/memory/remember") == [
        {
            "content": "Billing deploys blue-green on Tuesdays",
            "tags": ["deploy"],
            "project": "/srv/atlas",
            "agentId": "default",
        }
    ]
    again = call_tool(client, "memory_store", {"content": "Billing deploys blue-green on Tuesdays"})
    assert again["dedup_outcome"] == "duplicate_skip" and again["id"] == stored["id"]
    found = call_tool(client, "memory_search", {"query": "billing deploys", "limit": 3})
    assert found["count"] == 1
    assert found["results"][0]["id"] == stored["id"]
    assert _bodies(mock, "/api/memory/recall")[-1] == {"query": "billing deploys", "limit": 3}


def test_get_modify_forget(client: AdapterClient) -> None:
    stored = call_tool(client, "memory_store", {"content": "Staging runs on pg-staging-2"})
    got = call_tool(client, "memory_get", {"id": stored["id"]})
    assert got["content"] == "Staging runs on pg-staging-2"
    changed = call_tool(
        client,
        "memory_modify",
        {"id": stored["id"], "content": "Staging runs on pg-staging-3", "reason": "migrated"},
    )
    assert changed["status"] == "updated"
    assert call_tool(client, "memory_get", {"id": stored["id"]})["content"].endswith("staging-3")
    gone = call_tool(client, "memory_forget", {"id": stored["id"], "reason": "obsolete"})
    assert gone["id"] == stored["id"]


def test_session_record_round_trip(client: AdapterClient) -> None:
    saved = call_tool(client, "session_save", {"session": RECORD, "project_id": "atlas"})
    assert saved["status"] == "saved"
    for words in ("dedup engine", "ARCHITECTURE", "hash-only", "manual_review", "WriteEngine"):
        hits = call_tool(client, "memory_search", {"query": words})
        assert saved["id"] in [h["id"] for h in hits["results"]], words
    got = call_tool(client, "memory_get", {"id": saved["id"]})
    assert got["session_record"] == {"session": RECORD, "project_id": "atlas"}
    again = call_tool(client, "session_save", {"session": RECORD, "project_id": "atlas"})
    assert again["dedup_outcome"] == "duplicate_skip"


def test_session_save_with_learnings(client: AdapterClient) -> None:
    args = {
        "session": RECORD,
        "decisions": ["Jaccard threshold 0.70 for supersede"],
        "patterns": ["Hash first, then similarity"],
        "project_id": "atlas",
    }
    first = call_tool(client, "session_save_with_learnings", args)
    assert first["overall"] == "saved"
    assert first["session"]["dedup_outcome"] == "new"
    assert [d["dedup_outcome"] for d in first["decisions"]] == ["new"]
    assert [p["dedup_outcome"] for p in first["patterns"]] == ["new"]
    second = call_tool(client, "session_save_with_learnings", args)
    assert second["session"]["dedup_outcome"] == "duplicate_skip"
    assert second["decisions"][0]["id"] == first["decisions"][0]["id"]


class _FailingFirst:
    """A client whose first remember fails: the rest must still be tried."""

    def __init__(self, real: AdapterClient) -> None:
        self.real = real
        self.calls = 0

    def memory_remember(self, request: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            # What the client raises for the daemon's 500 (an InternalServerError).
            raise status_error(
                method="POST",
                url="http://127.0.0.1:3850/api/memory/remember",
                status_code=500,
                body={"error": "Failed to save memory"},
                headers={},
            )
        return self.real.memory_remember(request)


def test_failed_session_save_does_not_stop_the_rest(client: AdapterClient) -> None:
    flaky = _FailingFirst(client)
    out = call_tool(
        flaky,  # type: ignore[arg-type]
        "session_save_with_learnings",
        {"session": RECORD, "decisions": ["A"], "patterns": ["B"], "project_id": "atlas"},
    )
    assert out["session"]["status"] == "failed" and "500" in out["session"]["error"]
    assert [d["status"] for d in out["decisions"]] == ["saved"]
    assert [p["status"] for p in out["patterns"]] == ["saved"]
    assert out["overall"] == "partial" and flaky.calls == 3


class _Unreachable:
    """A client whose daemon cannot be reached: every remember is an APIConnectionError."""

    def __init__(self) -> None:
        self.calls = 0

    def memory_remember(self, request: Any) -> Any:
        self.calls += 1
        raise NotSentError(
            "cannot connect", method="POST", url="http://127.0.0.1:9/api/memory/remember"
        )


def test_a_save_that_saves_nothing_is_an_error_and_stops_at_an_unreachable_daemon() -> None:
    down = _Unreachable()
    with pytest.raises(NotSentError):
        call_tool(
            down,  # type: ignore[arg-type]
            "session_save_with_learnings",
            {
                "session": RECORD,
                "decisions": [f"D{i}" for i in range(50)],
                "patterns": ["P"],
                "project_id": "atlas",
            },
        )
    assert down.calls == 1  # one try: the other 51 would each wait out a deadline


class _ReachableThenGone(_FailingFirst):
    """Saves the record, then the daemon goes away."""

    def memory_remember(self, request: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            return self.real.memory_remember(request)
        raise NotSentError("cannot connect", method="POST", url="http://127.0.0.1:9/x")


def test_items_after_the_daemon_went_away_are_failed_without_a_try(
    client: AdapterClient,
) -> None:
    gone = _ReachableThenGone(client)
    out = call_tool(
        gone,  # type: ignore[arg-type]
        "session_save_with_learnings",
        {"session": RECORD, "decisions": ["A", "B"], "patterns": ["C"], "project_id": "atlas"},
    )
    assert out["session"]["status"] == "saved"
    assert [d["status"] for d in out["decisions"]] == ["failed", "failed"]
    assert out["decisions"][1]["error"].startswith("not tried: ")
    assert [p["status"] for p in out["patterns"]] == ["failed"]
    assert out["overall"] == "partial" and gone.calls == 2


def test_bad_input(client: AdapterClient, stored_daemon: tuple[MockDaemon, str]) -> None:
    mock = stored_daemon[0]
    before = len(mock.requests)
    with pytest.raises(PayloadError) as bad:
        call_tool(client, "memory_search", {"query": "x", "limit": 500})
    assert bad.value.field == "limit"
    with pytest.raises(PayloadError) as extra:
        call_tool(client, "memory_store", {"content": "x", "colour": "red"})
    assert extra.value.field == "colour"
    with pytest.raises(PayloadError) as big:
        call_tool(client, "memory_store", {"content": "x" * (MAX_CONTENT_CHARS + 1)})
    assert big.value.field == "content"
    with pytest.raises(PayloadError) as nested:
        call_tool(client, "session_save", {"session": {"objective": ""}, "project_id": "p"})
    assert nested.value.field == "session.objective"
    with pytest.raises(UnknownToolError) as unknown:
        call_tool(client, "memory_delete", {})
    assert "memory_forget" in str(unknown.value) and "secrets_exec" not in str(unknown.value)
    with pytest.raises(ToolDisabledError):
        call_tool(client, "secrets_exec", {"command": "env", "secrets": {"A": "a"}})
    assert len(mock.requests) == before  # nothing reached the daemon


def test_secrets_exec_when_enabled(
    client: AdapterClient, stored_daemon: tuple[MockDaemon, str]
) -> None:
    stored_daemon[0].set_secret("DEPLOY_KEY", "sk-live-1234")
    out = call_tool(
        client,
        "secrets_exec",
        {"command": "printenv KEY", "secrets": {"KEY": "DEPLOY_KEY"}},
        allow_commands=True,
    )
    assert out["code"] == 0
    assert "sk-live-1234" not in out["stdout"] and out["stdout"].strip()
    assert _bodies(stored_daemon[0], "/api/secrets/exec") == [
        {"command": "printenv KEY", "secrets": {"KEY": "DEPLOY_KEY"}}
    ]


@pytest.mark.anyio
async def test_async_executor(tmp_path: Path) -> None:
    mock = MockDaemon(db_path=tmp_path / "a.sqlite3")
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=mock))
    async with AsyncAdapterClient("tools-async", "http://127.0.0.1:3850", http_client=http) as c:
        saved = await call_tool_async(c, "session_save", {"session": RECORD, "project_id": "p"})
        got = await call_tool_async(c, "memory_get", {"id": saved["id"]})
    assert got["session_record"]["session"] == RECORD
    mock.close()


def test_forgetting_a_pinned_memory_says_to_unpin_it(client: AdapterClient) -> None:
    # The daemon's "Pinned memories require force=true" names an argument the tool does not have.
    stored = call_tool(
        client, "memory_store", {"content": "Kafka runs on 3 brokers", "pinned": True}
    )
    with pytest.raises(ToolError) as caught:
        call_tool(client, "memory_forget", {"id": stored["id"], "reason": "obsolete"})
    message = str(caught.value)
    assert "pinned" in message and "memory_modify" in message and "force" not in message
    call_tool(client, "memory_modify", {"id": stored["id"], "reason": "unpin", "pinned": False})
    assert (
        call_tool(client, "memory_forget", {"id": stored["id"], "reason": "obsolete"})["status"]
        == "deleted"
    )
