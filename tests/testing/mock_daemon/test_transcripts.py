"""Transcripts: the /tmp/signet path rule, storage, and checkpoint-extract deltas."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

# The stored transcript is read back through the newer transcript route.
pytestmark = [pytest.mark.anyio, pytest.mark.daemon(version="0.110")]

Stage = Callable[[str, "str | bytes"], str]
OUTSIDE = {"error": "transcript_path outside allowed workspace roots"}
TOO_BIG = {"error": "transcript_path exceeds 400000 byte limit"}


async def test_staged_file_is_read_and_preferred_over_inline(
    client: httpx.AsyncClient, daemon: MockDaemon, stage: Stage
) -> None:
    text = "user: where is the config?\nassistant: in settings.toml. " + "more " * 120
    path = stage("t.txt", text)
    r = await client.post(
        "/api/hooks/session-end",
        json={"harness": "h", "sessionKey": "s1", "transcriptPath": path, "transcript": "short"},
    )
    assert r.json()["queued"] is True
    assert daemon.summary_jobs()[0]["transcript"] == text.strip()
    r = await client.get("/api/sessions/s1/transcript")
    assert r.json() == {"sessionKey": "s1", "agentId": "default", "content": text.strip()}


async def test_path_outside_the_staging_root_is_403(
    client: httpx.AsyncClient, stage: Stage, tmp_path: os.PathLike[str]
) -> None:
    outside = os.path.join(tmp_path, "t.txt")
    with open(outside, "w") as fh:
        fh.write("x" * 600)
    for route in ("session-end", "user-prompt-submit", "session-checkpoint-extract"):
        body = {"harness": "h", "sessionKey": "s1", "userMessage": "hi", "transcriptPath": outside}
        r = await client.post(f"/api/hooks/{route}", json=body)
        assert (r.status_code, r.json()) == (403, OUTSIDE), route


async def test_symlink_escaping_the_root_and_directories_are_403(
    client: httpx.AsyncClient, stage: Stage
) -> None:
    link = os.path.join(os.path.dirname(stage("x.txt", "x")), "escape.txt")
    os.symlink("/etc/hostname", link)
    r = await client.post(
        "/api/hooks/session-end", json={"harness": "h", "sessionKey": "s", "transcriptPath": link}
    )
    assert (r.status_code, r.json()) == (403, OUTSIDE)
    directory = os.path.dirname(link)
    r = await client.post(
        "/api/hooks/session-end",
        json={"harness": "h", "sessionKey": "s2", "transcriptPath": directory},
    )
    assert (r.status_code, r.json()) == (403, OUTSIDE)


async def test_file_over_400000_bytes_is_413(client: httpx.AsyncClient, stage: Stage) -> None:
    path = stage("big.txt", b"a" * 400_001)
    r = await client.post(
        "/api/hooks/session-end", json={"harness": "h", "sessionKey": "s", "transcriptPath": path}
    )
    assert (r.status_code, r.json()) == (413, TOO_BIG)
    exact = stage("exact.txt", b"a" * 400_000)
    r = await client.post(
        "/api/hooks/session-end", json={"harness": "h", "sessionKey": "s", "transcriptPath": exact}
    )
    assert r.status_code == 200


async def test_missing_staged_file_is_ignored(client: httpx.AsyncClient, stage: Stage) -> None:
    missing = os.path.join(os.path.dirname(stage("x.txt", "x")), "gone.txt")
    r = await client.post(
        "/api/hooks/session-end",
        json={"harness": "h", "sessionKey": "s", "transcriptPath": missing},
    )
    assert r.json() == {"memoriesSaved": 0}


async def test_stored_transcript_is_overwritten_only_by_a_longer_one(
    client: httpx.AsyncClient,
) -> None:
    async def prompt(transcript: str) -> None:
        await client.post(
            "/api/hooks/user-prompt-submit",
            json={"harness": "h", "sessionKey": "s1", "userMessage": "q", "transcript": transcript},
        )

    await prompt("user: one two three")
    await prompt("user: one")
    r = await client.get("/api/sessions/s1/transcript")
    assert r.json()["content"] == "user: one two three"
    await prompt("user: one two three four")
    assert (await client.get("/api/sessions/s1/transcript")).json()["content"].endswith("four")


async def test_jsonl_transcripts_are_reduced_to_turns(client: httpx.AsyncClient) -> None:
    lines = [
        {"type": "user", "message": {"role": "user", "content": "What is FTS5?"}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "A search engine."}],
            },
        },
        {"type": "summary", "summary": "ignored"},
    ]
    jsonl = "\n".join(json.dumps(x) for x in lines)
    await client.post(
        "/api/hooks/user-prompt-submit",
        json={"harness": "h", "sessionKey": "s1", "userMessage": "q", "transcript": jsonl},
    )
    content = (await client.get("/api/sessions/s1/transcript")).json()["content"]
    assert content == "user: What is FTS5?\nassistant: A search engine."


async def test_transcript_route_is_agent_scoped(client: httpx.AsyncClient) -> None:
    await client.post(
        "/api/hooks/user-prompt-submit",
        json={
            "harness": "h",
            "sessionKey": "s1",
            "agentId": "alice",
            "userMessage": "q",
            "transcript": "user: hello",
        },
    )
    assert (await client.get("/api/sessions/s1/transcript")).json() == {
        "error": "Transcript not found"
    }
    r = await client.get("/api/sessions/s1/transcript", params={"agent_id": "alice"})
    assert r.json() == {"sessionKey": "s1", "agentId": "alice", "content": "user: hello"}
    r = await client.get("/api/sessions/s1/transcript", headers={"x-signet-agent-id": "alice"})
    assert r.status_code == 200


# -- checkpoint-extract ------------------------------------------------------------


async def checkpoint(client: httpx.AsyncClient, **body: object) -> httpx.Response:
    return await client.post(
        "/api/hooks/session-checkpoint-extract", json={"harness": "h", "sessionKey": "s1", **body}
    )


async def test_checkpoint_requires_harness_and_session_key(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/hooks/session-checkpoint-extract", json={"harness": "h"})
    assert (r.status_code, r.json()) == (400, {"error": "harness and sessionKey are required"})


async def test_checkpoint_counts_utf8_bytes_of_the_delta(
    client: httpx.AsyncClient, daemon: MockDaemon, stage: Stage
) -> None:
    path = stage("live.txt", "é" * 249)  # 498 bytes
    assert (await checkpoint(client, transcriptPath=path)).json() == {"skipped": True}
    stage("live.txt", "é" * 250)  # 500 bytes, 250 characters
    r = await checkpoint(client, transcriptPath=path)
    assert r.json() == {"queued": True, "jobId": r.json()["jobId"]}
    # The cursor moved to the end: nothing new, nothing queued.
    assert (await checkpoint(client, transcriptPath=path)).json() == {"skipped": True}
    stage("live.txt", "é" * 250 + "n" * 499)
    assert (await checkpoint(client, transcriptPath=path)).json() == {"skipped": True}
    stage("live.txt", "é" * 250 + "n" * 500)
    r = await checkpoint(client, transcriptPath=path)
    assert r.json()["queued"] is True
    jobs = daemon.summary_jobs()
    assert [j["kind"] for j in jobs] == ["checkpoint_extract", "checkpoint_extract"]
    assert jobs[1]["transcript"] == "n" * 500  # only the delta
    assert jobs[1]["session_id"] == "s1"


async def test_inline_transcript_is_the_whole_delta_every_time(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    text = "user: " + "word " * 120
    assert (await checkpoint(client, transcript=text)).json()["queued"] is True
    assert (await checkpoint(client, transcript=text)).json()["queued"] is True
    assert len(daemon.summary_jobs()) == 2


async def test_checkpoint_uses_stored_transcript_and_skips_without_one(
    client: httpx.AsyncClient,
) -> None:
    assert (await checkpoint(client)).json() == {"skipped": True}
    await client.post(
        "/api/hooks/user-prompt-submit",
        json={"harness": "h", "sessionKey": "s1", "userMessage": "q", "transcript": "z" * 700},
    )
    assert (await checkpoint(client)).json()["queued"] is True
    assert (await checkpoint(client)).json() == {"skipped": True}


async def test_compaction_complete_deletes_transcript_and_cursor(
    client: httpx.AsyncClient, stage: Stage
) -> None:
    path = stage("live.txt", "q" * 600)
    assert (await checkpoint(client, transcriptPath=path)).json()["queued"] is True
    await client.post(
        "/api/hooks/compaction-complete",
        json={"harness": "h", "sessionKey": "s1", "summary": "we compacted"},
    )
    assert (await client.get("/api/sessions/s1/transcript")).status_code == 404
    # The cursor is gone too: the same file is a full delta again.
    assert (await checkpoint(client, transcriptPath=path)).json()["queued"] is True
