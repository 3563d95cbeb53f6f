"""Recall: ``POST /api/hooks/recall`` (§2.6) and ``POST /api/memory/recall`` (§3.8)."""

from __future__ import annotations

import time

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MemoryFilters, MockDaemon, RecallParams, recall

pytestmark = pytest.mark.anyio


@pytest.fixture
def seeded(daemon: MockDaemon) -> MockDaemon:
    store = daemon.store
    store.add_memory(
        "Postgres runs the billing database",
        tags="db,infra",
        who="alice",
        project="/src/billing",
        created_at="2026-01-10T00:00:00.000Z",
        importance=0.9,
    )
    store.add_memory(
        "Redis caches the billing sessions",
        tags="cache",
        who="bob",
        type="decision",
        created_at="2026-02-10T00:00:00.000Z",
        importance=0.4,
        pinned=True,
    )
    store.add_memory(
        "The billing dashboard is built with Svelte",
        tags="ui",
        created_at="2026-03-10T00:00:00.000Z",
    )
    store.add_memory("Billing secrets live in the vault", agent_id="alice")
    store.add_memory("Billing for project x is scoped", scope="x")
    return daemon


def contents(body: dict[str, object]) -> list[str]:
    return [r["content"] for r in body["results"]]  # type: ignore[attr-defined,index]


async def memory_recall(client: httpx.AsyncClient, **body: object) -> dict[str, object]:
    r = await client.post("/api/memory/recall", json=body)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


async def test_memory_recall_shape(client: httpx.AsyncClient, seeded: MockDaemon) -> None:
    body = await memory_recall(client, query="postgres")
    (hit,) = body["results"]  # type: ignore[misc]
    hit.pop("id")
    assert hit == {
        "content": "Postgres runs the billing database",
        "content_length": 34,
        "truncated": False,
        "score": 1.0,
        "source": "hybrid",
        "type": "fact",
        "tags": "db,infra",
        "pinned": False,
        "importance": 0.9,
        "who": "alice",
        "project": "/src/billing",
        "created_at": "2026-01-10T00:00:00.000Z",
    }
    assert body["query"] == "postgres"
    assert body["method"] == "hybrid"
    assert body["meta"] == {"totalReturned": 1, "hasSupplementary": False, "noHits": False}


async def test_memory_recall_errors(client: httpx.AsyncClient) -> None:
    for body in ({}, {"query": "   "}):
        r = await client.post("/api/memory/recall", json=body)
        assert (r.status_code, r.json()) == (400, {"error": "query is required"})
    r = await client.post("/api/memory/recall", content=b"{")
    assert (r.status_code, r.json()) == (400, {"error": "Invalid JSON body"})


async def test_filters(client: httpx.AsyncClient, seeded: MockDaemon) -> None:
    assert len(contents(await memory_recall(client, query="billing"))) == 3
    assert len(contents(await memory_recall(client, query="billing", limit=2))) == 2
    assert contents(await memory_recall(client, query="billing", type="decision")) == [
        "Redis caches the billing sessions"
    ]
    tags_any = contents(await memory_recall(client, query="billing", tags="cache, ui"))
    assert sorted(tags_any) == [
        "Redis caches the billing sessions",
        "The billing dashboard is built with Svelte",
    ]
    assert contents(await memory_recall(client, query="billing", tags="db")) == [
        "Postgres runs the billing database"
    ]
    assert contents(await memory_recall(client, query="billing", who="bob")) == [
        "Redis caches the billing sessions"
    ]
    assert contents(await memory_recall(client, query="billing", pinned=True)) == [
        "Redis caches the billing sessions"
    ]
    assert len(contents(await memory_recall(client, query="billing", importance_min=0.8))) == 2
    assert contents(await memory_recall(client, query="billing", since="2026-03-01T00:00:00Z")) == [
        "The billing dashboard is built with Svelte"
    ]
    assert contents(
        await memory_recall(client, query="billing", until="2026-01-31T00:00:00.000Z")
    ) == ["Postgres runs the billing database"]
    assert contents(await memory_recall(client, query="billing", project="/src/billing")) == [
        "Postgres runs the billing database"
    ]
    assert contents(await memory_recall(client, query="billing", scope="x")) == [
        "Billing for project x is scoped"
    ]


async def test_memories_are_per_agent(client: httpx.AsyncClient, seeded: MockDaemon) -> None:
    assert contents(await memory_recall(client, query="vault")) == []
    assert contents(await memory_recall(client, query="vault", agentId="alice")) == [
        "Billing secrets live in the vault"
    ]
    r = await client.post(
        "/api/memory/recall",
        json={"query": "vault"},
        headers={"x-signet-session-key": "agent:alice:abc"},
    )
    assert len(r.json()["results"]) == 1


async def test_short_queries_need_every_term_long_ones_any(
    client: httpx.AsyncClient, seeded: MockDaemon
) -> None:
    assert contents(await memory_recall(client, query="postgres svelte")) == []
    long_query = "postgres svelte redis kafka"
    assert len(contents(await memory_recall(client, query=long_query))) == 3


async def test_syntax_characters_cannot_break_the_query(
    client: httpx.AsyncClient, seeded: MockDaemon
) -> None:
    for query in ('"billing', "billing OR", "NOT (billing*", "billing: ^near", "-- ;"):
        r = await client.post("/api/memory/recall", json={"query": query})
        assert r.status_code == 200


async def test_hook_recall_payload(client: httpx.AsyncClient, seeded: MockDaemon) -> None:
    r = await client.post("/api/hooks/recall", json={"harness": "h", "query": "redis"})
    body = r.json()
    assert body["count"] == 1
    assert body["memories"] == body["results"]
    assert body["message"] == "Found 1 memories (hybrid). Top: Redis caches the billing sessions"
    r = await client.post("/api/hooks/recall", json={"harness": "h", "query": "zebra"})
    assert r.json() == {
        "results": [],
        "query": "zebra",
        "method": "hybrid",
        "meta": {"totalReturned": 0, "hasSupplementary": False, "noHits": True},
        "memories": [],
        "count": 0,
        "message": "No matching memories found.",
    }


async def test_hook_recall_reads_the_agent_from_the_header_only(
    client: httpx.AsyncClient, seeded: MockDaemon
) -> None:
    body = {"harness": "h", "query": "vault", "agentId": "alice"}
    assert (await client.post("/api/hooks/recall", json=body)).json()["count"] == 0
    r = await client.post("/api/hooks/recall", json=body, headers={"x-signet-agent-id": "alice"})
    assert r.json()["count"] == 1


async def test_hook_recall_ignores_pinned_and_importance(
    client: httpx.AsyncClient, seeded: MockDaemon
) -> None:
    r = await client.post(
        "/api/hooks/recall",
        json={"harness": "h", "query": "billing", "pinned": True, "importance_min": 0.95},
    )
    assert r.json()["count"] == 3


async def test_hook_recall_requires_harness_and_query(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/hooks/recall", json={"harness": "h"})
    assert (r.status_code, r.json()) == (400, {"error": "harness and query are required"})


async def test_deleted_memories_are_not_recalled(
    client: httpx.AsyncClient, seeded: MockDaemon
) -> None:
    hit = (await memory_recall(client, query="postgres"))["results"][0]  # type: ignore[index]
    await client.request("DELETE", f"/api/memory/{hit['id']}", json={"reason": "stale"})
    assert contents(await memory_recall(client, query="postgres")) == []


def test_recall_reads_only_matching_rows(daemon: MockDaemon) -> None:
    words = [f"w{i:04d}" for i in range(3000)]
    rows = [
        {"content": "shared " + " ".join(words[(i * 7 + j * 13) % 3000] for j in range(12))}
        for i in range(10_000)
    ]
    daemon.store.add_memories(rows)
    # Every statement a recall runs is driven by the FTS index; memories are
    # then fetched by primary key (no scan over an agent's memories).
    conn = daemon.store._conn
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    everything = RecallParams(query="shared", filters=MemoryFilters("default"), limit=-1)
    assert len(recall(daemon.store, everything)["results"]) == 10_000
    conn.set_trace_callback(None)
    selects = [s for s in statements if "memories_fts MATCH" in s]
    assert len(selects) == 3  # capped ranking, window count, full ranking
    for sql in selects:
        plan = [str(r[3]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql)]
        assert any("memories_fts VIRTUAL TABLE" in p for p in plan), plan
        assert not any(p in ("SCAN m", "SCAN memories") for p in plan), plan
        assert not any("idx_memories" in p for p in plan), plan
    params = [
        RecallParams(query=f"{words[i]} {words[(i * 11) % 3000]}", filters=MemoryFilters("default"))
        for i in range(100)
    ]
    started = time.perf_counter()
    for p in params:
        recall(daemon.store, p)
    per_query_ms = (time.perf_counter() - started) / len(params) * 1000
    assert per_query_ms < 50  # very generous; bench/bench_recall.py measures the 5 ms target


@pytest.mark.parametrize("path", ["/api/hooks/recall", "/api/memory/recall"])
async def test_control_characters_in_a_query_find_nothing_rather_than_fail(
    client: httpx.AsyncClient, seeded: MockDaemon, path: str
) -> None:
    """0.145.8 answers 200 and no hits for ``"a\\u0000"``; the terms around one still match."""
    body = {"harness": "x", "query": "a\x00", "limit": 3}
    r = await client.post(path, json=body)
    assert r.status_code == 200 and r.json()["results"] == []
    r = await client.post(path, json={**body, "query": "billing\x00 postgres\x1f"})
    assert r.status_code == 200
    assert [h["content"] for h in r.json()["results"]] == ["Postgres runs the billing database"]
