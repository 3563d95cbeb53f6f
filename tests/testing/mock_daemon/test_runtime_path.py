"""Runtime-path claims and the TS 0.109 conflict answers (contract §1.6)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

pytestmark = pytest.mark.anyio

PLUGIN = {"x-signet-runtime-path": "plugin"}
LEGACY = {"x-signet-runtime-path": "legacy"}


async def start(client: httpx.AsyncClient, key: str, headers: dict[str, str]) -> httpx.Response:
    return await client.post(
        "/api/hooks/session-start",
        json={"harness": "claude-code", "sessionKey": key},
        headers=headers,
    )


async def test_session_start_from_the_other_path_is_409(client: httpx.AsyncClient) -> None:
    assert (await start(client, "s1", PLUGIN)).status_code == 200
    r = await start(client, "s1", LEGACY)
    assert r.status_code == 409
    assert r.json() == {"error": "session claimed by plugin path"}


async def test_header_wins_and_an_invalid_header_hides_the_body_value(
    client: httpx.AsyncClient,
) -> None:
    await start(client, "s1", PLUGIN)
    body = {"harness": "h", "sessionKey": "s1", "runtimePath": "legacy"}
    # Body alone counts.
    r = await client.post("/api/hooks/session-start", json=body)
    assert r.status_code == 409
    # A non-empty invalid header hides the valid body value: no path, no claim, no conflict.
    r = await client.post(
        "/api/hooks/session-start", json=body, headers={"x-signet-runtime-path": "bogus"}
    )
    assert r.status_code == 200
    # Only the exact strings count.
    r = await client.post("/api/hooks/session-start", json={**body, "runtimePath": "Legacy"})
    assert r.status_code == 200


async def test_keys_are_trimmed_and_lose_a_session_prefix(client: httpx.AsyncClient) -> None:
    await start(client, "  session:abc ", PLUGIN)
    r = await start(client, "abc", LEGACY)
    assert r.json() == {"error": "session claimed by plugin path"}
    r = await client.get("/api/sessions/session:abc")
    assert r.json()["key"] == "abc"


async def test_claim_lasts_four_hours_and_same_path_refreshes(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    await start(client, "s1", PLUGIN)
    daemon.advance(3 * 3600)
    await start(client, "s1", PLUGIN)  # refresh: now + 4 h
    daemon.advance(3 * 3600)  # 6 h after the first claim, 3 h after the refresh
    assert (await start(client, "s1", LEGACY)).status_code == 409
    daemon.advance(3600 + 1)  # the refreshed claim is stale: evicted by the other path
    r = await start(client, "s1", LEGACY)
    assert r.status_code == 200
    assert (await start(client, "s1", PLUGIN)).json() == {"error": "session claimed by legacy path"}


async def test_remember_and_recall_only_check_and_answer_409(client: httpx.AsyncClient) -> None:
    await start(client, "s1", PLUGIN)
    r = await client.post(
        "/api/hooks/remember",
        json={"harness": "h", "content": "a fact", "sessionKey": "s1"},
        headers=LEGACY,
    )
    assert (r.status_code, r.json()) == (409, {"error": "session claimed by plugin path"})
    r = await client.post(
        "/api/hooks/recall",
        json={"harness": "h", "query": "fact", "sessionKey": "s1"},
        headers=LEGACY,
    )
    assert (r.status_code, r.json()) == (409, {"error": "session claimed by plugin path"})
    # Check only: an unclaimed key is not claimed by remember.
    r = await client.post(
        "/api/hooks/remember",
        json={"harness": "h", "content": "another fact", "sessionKey": "s2"},
        headers=LEGACY,
    )
    assert r.status_code == 200
    assert (await start(client, "s2", PLUGIN)).status_code == 200


#: What every hook's 200 adds when another runtime path holds the session.
CLAIMED_BY_PLUGIN = {"skipped": True, "duplicateRuntimePath": True, "claimedBy": "plugin"}


@pytest.mark.parametrize(
    ("path", "body", "expected"),
    [
        (
            "/api/hooks/user-prompt-submit",
            {"userMessage": "hello there"},
            {"inject": "", "memoryCount": 0, "sessionKnown": True, **CLAIMED_BY_PLUGIN},
        ),
        ("/api/hooks/session-checkpoint-extract", {"transcript": "x" * 600}, CLAIMED_BY_PLUGIN),
        (
            "/api/hooks/pre-compaction",
            {},
            {"guidelines": "", "instructions": "", "summaryPrompt": "", **CLAIMED_BY_PLUGIN},
        ),
        (
            "/api/hooks/compaction-complete",
            {"summary": "we did things"},
            {"success": True, **CLAIMED_BY_PLUGIN},
        ),
        (
            "/api/hooks/session-end",
            {"transcript": "x" * 600},
            {"memoriesSaved": 0, **CLAIMED_BY_PLUGIN},
        ),
    ],
)
async def test_other_hooks_answer_200_duplicate_bodies(
    client: httpx.AsyncClient,
    daemon: MockDaemon,
    path: str,
    body: dict[str, Any],
    expected: dict[str, Any],
) -> None:
    await start(client, "s1", PLUGIN)
    r = await client.post(path, json={"harness": "h", "sessionKey": "s1", **body}, headers=LEGACY)
    assert r.status_code == 200
    assert r.json() == expected
    assert daemon.summary_jobs() == []  # nothing happened
    # The owner is unchanged.
    assert (await client.get("/api/sessions/s1")).json()["runtimePath"] == "plugin"


async def test_no_runtime_path_means_no_claim_and_no_conflict(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/hooks/session-start", json={"harness": "h", "sessionKey": "s1"})
    assert r.status_code == 200
    session = (await client.get("/api/sessions/s1")).json()
    assert session["runtimePath"] == "unknown"  # listed through presence only
    assert session["expiresAt"] is None
    assert (await start(client, "s1", LEGACY)).status_code == 200
    assert (await start(client, "s1", PLUGIN)).status_code == 409


async def test_prompt_submit_claims_an_unclaimed_session(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/api/hooks/user-prompt-submit",
        json={"harness": "h", "sessionKey": "s9", "userMessage": "hello"},
        headers=LEGACY,
    )
    assert r.json()["sessionKnown"] is False
    assert (await start(client, "s9", PLUGIN)).json() == {"error": "session claimed by legacy path"}
