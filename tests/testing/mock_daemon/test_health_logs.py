"""``/health``, ``/api/logs`` and the ``/api/logs/stream`` SSE (§3.13-§3.15)."""

from __future__ import annotations

import json
import time

import anyio
import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon


@pytest.mark.anyio
async def test_health_shape(client: httpx.AsyncClient, daemon: MockDaemon) -> None:
    daemon.advance(90)
    body = (await client.get("/health")).json()
    assert body["status"] == "healthy"
    assert body["uptime"] == 90
    assert body["version"] == "0.109.0"
    assert (body["db"], body["shuttingDown"], body["updateAvailable"]) == (True, False, False)
    assert body["pendingRestart"] is False
    assert set(body["pipeline"]) == {
        "extractionRunning",
        "extractionStalled",
        "extractionPending",
        "extractionBackoffMs",
    }
    assert {"pid", "port", "agentsDir", "resources"} <= set(body)


@pytest.mark.anyio
async def test_logs_record_requests_with_filters(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    await client.get("/health")
    await client.get("/nope")
    await client.post("/api/hooks/session-start", content=b"{")
    body = (await client.get("/api/logs")).json()
    http = [e for e in body["logs"] if e["category"] == "http"]
    assert [e["message"] for e in http] == [
        "GET /health 200",
        "GET /nope 404",
        "POST /api/hooks/session-start 500",
    ]
    first = http[0]
    assert set(first) == {"timestamp", "level", "category", "message", "data", "duration"}
    assert first["timestamp"] == "2026-04-30T12:00:00.000Z"
    assert first["data"] == {"method": "GET", "path": "/health", "status": 200}
    assert body["count"] == len(body["logs"])

    warn = (await client.get("/api/logs", params={"level": "warn", "category": "http"})).json()
    assert [e["message"] for e in warn["logs"]] == [
        "GET /nope 404",
        "POST /api/hooks/session-start 500",
    ]
    last = (await client.get("/api/logs", params={"limit": 1, "category": "http"})).json()
    assert [e["message"] for e in last["logs"]] == ["GET /api/logs 200"]
    daemon.advance(60)
    await client.get("/health")
    recent = (await client.get("/api/logs", params={"since": "2026-04-30T12:00:30Z"})).json()
    assert [e["message"] for e in recent["logs"]] == ["GET /health 200"]


def frames(text: str) -> list[dict[str, object]]:
    out = []
    for chunk in text.split("\n\n"):
        if chunk:
            assert chunk.startswith("data: ")
            out.append(json.loads(chunk[len("data: ") :]))
    return out


@pytest.mark.anyio
async def test_log_stream_in_process(client: httpx.AsyncClient, daemon: MockDaemon) -> None:
    responses: list[httpx.Response] = []

    async def consume() -> None:
        responses.append(await client.get("/api/logs/stream"))

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(consume)
            while daemon.open_log_streams == 0:
                await anyio.sleep(0)
            await client.get("/health")
            daemon.close_log_streams()
    (r,) = responses
    assert r.headers["content-type"] == "text/event-stream"
    assert r.headers["cache-control"] == "no-cache"
    events = frames(r.text)
    assert events[0] == {"type": "connected"}
    assert [e["message"] for e in events[1:] if e.get("category") == "http"] == ["GET /health 200"]
    assert daemon.open_log_streams == 0


@pytest.mark.anyio
async def test_head_on_the_stream_does_not_hang(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    with anyio.fail_after(5):
        r = await client.head("/api/logs/stream")
    assert (r.status_code, r.headers["content-type"]) == (200, "text/event-stream")
    assert daemon.open_log_streams == 0


def test_log_stream_over_a_socket_ends_when_the_client_leaves() -> None:
    daemon = MockDaemon(version="0.109")
    with daemon.serve() as server, httpx.Client(base_url=server.url, timeout=5) as client:
        with client.stream("GET", "/api/logs/stream") as stream:
            assert stream.headers["content-type"] == "text/event-stream"
            lines = stream.iter_lines()
            assert next(lines) == 'data: {"type":"connected"}'
            assert next(lines) == ""
            httpx.get(f"{server.url}/health", timeout=5)
            entry = json.loads(next(lines)[len("data: ") :])
            assert (entry["category"], entry["message"]) == ("http", "GET /health 200")
        deadline = time.monotonic() + 5
        while daemon.open_log_streams and time.monotonic() < deadline:
            time.sleep(0.01)
        assert daemon.open_log_streams == 0
    daemon.close()


def test_server_stop_ends_open_streams() -> None:
    daemon = MockDaemon(version="0.109")
    with daemon.serve() as server:
        client = httpx.Client(base_url=server.url, timeout=5)
        with client.stream("GET", "/api/logs/stream") as stream:
            lines = stream.iter_lines()
            assert next(lines) == 'data: {"type":"connected"}'
            started = time.monotonic()
            server.stop()
            assert time.monotonic() - started < 5
            assert [line for line in lines if line] == []  # the stream ended cleanly
        client.close()
    daemon.close()
