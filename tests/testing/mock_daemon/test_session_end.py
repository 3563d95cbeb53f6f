"""Session-end: tombstones, summary jobs, noise sessions and what ending clears."""

from __future__ import annotations

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

pytestmark = pytest.mark.anyio

PLUGIN = {"x-signet-runtime-path": "plugin"}
LEGACY = {"x-signet-runtime-path": "legacy"}
LONG = "user: please refactor the billing module\nassistant: done. " + "details " * 80


async def end(
    client: httpx.AsyncClient, key: str, headers: dict[str, str] | None = None, **extra: object
) -> httpx.Response:
    body = {"harness": "claude-code", "sessionKey": key, **extra}
    return await client.post("/api/hooks/session-end", json=body, headers=headers or {})


async def test_repeat_end_is_tombstoned_even_from_the_same_path(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    await client.post(
        "/api/hooks/session-start", json={"harness": "h", "sessionKey": "s1"}, headers=PLUGIN
    )
    r = await end(client, "s1", PLUGIN, transcript=LONG)
    assert r.json()["queued"] is True
    dup = {"memoriesSaved": 0, "skipped": True, "duplicateSessionEnd": True, "endedBy": "plugin"}
    assert (await end(client, "s1", PLUGIN, transcript=LONG)).json() == dup
    assert (await end(client, "s1", LEGACY)).json() == dup
    assert len(daemon.summary_jobs()) == 1
    daemon.advance(30 * 60 + 1)  # the tombstone lasts 30 minutes
    r = await end(client, "s1", LEGACY)
    # Not a duplicate any more; the stored transcript (longer than nothing) is used.
    assert r.json() == {"memoriesSaved": 0, "queued": True, "jobId": r.json()["jobId"]}
    assert len(daemon.summary_jobs()) == 2


async def test_any_new_claim_clears_the_tombstone(client: httpx.AsyncClient) -> None:
    await end(client, "s1", PLUGIN)
    r = await client.post(
        "/api/hooks/user-prompt-submit",
        json={"harness": "h", "sessionKey": "s1", "userMessage": "next turn"},
        headers=PLUGIN,
    )
    assert r.json()["sessionKnown"] is False  # the end released the claim
    assert (await end(client, "s1", PLUGIN)).json() == {"memoriesSaved": 0}


async def test_no_tombstone_check_without_a_runtime_path(client: httpx.AsyncClient) -> None:
    await end(client, "s1")  # carried no runtime path: its tombstone does not count
    assert (await end(client, "s1", PLUGIN)).json() == {"memoriesSaved": 0}
    # ... and a repeat without a path is never checked.
    assert (await end(client, "s1")).json() == {"memoriesSaved": 0}


async def test_session_end_releases_claim_and_presence(client: httpx.AsyncClient) -> None:
    await client.post(
        "/api/hooks/session-start", json={"harness": "h", "sessionKey": "s1"}, headers=PLUGIN
    )
    await end(client, "s1", PLUGIN)
    assert (await client.get("/api/sessions")).json() == {"sessions": [], "count": 0}
    r = await client.post(
        "/api/hooks/session-start", json={"harness": "h", "sessionKey": "s1"}, headers=LEGACY
    )
    assert r.status_code == 200


async def test_summary_job_needs_500_characters(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    assert (await end(client, "short", transcript="user: hi")).json() == {"memoriesSaved": 0}
    r = await end(client, "long", transcript=LONG, cwd="/home/me/project", sessionId="abc-1")
    body = r.json()
    assert set(body) == {"memoriesSaved", "queued", "jobId"}
    assert (body["memoriesSaved"], body["queued"]) == (0, True)
    (job,) = daemon.summary_jobs()
    assert job["id"] == body["jobId"]
    assert (job["kind"], job["session_key"], job["session_id"]) == ("session_end", "long", "abc-1")
    assert job["project"] == "/home/me/project"
    assert job["transcript"] == LONG.strip()


async def test_reason_clear_discards_without_reading(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    r = await end(client, "s1", reason="clear", transcript=LONG, transcriptPath="/etc/passwd")
    assert r.json() == {"memoriesSaved": 0}
    assert daemon.summary_jobs() == []


@pytest.mark.parametrize(
    "extra",
    [
        {"sessionKey": "test-run-1"},
        {"sessionKey": "k", "cwd": "/tmp/scratch"},
        {"sessionKey": "k", "harness": "test"},
    ],
)
async def test_noise_sessions_are_not_queued(
    client: httpx.AsyncClient, daemon: MockDaemon, extra: dict[str, str]
) -> None:
    body = {"harness": "claude-code", "transcript": LONG, **extra}
    r = await client.post("/api/hooks/session-end", json=body)
    assert r.json() == {"memoriesSaved": 0, "queued": False}
    assert daemon.summary_jobs() == []


async def test_pipeline_disabled_queues_nothing() -> None:
    daemon = MockDaemon(version="0.109", pipeline_enabled=False)
    transport = httpx.ASGITransport(app=daemon)
    async with httpx.AsyncClient(transport=transport, base_url="http://d") as client:
        assert (await end(client, "s1", transcript=LONG)).json() == {"memoriesSaved": 0}
        r = await client.post(
            "/api/hooks/session-checkpoint-extract",
            json={"harness": "h", "sessionKey": "s1", "transcript": LONG},
        )
        assert r.json() == {"skipped": True}
    daemon.close()


async def test_session_end_falls_back_to_session_id_and_requires_harness(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post("/api/hooks/session-end", json={"sessionKey": "s1"})
    assert (r.status_code, r.json()) == (400, {"error": "harness is required"})
    r = await client.post(
        "/api/hooks/session-end", json={"harness": "h", "sessionId": "sid-1"}, headers=PLUGIN
    )
    assert r.json() == {"memoriesSaved": 0}
    r = await client.post(
        "/api/hooks/session-end", json={"harness": "h", "sessionId": "sid-1"}, headers=PLUGIN
    )
    assert r.json()["duplicateSessionEnd"] is True


async def test_session_end_resets_the_start_stub(client: httpx.AsyncClient) -> None:
    body = {"harness": "h", "sessionKey": "s1"}
    await client.post("/api/hooks/session-start", json=body)
    assert (await client.post("/api/hooks/session-start", json=body)).json()["memories"] == []
    await end(client, "s1")
    r = await client.post("/api/hooks/session-start", json=body)
    assert "# Identity" in r.json()["inject"]
