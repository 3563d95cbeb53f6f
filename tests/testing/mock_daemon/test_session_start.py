"""Session-start (§2.1) and the live-session list it feeds (§3.1)."""

from __future__ import annotations

import uuid

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

pytestmark = pytest.mark.anyio

PLUGIN = {"x-signet-runtime-path": "plugin"}
T0_ISO = "2026-04-30T12:00:00.000Z"  # the conftest clock
DATE = "# Current Date & Time\nThursday, April 30, 2026, 12:00 UTC"


async def test_harness_is_required(client: httpx.AsyncClient) -> None:
    for body in ({}, {"harness": ""}, {"harness": None}, {"harness": 0}):
        r = await client.post("/api/hooks/session-start", json=body)
        assert (r.status_code, r.json()) == (400, {"error": "harness is required"})


async def test_success_body_injects_top_memories(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    await client.post("/api/memory/remember", json={"content": "The user prefers tabs over spaces"})
    await client.post("/api/memory/remember", json={"content": "critical: never push to main"})
    await client.post(
        "/api/memory/remember", json={"content": "Other agent fact", "agentId": "bob"}
    )
    r = await client.post("/api/hooks/session-start", json={"harness": "codex", "sessionKey": "s1"})
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"identity", "memories", "inject"}
    assert body["identity"]["name"] == "Agent"
    assert [m["content"] for m in body["memories"]] == [
        "never push to main",  # pinned first
        "The user prefers tabs over spaces",
    ]
    first = body["memories"][0]
    assert set(first) == {"id", "content", "type", "importance", "created_at"}
    assert uuid.UUID(first["id"])
    assert (first["type"], first["importance"], first["created_at"]) == ("rule", 1.0, T0_ISO)
    inject = body["inject"]
    assert inject.startswith("[memory active | /remember | /recall]\n" + DATE)
    assert "- never push to main" in inject
    assert "- The user prefers tabs over spaces" in inject
    assert "Other agent fact" not in inject


async def test_repeated_start_returns_the_stub_until_session_end(
    client: httpx.AsyncClient,
) -> None:
    body = {"harness": "h", "sessionKey": "s1"}
    await client.post("/api/hooks/session-start", json=body)
    r = await client.post("/api/hooks/session-start", json=body)
    assert r.json() == {
        "identity": {"name": "Agent"},
        "memories": [],
        "inject": f"[memory active | /remember | /recall]\n{DATE}\n",
    }
    # Another key is not affected; no key never dedupes.
    assert (
        "# Identity"
        in (
            await client.post("/api/hooks/session-start", json={"harness": "h", "sessionKey": "s2"})
        ).json()["inject"]
    )
    for _ in range(2):
        r = await client.post("/api/hooks/session-start", json={"harness": "h"})
        assert "# Identity" in r.json()["inject"]


@pytest.mark.daemon(synthesis_provider="claude-code")
async def test_recent_context_comes_from_synthesized_memory_md(client: httpx.AsyncClient) -> None:
    await client.post("/api/hooks/synthesis/complete", json={"content": "# MEMORY\n- likes tea"})
    r = await client.post("/api/hooks/session-start", json={"harness": "h"})
    assert r.json()["recentContext"] == "# MEMORY\n- likes tea"
    assert "- likes tea" in r.json()["inject"]


async def test_expiry_warning_once_under_thirty_minutes(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    body = {"harness": "h", "sessionKey": "s1"}
    await client.post("/api/hooks/session-start", json=body, headers=PLUGIN)
    daemon.advance(4 * 3600 - 20 * 60)
    prompt = {**body, "userMessage": "hello"}
    r = await client.post("/api/hooks/user-prompt-submit", json=prompt)  # no path: no refresh
    assert r.json()["warnings"] == ["session expires in ~20 minutes — consider /checkpoint"]
    r = await client.post("/api/hooks/user-prompt-submit", json=prompt)
    assert "warnings" not in r.json()


async def test_presence_rows_and_claims_in_the_session_list(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    await client.post(
        "/api/hooks/session-start", json={"harness": "h", "sessionKey": "a"}, headers=PLUGIN
    )
    daemon.advance(60)
    await client.post("/api/hooks/session-start", json={"harness": "h", "sessionKey": "b"})
    await client.post(
        "/api/hooks/session-start", json={"harness": "h", "sessionKey": "c", "agentId": "alice"}
    )
    r = await client.get("/api/sessions")
    assert r.json() == {
        "sessions": [
            {
                "key": "b",
                "runtimePath": "unknown",
                "claimedAt": "2026-04-30T12:01:00.000Z",
                "expiresAt": None,
                "bypassed": False,
            },
            {
                "key": "a",
                "agentId": "default",
                "runtimePath": "plugin",
                "claimedAt": T0_ISO,
                "expiresAt": "2026-04-30T16:00:00.000Z",
                "bypassed": False,
            },
        ],
        "count": 2,
    }
    r = await client.get("/api/sessions", params={"agent_id": "alice"})
    assert [s["key"] for s in r.json()["sessions"]] == ["c"]


async def test_presence_goes_stale_after_four_hours(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    await client.post("/api/hooks/session-start", json={"harness": "h", "sessionKey": "b"})
    daemon.advance(4 * 3600 + 1)
    assert (await client.get("/api/sessions")).json()["count"] == 0
