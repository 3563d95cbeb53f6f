"""Per-session bypass (§3.7) and the bypass / ``x-signet-no-hooks`` no-op bodies (§1.7)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

pytestmark = pytest.mark.anyio

PLUGIN = {"x-signet-runtime-path": "plugin"}
NO_HOOKS = {"x-signet-no-hooks": "1"}
EMPTY_RECALL = {
    "results": [],
    "memories": [],
    "count": 0,
    "method": "hybrid",
    "meta": {"totalReturned": 0, "hasSupplementary": False, "noHits": True},
    "message": "No matching memories found.",
}


async def claim(client: httpx.AsyncClient, key: str = "s1") -> None:
    r = await client.post(
        "/api/hooks/session-start", json={"harness": "h", "sessionKey": key}, headers=PLUGIN
    )
    assert r.status_code == 200


async def test_bypass_checks_session_first_then_body(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/sessions/nope/bypass", content=b"{bad")
    assert (r.status_code, r.json()) == (404, {"error": "Session not found"})
    await claim(client)
    for body in (b"", b"{bad", b"[]", b'{"enabled":"true"}', b'{"enabled":1}', b"{}"):
        r = await client.post("/api/sessions/s1/bypass", content=body)
        assert (r.status_code, r.json()) == (400, {"error": "enabled (boolean) is required"})
    r = await client.post("/api/sessions/session:s1/bypass", json={"enabled": True})
    assert (r.status_code, r.json()) == (200, {"key": "s1", "bypassed": True})
    assert (await client.get("/api/sessions/s1")).json()["bypassed"] is True
    r = await client.post("/api/sessions/s1/bypass", json={"enabled": False})
    assert r.json() == {"key": "s1", "bypassed": False}


async def test_bypass_is_agent_scoped_and_works_for_presence_only_sessions(
    client: httpx.AsyncClient,
) -> None:
    await client.post(
        "/api/hooks/session-start", json={"harness": "h", "sessionKey": "p1", "agentId": "alice"}
    )
    r = await client.post("/api/sessions/p1/bypass", json={"enabled": True})
    assert r.status_code == 404
    r = await client.post("/api/sessions/p1/bypass?agent_id=alice", json={"enabled": True})
    assert r.json() == {"key": "p1", "bypassed": True}


async def test_bypass_expires_after_four_hours(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    await claim(client)
    await client.post("/api/sessions/s1/bypass", json={"enabled": True})
    daemon.advance(3 * 3600)
    r = await client.post(
        "/api/hooks/user-prompt-submit",
        json={"harness": "h", "sessionKey": "s1", "userMessage": "x"},
    )
    assert r.json() == {"inject": "", "memoryCount": 0, "bypassed": True}
    daemon.advance(3600 + 1)
    r = await client.post(
        "/api/hooks/user-prompt-submit",
        json={"harness": "h", "sessionKey": "s1", "userMessage": "x"},
    )
    assert "bypassed" not in r.json()


@pytest.mark.parametrize(
    ("path", "body", "expected"),
    [
        ("session-start", {}, {"inject": "", "memories": [], "bypassed": True}),
        (
            "user-prompt-submit",
            {"userMessage": "hi"},
            {"inject": "", "memoryCount": 0, "bypassed": True},
        ),
        ("session-checkpoint-extract", {"transcript": "x" * 900}, {"skipped": True}),
        ("remember", {"content": "a fact"}, {"success": True, "memories": [], "bypassed": True}),
        ("recall", {"query": "fact"}, {**EMPTY_RECALL, "query": "fact", "bypassed": True}),
        ("pre-compaction", {}, {"instructions": "", "bypassed": True}),
        ("compaction-complete", {"summary": "s"}, {"success": True, "bypassed": True}),
        ("session-end", {"transcript": "x" * 900}, {"memoriesSaved": 0, "bypassed": True}),
    ],
)
async def test_bypassed_session_no_op_bodies(
    client: httpx.AsyncClient,
    daemon: MockDaemon,
    path: str,
    body: dict[str, Any],
    expected: dict[str, Any],
) -> None:
    await claim(client)
    await client.post("/api/sessions/s1/bypass", json={"enabled": True})
    r = await client.post(
        f"/api/hooks/{path}", json={"harness": "h", "sessionKey": "s1", **body}, headers=PLUGIN
    )
    assert (r.status_code, r.json()) == (200, expected)
    assert daemon.summary_jobs() == []
    assert daemon.store.count_memories() == 0


async def test_bypassed_session_end_still_ends_the_session(client: httpx.AsyncClient) -> None:
    await claim(client)
    await client.post("/api/sessions/s1/bypass", json={"enabled": True})
    await client.post(
        "/api/hooks/session-end", json={"harness": "h", "sessionKey": "s1"}, headers=PLUGIN
    )
    assert (await client.get("/api/sessions")).json()["count"] == 0
    r = await client.post(
        "/api/hooks/session-end", json={"harness": "h", "sessionKey": "s1"}, headers=PLUGIN
    )
    assert r.json()["duplicateSessionEnd"] is True


async def test_bypass_reads_session_id_when_key_is_absent(client: httpx.AsyncClient) -> None:
    await claim(client)
    await client.post("/api/sessions/s1/bypass", json={"enabled": True})
    r = await client.post(
        "/api/hooks/remember", json={"harness": "h", "content": "c", "sessionId": "s1"}
    )
    assert r.json() == {"success": True, "memories": [], "bypassed": True}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("session-start", {"inject": "", "memories": []}),
        ("user-prompt-submit", {"inject": "", "memoryCount": 0}),
        ("session-end", {"memoriesSaved": 0}),
        ("session-checkpoint-extract", {"skipped": True}),
        ("remember", {"success": True, "memories": []}),
        ("recall", {**EMPTY_RECALL, "query": "", "internal": True}),
    ],
)
async def test_no_hooks_header_is_checked_before_json_parsing(
    client: httpx.AsyncClient, daemon: MockDaemon, path: str, expected: dict[str, Any]
) -> None:
    r = await client.post(f"/api/hooks/{path}", content=b"{not json", headers=NO_HOOKS)
    assert (r.status_code, r.json()) == (200, expected)
    r = await client.post(
        f"/api/hooks/{path}",
        json={"harness": "h", "sessionKey": "s1", "content": "c", "query": "q"},
        headers={**NO_HOOKS, **PLUGIN},
    )
    assert r.json() == expected
    assert (await client.get("/api/sessions")).json()["count"] == 0  # no claim, no presence


async def test_no_hooks_is_not_checked_on_compaction_routes(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/hooks/pre-compaction", json={}, headers=NO_HOOKS)
    assert (r.status_code, r.json()) == (400, {"error": "harness is required"})
    r = await client.post(
        "/api/hooks/compaction-complete", json={"harness": "h", "summary": "s"}, headers=NO_HOOKS
    )
    assert r.json()["success"] is True
    assert isinstance(r.json()["memoryId"], str)


async def test_no_hooks_needs_exactly_one(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/api/hooks/session-start", json={}, headers={"x-signet-no-hooks": "true"}
    )
    assert (r.status_code, r.json()) == (400, {"error": "harness is required"})
