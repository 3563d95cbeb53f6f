"""Memory get / modify / forget, single and batch (§3.9-§3.11)."""

from __future__ import annotations

import hashlib

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

pytestmark = pytest.mark.anyio

ROW_KEYS = {
    "id",
    "content",
    "type",
    "importance",
    "tags",
    "pinned",
    "who",
    "source_id",
    "source_type",
    "project",
    "session_id",
    "confidence",
    "access_count",
    "last_accessed",
    "is_deleted",
    "deleted_at",
    "extraction_status",
    "embedding_model",
    "version",
    "created_at",
    "updated_at",
    "updated_by",
}


async def new_memory(client: httpx.AsyncClient, content: str, **extra: object) -> str:
    r = await client.post("/api/memory/remember", json={"content": content, **extra})
    return str(r.json()["id"])


async def test_get_returns_the_raw_row(client: httpx.AsyncClient) -> None:
    mid = await new_memory(client, "raw row fact", tags=["a", "b"])
    row = (await client.get(f"/api/memory/{mid}")).json()
    assert set(row) == ROW_KEYS
    assert (row["id"], row["tags"], row["pinned"], row["is_deleted"]) == (mid, "a,b", 0, 0)


async def test_get_derives_session_id_from_session_sources(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    mid = daemon.store.add_memory("from a session", source_type="session_end", source_id="s-1")
    row = (await client.get(f"/api/memory/{mid}")).json()
    assert (row["session_id"], row["sessionId"]) == (None, "s-1")


async def test_get_unknown_deleted_and_shadowed_search(client: httpx.AsyncClient) -> None:
    assert (await client.get("/api/memory/nope")).json() == {"error": "not found"}
    mid = await new_memory(client, "to be deleted")
    await client.request("DELETE", f"/api/memory/{mid}", json={"reason": "r"})
    r = await client.get(f"/api/memory/{mid}")
    assert (r.status_code, r.json()) == (404, {"error": "not found"})
    # GET /api/memory/search is served by /api/memory/:id in TS 0.109.
    r = await client.get("/api/memory/search", params={"q": "deleted"})
    assert (r.status_code, r.json()) == (404, {"error": "not found"})


async def test_patch_validation(client: httpx.AsyncClient) -> None:
    mid = await new_memory(client, "patch me")
    cases = [
        ({"content": "x"}, "reason is required"),
        ({"reason": "r"}, "at least one of content, type, tags, importance, pinned is required"),
        ({"reason": "r", "if_version": 0, "type": "x"}, "if_version must be a positive integer"),
        ({"reason": "r", "importance": 2}, "importance must be a finite number between 0 and 1"),
        ({"reason": "r", "pinned": "maybe"}, "pinned must be a boolean"),
        ({"reason": "r", "tags": 3}, "tags must be a string, string array, or null"),
        ({"reason": "r", "content": "  "}, "content must not be empty"),
        ({"reason": "r", "type": ""}, "type must be a non-empty string"),
    ]
    for body, error in cases:
        r = await client.patch(f"/api/memory/{mid}", json=body)
        assert (r.status_code, r.json()) == (400, {"error": error}), body
    r = await client.patch(f"/api/memory/{mid}", content=b"[]")
    assert (r.status_code, r.json()) == (400, {"error": "Invalid JSON body"})


async def test_patch_updates_and_versions(client: httpx.AsyncClient) -> None:
    mid = await new_memory(client, "patch me")
    r = await client.patch(
        f"/api/memory/{mid}",
        json={"reason": "fix", "content": "patched", "pinned": "true", "if_version": 1},
    )
    assert r.json() == {
        "id": mid,
        "status": "updated",
        "currentVersion": 1,
        "newVersion": 2,
        "contentChanged": True,
    }
    row = (await client.get(f"/api/memory/{mid}")).json()
    assert (row["content"], row["pinned"], row["version"], row["updated_by"]) == (
        "patched",
        1,
        2,
        "daemon",
    )
    r = await client.patch(f"/api/memory/{mid}", json={"reason": "again", "content": "patched"})
    assert r.json() == {"id": mid, "status": "no_changes", "currentVersion": 2}
    r = await client.patch(
        f"/api/memory/{mid}", json={"reason": "stale", "type": "rule", "if_version": 1}
    )
    assert (r.status_code, r.json()) == (
        409,
        {"id": mid, "status": "version_conflict", "currentVersion": 2, "error": "Version conflict"},
    )
    r = await client.patch(
        f"/api/memory/{mid}",
        json={"reason": "who", "importance": 0.5},
        headers={"x-signet-actor": "mcp-server"},
    )
    assert r.json()["contentChanged"] is False
    assert (await client.get(f"/api/memory/{mid}")).json()["updated_by"] == "mcp-server"


async def test_patch_conflicts(client: httpx.AsyncClient) -> None:
    r = await client.patch("/api/memory/ghost", json={"reason": "r", "type": "x"})
    assert (r.status_code, r.json()) == (
        404,
        {"id": "ghost", "status": "not_found", "error": "Not found"},
    )
    a = await new_memory(client, "first text")
    b = await new_memory(client, "second text")
    r = await client.patch(f"/api/memory/{b}", json={"reason": "r", "content": "First  TEXT"})
    assert (r.status_code, r.json()) == (
        409,
        {
            "id": b,
            "status": "duplicate_content_hash",
            "currentVersion": 1,
            "duplicateMemoryId": a,
            "error": "Duplicate content hash",
        },
    )
    await client.request("DELETE", f"/api/memory/{a}", json={"reason": "r"})
    r = await client.patch(f"/api/memory/{a}", json={"reason": "r", "type": "x"})
    assert (r.status_code, r.json()) == (
        409,
        {
            "id": a,
            "status": "deleted",
            "currentVersion": 2,
            "error": "Cannot modify deleted memory",
        },
    )


async def test_batch_modify(client: httpx.AsyncClient) -> None:
    mid = await new_memory(client, "batch target")
    r = await client.post(
        "/api/memory/modify",
        json={
            "reason": "bulk",
            "patches": [
                {"id": mid, "type": "rule"},
                "nope",
                {"type": "x"},
                {"id": "ghost", "type": "x"},
                {"id": mid, "if_version": -1, "type": "x"},
            ],
        },
    )
    assert r.json() == {
        "total": 5,
        "updated": 1,
        "results": [
            {
                "id": mid,
                "status": "updated",
                "currentVersion": 1,
                "newVersion": 2,
                "contentChanged": False,
            },
            {"id": None, "status": "invalid_request", "error": "Each patch must be an object"},
            {"id": None, "status": "invalid_request", "error": "Patch id is required"},
            {"id": "ghost", "status": "not_found"},
            {
                "id": mid,
                "status": "invalid_request",
                "error": "if_version must be a positive integer",
            },
        ],
    }
    r = await client.post("/api/memory/modify", json={"patches": [{"id": mid, "type": "y"}]})
    assert r.json()["results"] == [
        {"id": mid, "status": "invalid_request", "error": "reason is required"}
    ]
    r = await client.post("/api/memory/modify", json={"patches": []})
    assert (r.status_code, r.json()) == (400, {"error": "patches[] is required"})
    r = await client.post("/api/memory/modify", json={"patches": [{}] * 201})
    assert r.json() == {"error": "patches[] exceeds maximum batch size (200)"}


async def test_delete(client: httpx.AsyncClient) -> None:
    mid = await new_memory(client, "forget me")
    r = await client.request("DELETE", f"/api/memory/{mid}")
    assert (r.status_code, r.json()) == (400, {"error": "reason is required"})
    r = await client.request("DELETE", f"/api/memory/{mid}", json={"reason": "r", "force": "x"})
    assert r.json() == {"error": "force must be a boolean"}
    r = await client.request("DELETE", f"/api/memory/{mid}?reason=r&if_version=abc")
    assert r.json() == {"error": "if_version must be a positive integer"}
    r = await client.request("DELETE", f"/api/memory/{mid}?reason=r&if_version=3")
    assert (r.status_code, r.json()) == (
        409,
        {"id": mid, "status": "version_conflict", "currentVersion": 1, "error": "Version conflict"},
    )
    r = await client.request("DELETE", f"/api/memory/{mid}?reason=stale")
    assert r.json() == {"id": mid, "status": "deleted", "currentVersion": 1, "newVersion": 2}
    r = await client.request("DELETE", f"/api/memory/{mid}", json={"reason": "again"})
    assert (r.status_code, r.json()) == (
        409,
        {"id": mid, "status": "already_deleted", "currentVersion": 2},
    )
    r = await client.request("DELETE", "/api/memory/ghost", json={"reason": "r"})
    assert (r.status_code, r.json()) == (
        404,
        {"id": "ghost", "status": "not_found", "error": "Not found"},
    )


async def test_delete_pinned_needs_force(client: httpx.AsyncClient) -> None:
    mid = await new_memory(client, "critical: keep me")
    r = await client.request("DELETE", f"/api/memory/{mid}", json={"reason": "r"})
    assert (r.status_code, r.json()) == (
        409,
        {
            "id": mid,
            "status": "pinned_requires_force",
            "currentVersion": 1,
            "error": "Pinned memories require force=true",
        },
    )
    r = await client.request(
        "DELETE",
        f"/api/memory/{mid}",
        json={"reason": "r", "force": True},
        headers={"x-signet-actor-type": "pipeline"},
    )
    assert (r.status_code, r.json()) == (
        403,
        {
            "id": mid,
            "status": "autonomous_force_denied",
            "currentVersion": 1,
            "error": "Autonomous agents cannot force-delete pinned memories",
        },
    )
    r = await client.request("DELETE", f"/api/memory/{mid}?reason=r&force=true")
    assert r.json()["status"] == "deleted"


async def test_batch_forget_preview_and_execute(client: httpx.AsyncClient) -> None:
    ids = [await new_memory(client, f"sprint note {i}", tags="sprint") for i in range(3)]
    r = await client.post("/api/memory/forget", json={})
    assert (r.status_code, r.json()) == (
        400,
        {
            "error": "query, ids, or at least one filter "
            "(type/tags/who/source_type/since/until) is required"
        },
    )
    preview = (
        await client.post("/api/memory/forget", json={"ids": [ids[2], ids[0], ids[0]]})
    ).json()
    expected_token = hashlib.sha256("|".join(sorted([ids[0], ids[2]])).encode()).hexdigest()[:32]
    assert preview == {
        "mode": "preview",
        "count": 2,
        "requiresConfirm": False,
        "confirmToken": expected_token,
        "candidates": [
            {"id": ids[2], "score": 0, "pinned": False, "version": 1},
            {"id": ids[0], "score": 0, "pinned": False, "version": 1},
        ],
    }
    by_query = (await client.post("/api/memory/forget", json={"query": "sprint"})).json()
    assert by_query["count"] == 3
    assert all(0 < c["score"] <= 1 for c in by_query["candidates"])
    r = await client.post("/api/memory/forget", json={"mode": "execute", "tags": "sprint"})
    assert (r.status_code, r.json()) == (400, {"error": "reason is required for execute mode"})
    r = await client.post(
        "/api/memory/forget",
        json={"mode": "execute", "tags": "sprint", "reason": "r", "if_version": 1},
    )
    assert r.status_code == 400
    r = await client.post(
        "/api/memory/forget", json={"mode": "execute", "tags": "sprint", "reason": "done"}
    )
    body = r.json()
    assert (body["mode"], body["requested"], body["deleted"]) == ("execute", 3, 3)
    assert {x["status"] for x in body["results"]} == {"deleted"}
    r = await client.post("/api/memory/forget", json={"mode": "purge", "ids": ids})
    assert r.json() == {"error": "mode must be preview or execute"}


async def test_large_batch_forget_needs_the_confirm_token(client: httpx.AsyncClient) -> None:
    ids = [await new_memory(client, f"bulk item {i}", who="importer") for i in range(30)]
    preview = (
        await client.post("/api/memory/forget", json={"who": "importer", "limit": 50})
    ).json()
    assert (preview["count"], preview["requiresConfirm"]) == (30, True)
    assert (
        preview["confirmToken"] == hashlib.sha256("|".join(sorted(ids)).encode()).hexdigest()[:32]
    )
    execute = {"mode": "execute", "who": "importer", "limit": 50, "reason": "cleanup"}
    r = await client.post("/api/memory/forget", json=execute)
    assert (r.status_code, r.json()) == (
        400,
        {
            "error": "confirm_token is required for large forget operations; run preview first",
            "requiresConfirm": True,
            "confirmToken": preview["confirmToken"],
            "count": 30,
        },
    )
    r = await client.post(
        "/api/memory/forget", json={**execute, "confirm_token": preview["confirmToken"]}
    )
    assert r.json()["deleted"] == 30
