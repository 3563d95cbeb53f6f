"""What the mock answers as 0.145 (its default) where 0.109 answered differently.

Exec jobs, entity-only prompt injection, recall dedupe per context epoch and
recall timings, temporal and idempotent remember, the 400s of the new request
fields. The differential test (``tests/real_daemon``) holds the same answers
against the real 0.145.8; these pin the details without it.
"""

from __future__ import annotations

import asyncio
import shutil
from typing import Any

import httpx
import pytest

from signet_sdk.cli.commands import _MOCK_VERSIONS
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.testing.mock_daemon import _jobs as jobs
from signet_sdk.testing.mock_daemon._context import DAEMON_VERSION, DAEMON_VERSIONS

pytestmark = [pytest.mark.anyio, pytest.mark.daemon(version="0.145")]

needs_tools = pytest.mark.skipif(
    shutil.which("printenv") is None or shutil.which("sleep") is None,
    reason="needs printenv and sleep",
)
HOOK = {"harness": "claude-code", "sessionKey": "s-145"}


async def exec_job(client: httpx.AsyncClient, body: dict[str, Any]) -> dict[str, Any]:
    """Start a job (202) and poll it until it is finished."""
    started = await client.post("/api/secrets/exec", json=body)
    assert started.status_code == 202, started.text
    job: dict[str, Any] = started.json()
    for _ in range(500):
        if job["status"] in ("completed", "failed"):
            return job
        await asyncio.sleep(0.01)
        polled = await client.get(f"/api/secrets/exec/{job['id']}")
        assert polled.status_code == 200
        job = polled.json()
    raise AssertionError(f"job never finished: {job}")


def test_the_default_is_the_newest_release_line() -> None:
    assert DAEMON_VERSION == DAEMON_VERSIONS[-1] == "0.145"
    assert _MOCK_VERSIONS == DAEMON_VERSIONS  # the CLI's --daemon-version choices
    with MockDaemon() as daemon:
        assert daemon.requests == []
        assert daemon._ctx.v145


@needs_tools
async def test_exec_is_a_job_polled_to_its_redacted_result(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    daemon.set_secret("TOKEN", "tok-secret-1")
    started = await client.post(
        "/api/secrets/exec", json={"command": "printenv T", "secrets": {"T": "TOKEN"}}
    )
    assert started.status_code == 202
    first = started.json()
    assert first["status"] == "running" and first["timeoutMs"] == 300_000
    assert list(first) == ["id", "status", "createdAt", "timeoutMs", "startedAt"]
    job = await exec_job(client, {"command": "printenv T", "secrets": {"T": "TOKEN"}})
    assert job["status"] == "completed"
    assert job["result"] == {"stdout": "[REDACTED]\n", "stderr": "", "code": 0}
    assert list(job) == [*first, "result", "completedAt"]


@needs_tools
async def test_a_failed_job_says_why(client: httpx.AsyncClient, daemon: MockDaemon) -> None:
    job = await exec_job(client, {"command": "printenv T", "secrets": {"T": "MISSING"}})
    assert (job["status"], job["error"]) == ("failed", "Secret 'MISSING' not found")
    assert "result" not in job
    daemon.set_secret("S", "value")
    job = await exec_job(client, {"command": "mvr-no-such-program", "secrets": {"T": "S"}})
    assert (job["status"], job["error"]) == ("failed", "spawn mvr-no-such-program ENOENT")
    job = await exec_job(client, {"command": "echo $HOME", "secrets": {"T": "S"}})
    assert job["result"] == {**jobs.META_REFUSED, "code": 1}


@needs_tools
async def test_a_job_past_its_timeout_is_killed(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    daemon.set_secret("S", "value")
    job = await exec_job(client, {"command": "sleep 5", "secrets": {"T": "S"}, "timeoutMs": 10})
    assert job["timeoutMs"] == 1000  # clamped to at least a second
    stderr = "\n[signet secret exec: timed out after 1000ms]\n"
    assert job["result"] == {"stdout": "", "stderr": stderr, "code": 124, "timedOut": True}


async def test_exec_validation_and_unknown_jobs(client: httpx.AsyncClient) -> None:
    for body in ({"secrets": {"A": "B"}}, {"command": "  ", "secrets": {"A": "B"}}):
        r = await client.post("/api/secrets/exec", json=body)
        assert (r.status_code, r.json()) == (400, {"error": "command is required"})
    for secrets in (None, {}, [], {"A": ""}, {"A": 5}):
        r = await client.post("/api/secrets/exec", json={"command": "ls", "secrets": secrets})
        assert (r.status_code, r.json()) == (400, {"error": "non-empty secrets map is required"})
    r = await client.get("/api/secrets/exec/nope")
    assert (r.status_code, r.json()) == (404, {"error": "secret exec job not found"})


@needs_tools
async def test_a_full_queue_is_429_and_old_jobs_are_forgotten(
    client: httpx.AsyncClient, daemon: MockDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "MAX_RUNNING", 1)
    monkeypatch.setattr(jobs, "MAX_QUEUED", 1)
    daemon.set_secret("S", "value")
    slow = {"command": "sleep 1", "secrets": {"T": "S"}, "timeoutMs": 1000}
    running = (await client.post("/api/secrets/exec", json=slow)).json()
    queued = (await client.post("/api/secrets/exec", json=slow)).json()
    assert (running["status"], queued["status"]) == ("running", "queued")
    assert "startedAt" not in queued
    r = await client.post("/api/secrets/exec", json=slow)
    assert (r.status_code, r.json()) == (429, {"error": "secret exec queue is full"})
    for _ in range(500):  # both finish, the queued one after the first
        done = (await client.get(f"/api/secrets/exec/{queued['id']}")).json()
        if done["status"] == "completed":
            break
        await asyncio.sleep(0.02)
    assert done["status"] == "completed"
    daemon.advance(3601)  # an hour after completion a job is gone
    r = await client.get(f"/api/secrets/exec/{running['id']}")
    assert r.status_code == 404


async def test_the_store_secret_route(client: httpx.AsyncClient, daemon: MockDaemon) -> None:
    r = await client.post("/api/secrets/MY_KEY", json={"value": "v"})
    assert (r.status_code, r.json()) == (200, {"success": True, "name": "MY_KEY"})
    assert daemon._ctx.secrets["MY_KEY"] == "v"
    r = await client.post("/api/secrets/MY_KEY", json={"value": ""})
    assert (r.status_code, r.json()) == (400, {"error": "value is required"})
    r = await client.post("/api/secrets/bad-name", json={"value": "v"})
    assert r.status_code == 400 and r.json()["error"].startswith("Invalid secret name 'bad-name'")


async def test_prompt_submit_injects_nothing_without_a_named_entity(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    daemon.store.add_memory("staging runs on pg-staging-2")
    body = {**HOOK, "userMessage": "which database does staging use?"}
    r = await client.post("/api/hooks/user-prompt-submit", json=body)
    answer = r.json()
    assert (answer["inject"], answer["memoryCount"], answer["engine"]) == ("", 0, "no-entity")
    assert "staging" in answer["queryTerms"].split()  # the mock's stop words, not the daemon's
    r = await client.post("/api/hooks/user-prompt-submit", json={**HOOK, "userMessage": "ok"})
    assert r.json() == {
        "inject": "",
        "memoryCount": 0,
        "engine": "low-signal",
        "sessionKnown": False,
    }


async def test_recall_dedupes_per_session_until_compaction(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    daemon.store.add_memory("billing deploys on Tuesdays")
    body = {**HOOK, "query": "billing"}
    first = (await client.post("/api/hooks/recall", json=body)).json()
    assert first["count"] == 1
    assert first["meta"]["dedupe"] == {
        "enabled": True,
        "contextEpoch": 0,
        "suppressed": 0,
        "repeatedReturned": 0,
    }
    hit = first["results"][0]
    assert (hit["visibility"], hit["scope"]) == ("global", None)
    assert first["meta"]["timings"]["stages"][0]["name"] == "memory_fts"
    again = (await client.post("/api/hooks/recall", json=body)).json()
    assert (again["count"], again["meta"]["dedupe"]["suppressed"]) == (0, 1)
    shown = (await client.post("/api/hooks/recall", json={**body, "includeRecalled": True})).json()
    assert shown["results"][0]["already_recalled"] is True
    assert shown["meta"]["dedupe"]["repeatedReturned"] == 1
    summary = {**HOOK, "summary": "talked about billing"}
    done = (await client.post("/api/hooks/compaction-complete", json=summary)).json()
    assert done["contextEpoch"] == 1
    after = (await client.post("/api/hooks/recall", json=body)).json()
    assert after["meta"]["dedupe"]["contextEpoch"] == 1
    assert hit["id"] in [r["id"] for r in after["results"]]
    # Without a session key there is no dedupe, and no contextEpoch.
    plain = (await client.post("/api/memory/recall", json={"query": "billing"})).json()
    assert "dedupe" not in plain["meta"] and "timings" in plain["meta"]
    done = (
        await client.post("/api/hooks/compaction-complete", json={"harness": "x", "summary": "s"})
    ).json()
    assert "contextEpoch" not in done


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"time": "yesterday"}, "time must be an object"),
        ({"time": {}}, "time.start is required when time is provided"),
        ({"time": {"start": "soon"}}, "time.start must be a valid ISO timestamp"),
        ({"time": {"start": "2026-01-02", "end": 5}}, "time.end must be a valid ISO timestamp"),
        (
            {"time": {"start": "2026-01-02", "end": "2026-01-01"}},
            "time.end must be after time.start",
        ),
        ({"time": {"start": "2026-01-02", "facets": "x"}}, "time.facets must be an array"),
        (
            {"time": {"start": "2026-01-02", "mode": "x"}},
            "time.mode must be one of: auto, timeline, filter",
        ),
        (
            {"aggregateBudget": "huge"},
            "Invalid aggregateBudget. Expected one of: small, medium, large.",
        ),
    ],
)
async def test_recall_option_errors(
    client: httpx.AsyncClient, extra: dict[str, Any], message: str
) -> None:
    for path in ("/api/memory/recall", "/api/hooks/recall"):
        r = await client.post(path, json={"harness": "x", "query": "q", **extra})
        assert (r.status_code, r.json()) == (400, {"error": message})


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"occurredAt": "nope"}, "occurredAt must be a valid ISO timestamp"),
        ({"observedAt": None}, "observedAt must be a valid ISO timestamp"),
        ({"sourceCreatedAt": 5}, "sourceCreatedAt must be a valid ISO timestamp"),
        ({"validFrom": "x"}, "validFrom must be a valid ISO timestamp"),
        ({"validUntil": "x"}, "validUntil must be a valid ISO timestamp"),
        (
            {"validFrom": "2026-05-01T00:00:00Z", "validUntil": "2026-05-01T00:00:00Z"},
            "validUntil must be after validFrom",
        ),
    ],
)
async def test_remember_temporal_errors(
    client: httpx.AsyncClient, extra: dict[str, Any], message: str
) -> None:
    r = await client.post("/api/memory/remember", json={"content": "a fact", **extra})
    assert (r.status_code, r.json()) == (400, {"error": message})


async def test_remember_keeps_provenance_and_honours_the_idempotency_key(
    client: httpx.AsyncClient,
) -> None:
    body = {
        "content": "invoices render with wkhtmltopdf",
        "idempotencyKey": "k-1",
        "metadata": {"sourcePath": "/notes/a.md"},
        "runtimePath": "plugin",
        "occurredAt": "2026-03-01T00:00:00Z",
    }
    first = (await client.post("/api/memory/remember", json=body)).json()
    assert "deduped" not in first
    changed = {**body, "content": "invoices render with chrome"}
    again = (await client.post("/api/memory/remember", json=changed)).json()
    assert (again["id"], again["deduped"], again["content"]) == (first["id"], True, body["content"])
    row = (await client.get(f"/api/memory/{first['id']}")).json()
    assert (row["source_path"], row["runtime_path"], row["idempotency_key"]) == (
        "/notes/a.md",
        "plugin",
        "k-1",
    )
    assert (row["sourcePath"], row["runtimePath"], row["idempotencyKey"]) == (
        "/notes/a.md",
        "plugin",
        "k-1",
    )


async def test_compaction_no_longer_links_its_memory(client: httpx.AsyncClient) -> None:
    summary = {**HOOK, "summary": "we settled the deploy plan"}
    done = (await client.post("/api/hooks/compaction-complete", json=summary)).json()
    memory = (await client.get(f"/api/memory/{done['memoryId']}")).json()
    assert memory["session_id"] == HOOK["sessionKey"]
    nodes = (await client.get("/api/sessions/summaries")).json()["summaries"]
    expanded = await client.post("/api/sessions/summaries/expand", json={"id": nodes[0]["id"]})
    assert expanded.json()["linkedMemories"] == []
    synthesis = (await client.post("/api/hooks/synthesis", json={})).json()
    assert synthesis["indexBlock"].startswith("## Temporal Index")
    assert f"id={nodes[0]['id']}" in synthesis["indexBlock"]
    config = (await client.get("/api/hooks/synthesis/config")).json()
    assert "structuredOutput" not in config


@pytest.mark.daemon(version="0.109")
async def test_0_109_keeps_its_answers(client: httpx.AsyncClient, daemon: MockDaemon) -> None:
    daemon.set_secret("S", "value")
    r = await client.post("/api/secrets/exec", json={"command": "true", "secrets": {"T": "S"}})
    assert (r.status_code, r.json()) == (200, {"stdout": "", "stderr": "", "code": 0})
    assert (await client.get("/api/secrets/exec/any")).text == "404 Not Found"
    r = await client.post("/api/memory/remember", json={"content": "x y", "occurredAt": "no"})
    assert r.status_code == 200  # 0.109 ignores the field
    r = await client.post("/api/memory/recall", json={"query": "x", "time": "no"})
    assert r.status_code == 200 and "timings" not in r.json()["meta"]


LONG = " ".join(f"Robot {n} sorts parcels in aisle {n} and reports hourly." for n in range(1, 30))


async def test_long_content_is_chunked_and_its_key_guards_the_group(
    client: httpx.AsyncClient,
) -> None:
    body = {"content": LONG, "idempotencyKey": "k-chunks"}
    first = (await client.post("/api/memory/remember", json=body)).json()
    assert first["chunked"] is True and first["chunk_count"] == len(first["ids"]) > 1
    assert first["group_id"].startswith("chunk-group:")
    again = (await client.post("/api/memory/remember", json=body)).json()
    assert again == {**first, "deduped": True}
    chunk = (await client.get(f"/api/memory/{first['ids'][0]}")).json()
    assert (chunk["source_type"], chunk["source_id"]) == ("chunk", first["group_id"])
    assert chunk["idempotency_key"] == "k-chunks:chunk:1"
    conflicts = [
        ({"content": LONG.replace("Robot", "Drone"), "idempotencyKey": "k-chunks"}, "different"),
        ({"content": "short", "idempotencyKey": "k-chunks"}, "chunked"),
        ({"content": LONG}, "exists"),
    ]
    messages = {
        "different": "idempotencyKey already used for different chunked content",
        "chunked": "idempotencyKey already used for chunked content",
        "exists": "chunk content already exists for this agent and scope",
    }
    for conflict, which in conflicts:
        r = await client.post("/api/memory/remember", json=conflict)
        assert (r.status_code, r.json()) == (409, {"error": messages[which]})
    await client.post("/api/memory/remember", json={"content": "plain", "idempotencyKey": "k-p"})
    r = await client.post(
        "/api/memory/remember", json={"content": LONG.upper(), "idempotencyKey": "k-p"}
    )
    assert r.json() == {"error": "idempotencyKey already used for non-chunk content"}
    # A structured part keeps long content whole.
    whole = {"content": LONG.replace("Robot", "Cart"), "structured": {}}
    r = await client.post("/api/memory/remember", json=whole)
    assert r.status_code == 200 and "chunked" not in r.json()


@pytest.mark.parametrize(
    ("structured", "message"),
    [
        ([], "structured must be an object with entities and/or aspects arrays"),
        (None, "structured must be an object with entities and/or aspects arrays"),
        ({"entities": {}}, "structured.entities must be an array"),
        ({"aspects": None}, "structured.aspects must be an array"),
        ({"hints": "h"}, "structured.hints must be an array"),
    ],
)
async def test_a_malformed_structured_part_is_400(
    client: httpx.AsyncClient, structured: object, message: str
) -> None:
    body = {"content": "a fact", "structured": structured}
    r = await client.post("/api/memory/remember", json=body)
    assert (r.status_code, r.json()) == (400, {"error": message})


def test_the_cli_flag_takes_the_release_lines_only(capsys: pytest.CaptureFixture[str]) -> None:
    from signet_sdk.cli.commands import build_parser

    parser = build_parser()
    assert parser.parse_args(["dev-daemon"]).daemon_version == "0.145"
    assert parser.parse_args(["dev-daemon", "--daemon-version", "0.109"]).daemon_version == "0.109"
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["dev-daemon", "--daemon-version", "0.120"])
    assert exc.value.code == 2
    assert "--daemon-version" in capsys.readouterr().err


async def test_a_time_window_filters_or_lists_the_timeline(client: httpx.AsyncClient) -> None:
    march = {"content": "billing moved region", "occurredAt": "2026-03-05T00:00:00Z"}
    await client.post("/api/memory/remember", json=march)
    await client.post("/api/memory/remember", json={"content": "billing meets on Mondays"})
    window = {"start": "2026-03-01T00:00:00Z", "end": "2026-03-31T00:00:00Z"}
    r = (await client.post("/api/memory/recall", json={"query": "billing", "time": window})).json()
    assert [h["content"] for h in r["results"]] == ["billing moved region"]
    assert r["meta"]["temporal"] == {
        "mode": "filter",
        "source": "request",
        "originalQuery": "billing",
        "contentQuery": "billing",
        "start": "2026-03-01T00:00:00.000Z",
        "end": "2026-03-31T00:00:00.000Z",
        "facets": ["session", "source", "occurred", "observed", "valid", "captured"],
    }
    listed = {"query": "billing", "time": {**window, "mode": "timeline", "facets": ["occurred"]}}
    r = (await client.post("/api/memory/recall", json=listed)).json()
    (hit,) = r["results"]
    assert hit["id"].startswith("temporal:memory:") and hit["id"].endswith(":occurred")
    assert (hit["source"], hit["temporal_start_at"]) == (
        "temporal_occurred",
        "2026-03-05T00:00:00.000Z",
    )
    assert r["meta"]["timings"]["stages"] == []
    one_day = {"query": "billing", "time": {"start": "2026-03-01T00:00:00Z"}}
    r = (await client.post("/api/memory/recall", json=one_day)).json()
    assert r["results"] == [] and r["meta"]["temporal"]["end"] == "2026-03-02T00:00:00.000Z"


async def test_aggregate_recall_has_no_model_to_answer(client: httpx.AsyncClient) -> None:
    await client.post("/api/memory/remember", json={"content": "billing meets on Mondays"})
    r = (
        await client.post("/api/memory/recall", json={"query": "billing", "aggregate": True})
    ).json()
    assert r["results"] == [] and r["meta"]["noHits"] is True
    aggregate = r["aggregate"]
    assert (aggregate["stoppedReason"], aggregate["budget"], aggregate["saved"]) == (
        "synthesis_failed",
        "small",
        False,
    )
    assert len(aggregate["sourceMemoryIds"]) == 1
    body = {"harness": "x", "query": "zyzzyva", "aggregate": True, "aggregateBudget": "large"}
    r = (await client.post("/api/hooks/recall", json=body)).json()
    assert (r["aggregate"]["stoppedReason"], r["aggregate"]["budget"]) == ("no_evidence", "large")
    assert r["count"] == 0
