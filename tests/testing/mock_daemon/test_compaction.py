"""Pre-compaction, compaction-complete, summaries and synthesis (§2.7-§2.11, §3.5-§3.6)."""

from __future__ import annotations

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

pytestmark = pytest.mark.anyio

T0_MS = 1_777_550_400_000


async def test_pre_compaction_prompt_includes_recent_memories(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/hooks/pre-compaction", json={})
    assert (r.status_code, r.json()) == (400, {"error": "harness is required"})
    for i in range(7):
        await client.post("/api/memory/remember", json={"content": f"recent fact number {i}"})
    body = (await client.post("/api/hooks/pre-compaction", json={"harness": "h"})).json()
    assert set(body) == {"summaryPrompt", "guidelines"}
    assert body["guidelines"] in body["summaryPrompt"]
    listed = [i for i in range(7) if f"- recent fact number {i}\n" in body["summaryPrompt"]]
    assert len(listed) == 5


async def test_compaction_complete_stores_a_summary_memory(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    r = await client.post("/api/hooks/compaction-complete", json={"harness": "h"})
    assert (r.status_code, r.json()) == (400, {"error": "harness and summary are required"})
    r = await client.post(
        "/api/hooks/compaction-complete",
        json={
            "harness": "claude-code",
            "sessionKey": "s1",
            "summary": "Refactored billing; next: tests",
            "project": "/src/app",
        },
    )
    body = r.json()
    assert set(body) == {"success", "memoryId"}
    assert body["success"] is True
    row = (await client.get(f"/api/memory/{body['memoryId']}")).json()
    assert row["content"] == "Refactored billing; next: tests"
    assert (row["type"], row["importance"], row["who"]) == ("session_summary", 0.8, "system")
    assert (row["tags"], row["source_type"], row["source_id"]) == (
        "session,summary,claude-code",
        "claude-code",
        "s1",
    )
    assert (row["project"], row["updated_by"]) == ("/src/app", "system")


@pytest.mark.parametrize(
    "extra",
    [{"sessionKey": "test-123"}, {"project": "/tmp/x"}, {"harness": "test"}],
)
async def test_noise_sessions_store_nothing(
    client: httpx.AsyncClient, daemon: MockDaemon, extra: dict[str, str]
) -> None:
    body = {"harness": "claude-code", "summary": "noise", **extra}
    r = await client.post("/api/hooks/compaction-complete", json=body)
    assert r.json() == {"success": True, "memoryId": None}
    assert daemon.store.count_memories() == 0


async def test_summaries_list_and_expand(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/api/hooks/compaction-complete",
        json={"harness": "codex", "sessionKey": "s1", "summary": "x" * 10, "project": "/p"},
    )
    memory_id = r.json()["memoryId"]
    node_id = f"s1:compaction:{T0_MS}"
    listing = (await client.get("/api/sessions/summaries")).json()
    assert listing == {
        "summaries": [
            {
                "id": node_id,
                "project": "/p",
                "depth": 0,
                "kind": "session",
                "content": "x" * 10,
                "token_count": 3,
                "earliest_at": "2026-04-30T12:00:00.000Z",
                "latest_at": "2026-04-30T12:00:00.000Z",
                "session_key": "s1",
                "harness": "codex",
                "agent_id": "default",
                "source_type": "compaction",
                "source_ref": "s1",
                "meta_json": '{"source":"compaction-complete"}',
                "created_at": "2026-04-30T12:00:00.000Z",
                "childCount": 0,
            }
        ],
        "total": 1,
    }
    assert (await client.get("/api/sessions/summaries?project=/other")).json() == {
        "summaries": [],
        "total": 0,
    }
    assert (await client.get("/api/sessions/summaries?agentId=bob")).json()["total"] == 0
    r = await client.get("/api/sessions/summaries?depth=-1")
    assert (r.status_code, r.json()) == (400, {"error": "depth must be a non-negative integer"})
    assert (await client.get("/api/sessions/summaries?depth=0&limit=0")).json() == {
        "summaries": [],
        "total": 1,
    }

    expanded = (await client.post("/api/sessions/summaries/expand", json={"id": node_id})).json()
    assert expanded["node"] == {
        "id": node_id,
        "project": "/p",
        "depth": 0,
        "kind": "session",
        "content": "x" * 10,
        "tokenCount": 3,
        "earliestAt": "2026-04-30T12:00:00.000Z",
        "latestAt": "2026-04-30T12:00:00.000Z",
        "sessionKey": "s1",
        "harness": "codex",
        "agentId": "default",
        "sourceType": "compaction",
        "sourceRef": "s1",
        "metaJson": '{"source":"compaction-complete"}',
        "createdAt": "2026-04-30T12:00:00.000Z",
    }
    assert (expanded["parents"], expanded["children"]) == ([], [])
    assert expanded["linkedMemories"] == [
        {
            "id": memory_id,
            "content": "x" * 10,
            "type": "session_summary",
            "createdAt": "2026-04-30T12:00:00.000Z",
            "deleted": False,
        }
    ]
    assert "transcript" not in expanded  # compaction deleted it


async def test_expand_errors(client: httpx.AsyncClient) -> None:
    for body in ({}, {"id": "  "}, {"id": 5}):
        r = await client.post("/api/sessions/summaries/expand", json=body)
        assert (r.status_code, r.json()) == (400, {"error": "id is required"})
    r = await client.post("/api/sessions/summaries/expand", json={"id": "nope"})
    assert (r.status_code, r.json()) == (404, {"error": "summary node not found"})


@pytest.mark.daemon(synthesis_provider="claude-code")
async def test_synthesis_routes(client: httpx.AsyncClient) -> None:
    config = (await client.get("/api/hooks/synthesis/config")).json()
    assert {"enabled", "provider", "model", "timeout", "maxTokens", "idleGapMinutes"} <= set(config)
    assert (config["enabled"], config["provider"]) == (True, "claude-code")
    await client.post("/api/memory/remember", json={"content": "critical: always run tests"})
    await client.post("/api/memory/remember", json={"content": "likes green tea"})
    r = await client.post("/api/hooks/synthesis", json={"trigger": "manual"})
    body = r.json()
    assert (body["harness"], body["model"], body["fileCount"]) == ("daemon", "projection", 1)
    assert "- always run tests" in body["prompt"]
    assert "- likes green tea" in body["prompt"]
    r = await client.post("/api/hooks/synthesis", content=b"")
    assert (r.status_code, r.json()) == (500, {"error": "Synthesis request failed"})
    r = await client.post("/api/hooks/synthesis/complete", json={"content": ""})
    assert (r.status_code, r.json()) == (400, {"error": "content is required"})
    r = await client.post(
        "/api/hooks/synthesis/complete",
        json={"content": "# MEMORY"},
        headers={"x-signet-agent-id": "alice"},
    )
    assert r.json() == {"success": True}
    r = await client.post("/api/hooks/session-start", json={"harness": "h", "agentId": "alice"})
    assert r.json()["recentContext"] == "# MEMORY"


async def test_without_a_synthesis_worker_complete_is_503(client: httpx.AsyncClient) -> None:
    # TS 0.109 starts no synthesis worker when synthesis is off: the config says
    # so, the render route still answers, and saving MEMORY.md is refused.
    config = (await client.get("/api/hooks/synthesis/config")).json()
    assert (config["enabled"], config["provider"]) == (False, "none")
    assert (await client.post("/api/hooks/synthesis", json={})).status_code == 200
    r = await client.post("/api/hooks/synthesis/complete", json={"content": ""})
    assert (r.status_code, r.json()) == (400, {"error": "content is required"})
    r = await client.post("/api/hooks/synthesis/complete", json={"content": "# MEMORY"})
    assert (r.status_code, r.json()) == (503, {"error": "Synthesis worker not running"})
    r = await client.post("/api/hooks/session-start", json={"harness": "h"})
    assert "recentContext" not in r.json()


async def test_a_stopped_pipeline_runs_no_synthesis_worker() -> None:
    daemon = MockDaemon(version="0.109", synthesis_provider="ollama", pipeline_enabled=False)
    transport = httpx.ASGITransport(app=daemon)
    async with httpx.AsyncClient(transport=transport, base_url="http://d") as client:
        config = (await client.get("/api/hooks/synthesis/config")).json()
        assert (config["enabled"], config["provider"]) == (True, "ollama")
        r = await client.post("/api/hooks/synthesis/complete", json={"content": "# MEMORY"})
        assert (r.status_code, r.json()) == (503, {"error": "Synthesis worker not running"})
    daemon.close()


def test_unknown_synthesis_providers_are_rejected() -> None:
    with pytest.raises(ValueError, match="synthesis provider"):
        MockDaemon(synthesis_provider="gpt")
