"""Remember: the hook proxy (§2.5) and ``POST /api/memory/remember`` (§4.1)."""

from __future__ import annotations

import uuid

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

pytestmark = pytest.mark.anyio


async def remember(client: httpx.AsyncClient, **body: object) -> httpx.Response:
    return await client.post("/api/memory/remember", json=body)


async def test_hook_requires_harness_and_content(client: httpx.AsyncClient) -> None:
    error = {"error": "harness and content are required"}
    for body in ({"content": "x"}, {"harness": "h"}, {"harness": "h", "content": ""}):
        r = await client.post("/api/hooks/remember", json=body)
        assert (r.status_code, r.json()) == (400, error)
    # Whitespace passes the hook's truthiness check, then fails downstream.
    r = await client.post("/api/hooks/remember", json={"harness": "h", "content": "   "})
    assert (r.status_code, r.json()) == (400, {"error": "content is required"})


async def test_new_row_body(client: httpx.AsyncClient, daemon: MockDaemon) -> None:
    r = await client.post(
        "/api/hooks/remember",
        json={"harness": "h", "content": "We decided to ship on Tuesdays", "type": "ignored"},
    )
    body = r.json()
    assert uuid.UUID(body.pop("id"))
    assert body == {
        "type": "decision",
        "tags": None,
        "pinned": False,
        "importance": 0.8,
        "content": "We decided to ship on Tuesdays",
        "embedded": False,
        "entities_linked": 0,
        "hints_written": 0,
        "structured": False,
    }


async def test_critical_prefix_pins_at_full_importance(client: httpx.AsyncClient) -> None:
    body = (await remember(client, content="CRITICAL: the prod DB is read-only")).json()
    assert (body["pinned"], body["importance"], body["content"]) == (
        True,
        1.0,
        "the prod DB is read-only",
    )


async def test_tag_prefix_and_body_tags(client: httpx.AsyncClient) -> None:
    body = (await remember(client, content="[Infra, DB ]: replicas lag by 2s")).json()
    assert (body["tags"], body["content"]) == ("infra,db", "replicas lag by 2s")
    body = (await remember(client, content="[a]: other text", tags=["x", " y "])).json()
    assert body["tags"] == "x,y"  # the body wins over the prefix
    body = (await remember(client, content="critical: [ops]: page on-call first")).json()
    assert (body["pinned"], body["tags"], body["content"]) == (True, "ops", "page on-call first")


async def test_tags_and_created_at_validation(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    for tags in (5, {"a": 1}, ["ok", 3]):
        r = await remember(client, content="x", tags=tags)
        assert (r.status_code, r.json()) == (
            400,
            {"error": "tags must be a string, string array, or null"},
        )
    for created in ("yesterday", None, 12):
        r = await remember(client, content="x", createdAt=created)
        assert (r.status_code, r.json()) == (
            400,
            {"error": "createdAt must be a valid ISO timestamp"},
        )
    r = await remember(client, content="dated fact", createdAt="2025-01-02T03:04:05+02:00")
    row = (await client.get(f"/api/memory/{r.json()['id']}")).json()
    assert row["created_at"] == "2025-01-02T01:04:05.000Z"


async def test_content_is_required(client: httpx.AsyncClient) -> None:
    for body in ({}, {"content": ""}, {"content": "  "}, {"content": "critical:"}):
        r = await client.post("/api/memory/remember", json=body)
        assert (r.status_code, r.json()) == (400, {"error": "content is required"})
    r = await client.post("/api/memory/remember", content=b"not json")
    assert (r.status_code, r.json()) == (400, {"error": "Invalid JSON body"})


async def test_normalized_content_hash_dedupes(client: httpx.AsyncClient) -> None:
    first = (await remember(client, content="Use  Ruff for linting", tags="py")).json()
    again = (await remember(client, content="use ruff   for LINTING")).json()
    assert again == {
        "id": first["id"],
        "type": "fact",
        "tags": "py",
        "pinned": False,
        "importance": 0.8,
        "content": "Use  Ruff for linting",
        "embedded": True,
        "deduped": True,
    }
    untagged = (await remember(client, content="plain fact")).json()
    assert (await remember(client, content="plain fact")).json()["tags"] == ""
    assert untagged["tags"] is None


async def test_dedupe_is_partitioned_by_scope(client: httpx.AsyncClient) -> None:
    a = (await remember(client, content="scoped fact")).json()
    b = (await remember(client, content="scoped fact", scope="project-x")).json()
    assert "deduped" not in b
    assert a["id"] != b["id"]
    c = (await remember(client, content="scoped fact", scope="project-x")).json()
    assert (c["id"], c["deduped"]) == (b["id"], True)


async def test_source_type_and_id_dedupe(client: httpx.AsyncClient) -> None:
    a = (await remember(client, content="v1", sourceType="doc", sourceId="readme")).json()
    b = (
        await remember(client, content="v2 different", sourceType="doc", sourceId=" readme ")
    ).json()
    assert (b["id"], b["content"], b["deduped"]) == (a["id"], "v1", True)
    c = (await remember(client, content="v3 other", sourceType="wiki", sourceId="readme")).json()
    assert "deduped" not in c


@pytest.mark.daemon(version="0.110")
async def test_transcript_is_stored_under_the_source_id(client: httpx.AsyncClient) -> None:
    await remember(
        client, content="session note", sourceId="sess-9", transcript="user: full log", agentId="a"
    )
    r = await client.get("/api/sessions/sess-9/transcript", params={"agent_id": "a"})
    assert r.json()["content"] == "user: full log"


async def test_agent_comes_from_body_then_session_key_header(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    r = await client.post(
        "/api/memory/remember",
        json={"content": "header agent fact"},
        headers={"x-signet-session-key": "agent:carol:sess-1"},
    )
    assert daemon.store.get_memory(r.json()["id"])["agent_id"] == "carol"  # type: ignore[index]
    # The hook does not forward that header: the proxied call lands in "default".
    r = await client.post(
        "/api/hooks/remember",
        json={"harness": "h", "content": "hook agent fact"},
        headers={"x-signet-session-key": "agent:carol:sess-1"},
    )
    assert daemon.store.get_memory(r.json()["id"])["agent_id"] == "default"  # type: ignore[index]


async def test_defaults_and_raw_row(client: httpx.AsyncClient) -> None:
    r = await remember(
        client, content="keep it", who="cli", project="/src/app", importance=0.3, pinned=True
    )
    row = (await client.get(f"/api/memory/{r.json()['id']}")).json()
    assert (row["who"], row["project"], row["importance"], row["pinned"]) == (
        "cli",
        "/src/app",
        0.3,
        1,
    )
    assert (row["source_type"], row["extraction_status"], row["version"]) == (
        "manual",
        "pending",
        1,
    )


async def test_long_content_is_split_into_chunks_and_a_repeat_stores_none(
    client: httpx.AsyncClient,
) -> None:
    """0.109 splits content over 800 characters into chunks of one group, leaving out
    (silently) each chunk already stored: a repeat is ``chunk_count`` 0, not a 409."""
    text = " ".join(f"Robot {n} sorts parcels in aisle {n} and reports hourly." for n in range(30))
    first = (await remember(client, content=text, sourceType="ignored")).json()
    assert first["chunked"] is True and first["chunk_count"] == len(first["ids"]) > 1
    uuid.UUID(first["group_id"])
    chunk = (await client.get(f"/api/memory/{first['ids'][0]}")).json()
    assert (chunk["source_type"], chunk["source_id"]) == ("chunk", first["group_id"])
    assert chunk["content"].startswith("Robot 0 sorts") and len(chunk["content"]) < 800
    again = (await remember(client, content=text)).json()
    assert (again["chunked"], again["chunk_count"], again["ids"]) == (True, 0, [])
    assert again["group_id"] != first["group_id"]
    # A truthy structured part keeps long content whole; a null one does not.
    whole = (await remember(client, content=text.upper(), structured={})).json()
    assert "chunked" not in whole and whole["content"] == text.upper()
    split = (await remember(client, content=text.lower(), structured=None)).json()
    assert split["chunked"] is True
