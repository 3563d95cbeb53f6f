"""Session routes: lookup, URL-encoded keys, renew and transcript search (§3.1-§3.4, §3.7)."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

pytestmark = pytest.mark.anyio

PLUGIN = {"x-signet-runtime-path": "plugin"}


async def test_get_session_is_agent_scoped(client: httpx.AsyncClient) -> None:
    await client.post(
        "/api/hooks/session-start",
        json={"harness": "h", "sessionKey": "s1", "agentId": "alice"},
        headers=PLUGIN,
    )
    r = await client.get("/api/sessions/s1")
    assert (r.status_code, r.json()) == (404, {"error": "Session not found"})
    r = await client.get("/api/sessions/s1", params={"agent_id": "alice"})
    assert r.json() == {
        "key": "s1",
        "agentId": "alice",
        "runtimePath": "plugin",
        "claimedAt": "2026-04-30T12:00:00.000Z",
        "expiresAt": "2026-04-30T16:00:00.000Z",
        "bypassed": False,
    }


async def test_keys_with_slashes_must_be_url_encoded(client: httpx.AsyncClient) -> None:
    key = "repo/branch:feature x"
    await client.post(
        "/api/hooks/session-start", json={"harness": "h", "sessionKey": key}, headers=PLUGIN
    )
    r = await client.get("/api/sessions/" + quote(key, safe=""))
    assert r.json()["key"] == key
    r = await client.get("/api/sessions/repo/branch:feature%20x")
    assert (r.status_code, r.text) == (404, "404 Not Found")


async def test_renew(client: httpx.AsyncClient, daemon: MockDaemon) -> None:
    r = await client.post("/api/sessions/s1/renew")
    assert (r.status_code, r.json()) == (404, {"error": "Session not found"})
    await client.post(
        "/api/hooks/session-start", json={"harness": "h", "sessionKey": "s1"}, headers=PLUGIN
    )
    daemon.advance(3600)
    r = await client.post("/api/sessions/s1/renew")
    assert r.json() == {"key": "s1", "renewed": True, "expiresAt": "2026-04-30T17:00:00.000Z"}
    await client.post("/api/hooks/session-start", json={"harness": "h", "sessionKey": "p1"})
    assert (await client.post("/api/sessions/p1/renew")).json() == {"key": "p1", "renewed": True}


async def test_checkpoint_extract_renews_the_claim(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    body = {"harness": "h", "sessionKey": "s1"}
    await client.post("/api/hooks/session-start", json=body, headers=PLUGIN)
    daemon.advance(3 * 3600)
    await client.post("/api/hooks/session-checkpoint-extract", json=body)
    r = await client.get("/api/sessions/s1")
    assert r.json()["expiresAt"] == "2026-04-30T19:00:00.000Z"


async def test_summaries_literal_is_not_a_session_key(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/sessions/summaries")
    assert r.json() == {"summaries": [], "total": 0}


async def test_claims_carry_their_agent_but_presence_rows_do_not(
    client: httpx.AsyncClient,
) -> None:
    # The tracker's session records include agentId, and the listing passes
    # them through; a session known only from presence has none.
    await client.post(
        "/api/hooks/session-start", json={"harness": "h", "sessionKey": "s1"}, headers=PLUGIN
    )
    await client.post("/api/hooks/session-start", json={"harness": "h", "sessionKey": "p1"})
    listed = (await client.get("/api/sessions")).json()
    rows = {row["key"]: row for row in listed["sessions"]}
    assert rows["s1"]["agentId"] == "default"
    assert list(rows["s1"]) == [
        "key",
        "agentId",
        "runtimePath",
        "claimedAt",
        "expiresAt",
        "bypassed",
    ]
    assert "agentId" not in rows["p1"] and rows["p1"]["expiresAt"] is None


async def test_ts_0_109_has_no_session_search_or_transcript_routes(
    client: httpx.AsyncClient,
) -> None:
    await client.post(
        "/api/hooks/user-prompt-submit",
        json={"harness": "h", "sessionKey": "s1", "userMessage": "q", "transcript": "user: hi"},
    )
    r = await client.post("/api/sessions/search", json={"query": "hi"})
    assert (r.status_code, r.text) == (404, "404 Not Found")
    r = await client.get("/api/sessions/s1/transcript")
    assert (r.status_code, r.text) == (404, "404 Not Found")
    health = (await client.get("/health")).json()
    assert health["version"] == "0.109.0"


@pytest.mark.daemon(version="0.110.2")
async def test_a_newer_version_serves_them(client: httpx.AsyncClient) -> None:
    await client.post(
        "/api/hooks/user-prompt-submit",
        json={"harness": "h", "sessionKey": "s1", "userMessage": "q", "transcript": "user: hi"},
    )
    assert (await client.get("/api/sessions/s1/transcript")).json()["content"] == "user: hi"
    assert (await client.get("/health")).json()["version"] == "0.110.2"


def test_versions_must_be_numeric() -> None:
    for bad in ("latest", "0", "0.109.0.1", "v0.110"):
        with pytest.raises(ValueError, match="version"):
            MockDaemon(version=bad)


@pytest.mark.daemon(version="0.110")
async def test_search_over_stored_transcripts(client: httpx.AsyncClient) -> None:
    async def transcript(key: str, text: str, project: str) -> None:
        await client.post(
            "/api/hooks/user-prompt-submit",
            json={
                "harness": "h",
                "sessionKey": key,
                "userMessage": "q",
                "transcript": text,
                "project": project,
            },
        )

    await transcript("s1", "user: we migrated the ledger to Postgres yesterday", "/a")
    await transcript("s2", "user: the ledger export is slow", "/b")
    await transcript("s3", "user: unrelated chatter", "/a")
    r = await client.post("/api/sessions/search", json={"query": "ledger"})
    body = r.json()
    assert (body["query"], body["count"]) == ("ledger", 2)
    assert {h["sessionKey"] for h in body["hits"]} == {"s1", "s2"}
    hit = body["hits"][0]
    assert set(hit) == {"sessionKey", "project", "updatedAt", "excerpt", "rank"}
    assert "ledger" in hit["excerpt"]
    r = await client.post("/api/sessions/search", json={"query": "ledger", "project": "/a"})
    assert [h["sessionKey"] for h in r.json()["hits"]] == ["s1"]
    r = await client.post(
        "/api/sessions/search", json={"query": "ledger", "current_session_key": "s1"}
    )
    assert [h["sessionKey"] for h in r.json()["hits"]] == ["s2"]
    r = await client.post("/api/sessions/search", json={"query": "ledger", "limit": 1})
    assert r.json()["count"] == 1
    r = await client.post("/api/sessions/search", json={"query": "ledger", "agentId": "bob"})
    assert r.json()["count"] == 0


@pytest.mark.daemon(version="0.110")
async def test_search_errors(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/sessions/search", json={"query": "  "})
    assert (r.status_code, r.json()) == (400, {"error": "query is required"})
    r = await client.post("/api/sessions/search", content=b"[1]")
    assert (r.status_code, r.json()) == (400, {"error": "Invalid JSON body"})
