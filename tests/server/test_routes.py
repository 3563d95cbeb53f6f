"""Every route in-process (httpx ASGI transport): what the daemon receives, what callers get."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from signet_sdk.runtime.registry import installed_adapters
from signet_sdk.server import RuntimeAdapterServer
from signet_sdk.testing.mock_daemon import MockDaemon

from ..fault_support import FaultProxy
from .server_support import make_client, stand_in_daemon

pytestmark = pytest.mark.anyio


def _sent(mock: MockDaemon, path: str) -> list[dict[str, object]]:
    return [json.loads(r.body) for r in mock.requests if r.path == path]


async def test_health_reports_the_daemon(
    served: httpx.AsyncClient, daemon: tuple[MockDaemon, str]
) -> None:
    body = (await served.get("/health")).json()
    assert body["status"] == "ok" and "claude-code" in body["harnesses"]
    assert body["daemon"]["reachable"] is True and body["daemon"]["version"]


async def test_health_is_200_when_the_daemon_is_down() -> None:
    server = RuntimeAdapterServer("http://127.0.0.1:9", max_retries=0)
    async with make_client(server) as client:
        answer = await client.get("/health")
    await server.aclose()
    assert answer.status_code == 200
    assert answer.json()["daemon"]["reachable"] is False
    assert answer.json()["daemon"]["degraded"].startswith("NotSentError")


async def test_lifecycle_call_reaches_the_daemon_as_sent(
    served: httpx.AsyncClient, daemon: tuple[MockDaemon, str]
) -> None:
    mock = daemon[0]
    answer = await served.post(
        "/v1/my-harness/lifecycle/session-start",
        json={"sessionKey": "srv-1", "project": "/srv/atlas"},
    )
    assert answer.status_code == 200
    assert "inject" in answer.json()
    assert _sent(mock, "/api/hooks/session-start") == [
        {"sessionKey": "srv-1", "project": "/srv/atlas", "harness": "my-harness"}
    ]
    remembered = await served.post(
        "/v1/my-harness/lifecycle/remember", json={"content": "atlas ships on Tuesdays"}
    )
    assert remembered.status_code == 200 and remembered.json()["id"]
    found = await served.post("/v1/my-harness/lifecycle/recall", json={"query": "atlas"})
    assert [r["content"] for r in found.json()["results"]] == ["atlas ships on Tuesdays"]


async def test_invalid_bodies_are_422_naming_the_field(served: httpx.AsyncClient) -> None:
    missing = await served.post("/v1/h/lifecycle/recall", json={"limit": 3})
    assert missing.status_code == 422 and missing.json()["field"] == "query"
    extra = await served.post("/v1/h/lifecycle/recall", json={"query": "q", "colour": 1})
    assert extra.status_code == 422 and extra.json()["field"] == "colour"
    wrong = await served.post("/v1/h/lifecycle/recall", json={"query": 5})
    assert wrong.status_code == 422 and wrong.json()["field"] == "query"
    camel = await served.post("/v1/h/lifecycle/session-start", json={"sessionKey": 5})
    assert camel.status_code == 422 and camel.json()["field"] == "sessionKey"
    nested = await served.post(
        "/v1/h/lifecycle/user-prompt-submit", json={"sessionKey": "s", "userMessage": ["x"]}
    )
    assert nested.status_code == 422 and nested.json()["field"] == "userMessage"
    # A field of several types names itself, not pydantic's branch ("tags.str").
    union = await served.post("/v1/h/lifecycle/remember", json={"content": "c", "tags": [1, {}]})
    assert union.status_code == 422 and union.json()["field"] == "tags"
    not_json = await served.post(
        "/v1/h/lifecycle/recall", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert not_json.status_code == 422


async def test_unknown_actions_events_and_harnesses_are_404_listing_the_valid_ones(
    served: httpx.AsyncClient,
) -> None:
    action = await served.post("/v1/h/lifecycle/frobnicate", json={})
    assert action.status_code == 404 and "session-start" in action.json()["valid"]
    harness = await served.post("/v1/no-such/events/SessionStart", json={})
    assert harness.status_code == 404 and harness.json()["installed"] == installed_adapters()
    assert "claude-code" in harness.json()["installed"]
    event = await served.post("/v1/claude-code/events/Frobnicate", json={})
    assert event.status_code == 404 and "UserPromptSubmit" in event.json()["valid"]


async def test_native_event_gives_the_structured_output(
    served: httpx.AsyncClient, daemon: tuple[MockDaemon, str]
) -> None:
    mock = daemon[0]
    await served.post("/v1/x/lifecycle/remember", json={"content": "the deploy day is Tuesday"})
    payload = {
        "session_id": "srv-cc-1",
        "cwd": "/srv/atlas",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "which deploy day?",
    }
    answer = await served.post("/v1/claude-code/events/UserPromptSubmit", json=payload)
    assert answer.status_code == 200
    body = answer.json()
    assert body["degraded"] is None and body["exitCode"] == 0 and body["pending"] == []
    context = body["data"]["hookSpecificOutput"]["additionalContext"]
    assert "the deploy day is Tuesday" in context
    assert body["stdout"] == json.dumps(body["data"], separators=(",", ":"), ensure_ascii=False)
    (sent,) = _sent(mock, "/api/hooks/user-prompt-submit")
    assert sent["harness"] == "claude-code" and sent["sessionKey"] == "srv-cc-1"
    assert sent["runtimePath"] == "legacy"


async def _timed_post(
    client: httpx.AsyncClient, url: str, body: dict[str, object]
) -> tuple[httpx.Response, float]:
    """The answer to posting ``body`` to ``url``, and the seconds it took."""
    started = time.monotonic()
    answer = await client.post(url, json=body)
    return answer, time.monotonic() - started


async def _read_then_write(
    client: httpx.AsyncClient, summary: str
) -> tuple[httpx.Response, float, httpx.Response, float]:
    """A prompt (a read), then a PostCompact carrying ``summary`` (a write): each answer and
    the seconds it took."""
    read, read_took = await _timed_post(
        client,
        "/v1/claude-code/events/UserPromptSubmit",
        {"session_id": "s", "cwd": "/w", "prompt": "hi"},
    )
    write, write_took = await _timed_post(
        client,
        "/v1/claude-code/events/PostCompact",
        {"session_id": "s", "cwd": "/w", "compact_summary": summary},
    )
    return read, read_took, write, write_took


async def test_events_fail_open_when_the_daemon_is_down(private_state: Path) -> None:
    server = RuntimeAdapterServer("http://127.0.0.1:9", max_retries=0)
    async with make_client(server) as client:
        started = time.monotonic()
        read, _, write, _ = await _read_then_write(client, "we chose make ship")
    await server.aclose()
    assert time.monotonic() - started < 5
    assert read.status_code == 200
    assert read.json()["data"] is None and read.json()["degraded"].startswith("NotSentError")
    assert write.status_code == 200 and write.json()["data"] is None
    assert write.json()["degraded"].startswith("NotSentError")  # why the write is pending
    outbox = private_state / "signet-sdk" / "outbox"
    (entry,) = [json.loads(p.read_text()) for p in outbox.glob("*.json")]
    assert write.json()["pending"] == [entry["id"]]  # safe on disk, sent later
    assert entry["action"] == "compaction_complete"
    assert entry["body"] == {"sessionKey": "s", "summary": "we chose make ship", "project": "/w"}
    # One line each in hooks.log, as a hook process writes for the same event.
    log = (private_state / "signet-sdk" / "hooks.log").read_text().splitlines()
    said = [line.split(" ", 1)[1].split(" pid=")[0] for line in log if "failed open" in line]
    assert said == ["claude-code UserPromptSubmit", "claude-code PostCompact"]
    assert all("daemon call failed, failed open: cannot connect" in line for line in log)


async def test_a_slow_daemon_costs_the_event_its_deadline_only(
    daemon: tuple[MockDaemon, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNET_PROMPT_SUBMIT_TIMEOUT", "1000")
    hung = FaultProxy(mode="hang")  # on 127.0.0.1: reads each request, never answers
    server = RuntimeAdapterServer(hung.url, max_retries=0)
    try:
        async with make_client(server) as client:
            started = time.monotonic()
            answer = await client.post(
                "/v1/claude-code/events/UserPromptSubmit",
                json={"session_id": "s", "cwd": "/w", "prompt": "hi"},
            )
        await server.aclose()
    finally:
        hung.close()
    assert [seen.path for seen in hung.seen] == ["/api/hooks/user-prompt-submit"]
    assert time.monotonic() - started < 3
    assert answer.status_code == 200 and answer.json()["degraded"]


@pytest.mark.parametrize(
    "headers",
    [
        # The shims' transport: percent-encoded, and said so.
        {"x-signet-context": "uri", "x-signet-project": "%2Fhome%2Fjos%C3%A9%2F%E9%A1%B9"},
        # curl or an older transport: the raw UTF-8 bytes.
        {"x-signet-project": "/home/josé/项".encode()},
    ],
    ids=["percent-encoded", "raw-utf-8"],
)
async def test_a_tool_context_of_any_text_reaches_the_daemon_as_sent(
    served: httpx.AsyncClient, daemon: tuple[MockDaemon, str], headers: dict[str, Any]
) -> None:
    stored = await served.post(
        "/v1/tools/memory_store", json={"content": "the release branch is frozen"}, headers=headers
    )
    assert stored.status_code == 200, stored.text
    (body,) = _sent(daemon[0], "/api/memory/remember")
    assert body["project"] == "/home/josé/项"


async def test_tools_are_listed_and_called(
    served: httpx.AsyncClient, daemon: tuple[MockDaemon, str]
) -> None:
    listed = (await served.get("/v1/tools")).json()["tools"]
    names = [t["name"] for t in listed]
    assert "memory_search" in names and "secrets_exec" not in names
    stored = await served.post(
        "/v1/tools/memory_store",
        json={"content": "staging runs on pg-staging-2"},
        headers={"x-signet-project": "/srv/atlas", "x-signet-harness": "agent"},
    )
    assert stored.status_code == 200 and stored.json()["dedup_outcome"] == "new"
    (body,) = _sent(daemon[0], "/api/memory/remember")
    assert body == {"content": "staging runs on pg-staging-2", "project": "/srv/atlas"}
    found = await served.post("/v1/tools/memory_search", json={"query": "staging"})
    assert found.json()["results"][0]["id"] == stored.json()["id"]
    bad = await served.post("/v1/tools/memory_search", json={"query": "x", "limit": 999})
    assert bad.status_code == 422 and bad.json()["field"] == "limit"
    unknown = await served.post("/v1/tools/memory_delete", json={})
    assert unknown.status_code == 404 and "memory_forget" in unknown.json()["valid"]
    missing = await served.post("/v1/tools/memory_get", json={"id": "no-such-memory"})
    assert (missing.status_code, missing.json()) == (
        404,
        {
            "error": "id: memory_get: no memory with id 'no-such-memory' "
            "(never stored, or forgotten)",
            "daemonStatus": 404,
        },
    )
    refused = await served.post(
        "/v1/tools/secrets_exec", json={"command": "env", "secrets": {"A": "b"}}
    )
    assert refused.status_code == 403


async def test_a_memory_id_that_is_a_dot_segment_is_422_naming_it(
    served: httpx.AsyncClient, daemon: tuple[MockDaemon, str]
) -> None:
    # The id was sent as a dot segment and the request reached another route;
    # the client now refuses it, which is the caller's error, not the daemon's.
    for tool, arguments in (
        ("memory_get", {"id": "."}),
        ("memory_modify", {"id": "..", "importance": 0.5, "reason": "r"}),
        ("memory_forget", {"id": ".", "reason": "r"}),
    ):
        answer = await served.post(f"/v1/tools/{tool}", json=arguments)
        assert answer.status_code == 422, (tool, answer.text)
        assert answer.json()["field"] == "id" and "dot segment" in answer.json()["error"]
    assert [r.path for r in daemon[0].requests if r.path.startswith("/api/memory")] == []


async def test_openapi_and_docs(served: httpx.AsyncClient) -> None:
    spec = (await served.get("/openapi.json")).json()
    assert "/v1/{harness}/lifecycle/session-start" in spec["paths"]
    assert "/v1/{harness}/events/{event}" in spec["paths"]
    assert (await served.get("/docs")).status_code == 200


async def test_events_fail_open_when_the_daemon_answers_500(private_state: Path) -> None:
    with stand_in_daemon(status=500) as daemon:
        server = RuntimeAdapterServer(daemon.url, max_retries=0)
        async with make_client(server) as client:
            read, _, write, _ = await _read_then_write(client, "kept for later")
            lifecycle = await client.post("/v1/h/lifecycle/recall", json={"query": "q"})
        await server.aclose()
    assert read.status_code == 200 and read.json()["data"] is None
    assert read.json()["degraded"].startswith("InternalServerError")
    assert write.status_code == 200 and write.json()["degraded"].startswith("InternalServerError")
    outbox = private_state / "signet-sdk" / "outbox"
    (entry,) = [json.loads(p.read_text()) for p in outbox.glob("*.json")]
    assert write.json()["pending"] == [entry["id"]]
    assert entry["body"]["summary"] == "kept for later"
    # A lifecycle call has no neutral answer: the daemon's failure is a 502 naming its status.
    assert lifecycle.status_code == 502 and lifecycle.json()["daemonStatus"] == 500


async def test_a_detached_write_answers_at_once_and_is_delivered_before_shutdown(
    private_state: Path,
) -> None:
    with stand_in_daemon(delay=0.5) as daemon:
        server = RuntimeAdapterServer(daemon.url, max_retries=0)
        async with make_client(server) as client:
            answer, took = await _timed_post(
                client,
                "/v1/claude-code/events/SessionEnd",
                {"session_id": "s-end", "cwd": "/w", "reason": "exit"},
            )
        assert answer.status_code == 200 and len(answer.json()["pending"]) == 1
        assert took < 0.5  # on disk, not yet sent
        await server.aclose()  # what shutdown does: finish background deliveries
        assert daemon.paths == ["/api/hooks/session-end"]
    assert list((private_state / "signet-sdk" / "outbox").glob("*.json")) == []


async def test_a_daemon_that_answers_too_late_costs_the_deadline_and_keeps_the_write(
    private_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNET_PROMPT_SUBMIT_TIMEOUT", "500")
    monkeypatch.setenv("SIGNET_FETCH_TIMEOUT", "700")
    with stand_in_daemon(delay=3.0) as daemon:
        server = RuntimeAdapterServer(daemon.url, max_retries=0)
        async with make_client(server) as client:
            read, read_took, write, write_took = await _read_then_write(client, "late but kept")
        await server.aclose()
    assert read.status_code == 200 and read.json()["degraded"]
    assert read_took < 1.5 and write_took < 1.7
    assert write.status_code == 200 and write.json()["degraded"] and write.json()["pending"]
    outbox = private_state / "signet-sdk" / "outbox"
    (entry,) = [json.loads(p.read_text()) for p in outbox.glob("*.json")]
    assert entry["body"]["summary"] == "late but kept"


async def test_event_bodies_that_are_not_a_json_object_are_422_naming_the_body(
    served: httpx.AsyncClient, daemon: tuple[MockDaemon, str]
) -> None:
    url = "/v1/claude-code/events/UserPromptSubmit"
    for content in (b"not json", b"[1, 2]", b"", b'"text"'):
        answer = await served.post(url, content=content)
        assert answer.status_code == 422, content
        assert answer.json()["field"] == "body" and answer.json()["error"].startswith("body: ")
    assert daemon[0].requests == []


async def test_a_number_json_cannot_carry_is_422_not_stored_as_the_default(
    served: httpx.AsyncClient, daemon: tuple[MockDaemon, str]
) -> None:
    # Python's json reads NaN and Infinity; sent on, they were null and the
    # daemon stored importance 0.8 for them.
    url = "/v1/h/lifecycle/remember"
    for number in (b"NaN", b"Infinity", b"-Infinity"):
        answer = await served.post(url, content=b'{"content": "c", "importance": ' + number + b"}")
        assert answer.status_code == 422, number
        assert answer.json()["field"] == "importance"
    assert daemon[0].requests == []


async def test_mounted_fastapi_app_answers_events_as_the_server_does(
    daemon: tuple[MockDaemon, str],
) -> None:
    """``server.fastapi`` (for mounting in another app) serves the same event answers."""
    payload = {
        "session_id": "srv-mount-1",
        "cwd": "/srv/atlas",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "which deploy day?",
    }
    answers = []
    for app in ("asgi", "fastapi"):
        server = RuntimeAdapterServer(daemon[1])
        transport = httpx.ASGITransport(app=getattr(server, app))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            answer = await client.post("/v1/claude-code/events/UserPromptSubmit", json=payload)
            missing = await client.post("/v1/no-such/events/X", json={})
        await server.aclose()
        body = answer.json()
        context = body["data"]["hookSpecificOutput"]["additionalContext"]
        # The inject names the current minute: compare what does not move.
        shape = (body["degraded"], body["exitCode"], body["pending"], "# Memory Check" in context)
        answers.append((answer.status_code, shape, missing.status_code, missing.json()))
    assert answers[0] == answers[1]
    assert answers[0][0] == 200 and answers[0][2] == 404
