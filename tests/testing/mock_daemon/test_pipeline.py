"""The request pipeline: routing, error bodies per route family, body limit, recording."""

from __future__ import annotations

import re
import subprocess
import sys

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.wire.endpoints import ENDPOINTS

pytestmark = pytest.mark.anyio


async def test_unknown_route_is_plain_text_404(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/nope")
    assert r.status_code == 404
    assert r.text == "404 Not Found"
    assert r.headers["content-type"].startswith("text/plain")
    # Wrong method on a known path is the same 404, as in Hono.
    r = await client.put("/api/hooks/session-start", json={})
    assert (r.status_code, r.text) == (404, "404 Not Found")


async def test_json_responses_declare_application_json(client: httpx.AsyncClient) -> None:
    r = await client.get("/health")
    assert r.headers["content-type"] == "application/json"
    r = await client.post("/api/hooks/session-start", json={})
    assert r.headers["content-type"] == "application/json"


@pytest.mark.daemon(version="0.145")  # the map includes the routes added after 0.109
async def test_every_endpoint_in_the_map_is_served(client: httpx.AsyncClient) -> None:
    for ep in ENDPOINTS:
        if ep.name == "logs_stream":
            continue  # covered by the SSE tests (the stream never ends by itself)
        path = re.sub(r"\{[^}]+\}", "some-id", ep.path)
        r = await client.request(ep.method, path, content=b"{}")
        assert r.text != "404 Not Found", f"{ep.method} {ep.path} is not routed"


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("/api/hooks/session-start", "Hook execution failed"),
        ("/api/hooks/user-prompt-submit", "Hook execution failed"),
        ("/api/hooks/session-end", "Hook execution failed"),
        ("/api/hooks/session-checkpoint-extract", "Hook execution failed"),
        ("/api/hooks/remember", "Hook execution failed"),
        ("/api/hooks/recall", "Hook execution failed"),
        ("/api/hooks/pre-compaction", "Hook execution failed"),
        ("/api/hooks/compaction-complete", "Failed to save summary"),
        ("/api/hooks/synthesis", "Synthesis request failed"),
        ("/api/hooks/synthesis/complete", "Failed to save MEMORY.md"),
    ],
)
async def test_malformed_json_on_hooks_is_500(
    client: httpx.AsyncClient, path: str, error: str
) -> None:
    for body in (b"{not json", b""):
        r = await client.post(path, content=body, headers={"content-type": "application/json"})
        assert r.status_code == 500
        assert r.json() == {"error": error}


async def test_null_body_on_a_hook_is_500_but_an_array_is_missing_fields(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post("/api/hooks/session-start", content=b"null")
    assert (r.status_code, r.json()) == (500, {"error": "Hook execution failed"})
    r = await client.post("/api/hooks/session-start", content=b"[1,2]")
    assert (r.status_code, r.json()) == (400, {"error": "harness is required"})


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/memory/remember"),
        ("POST", "/api/memory/recall"),
        ("PATCH", "/api/memory/abc"),
        ("DELETE", "/api/memory/abc"),
        ("POST", "/api/memory/forget"),
        ("POST", "/api/memory/modify"),
    ],
)
async def test_malformed_json_on_memory_routes_is_400(
    client: httpx.AsyncClient, method: str, path: str
) -> None:
    r = await client.request(method, path, content=b"{oops")
    assert r.status_code == 400
    assert r.json() == {"error": "Invalid JSON body"}


async def test_malformed_json_on_bypass_expand_and_secrets(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    await client.post("/api/hooks/session-start", json={"harness": "h", "sessionKey": "k"})
    r = await client.post("/api/sessions/k/bypass", content=b"{oops")
    assert (r.status_code, r.json()) == (400, {"error": "enabled (boolean) is required"})
    r = await client.post("/api/sessions/summaries/expand", content=b"{oops")
    assert (r.status_code, r.json()) == (400, {"error": "id is required"})
    r = await client.post("/api/secrets/exec", content=b"{oops")
    assert r.status_code == 500
    assert r.json()["error"].startswith("JSON Parse error")


async def test_body_over_the_limit_is_413() -> None:
    daemon = MockDaemon(version="0.109", body_limit=1024)
    transport = httpx.ASGITransport(app=daemon)
    async with httpx.AsyncClient(transport=transport, base_url="http://d") as client:
        big = b'{"harness":"h","content":"' + b"x" * 2000 + b'"}'
        r = await client.post("/api/hooks/remember", content=big)
        assert (r.status_code, r.json()) == (413, {"error": "payload too large"})

        async def chunks():  # streamed without a content-length: bytes are counted
            for _ in range(10):
                yield b"x" * 200

        r = await client.post("/api/memory/remember", content=chunks())
        assert (r.status_code, r.json()) == (413, {"error": "payload too large"})
        r = await client.post("/api/memory/remember", content=b'{"content":"small"}')
        assert r.status_code == 200
    daemon.close()


async def test_every_request_is_recorded(client: httpx.AsyncClient, daemon: MockDaemon) -> None:
    await client.post(
        "/api/hooks/session-start?x=1&x=2",
        json={"harness": "h"},
        headers={"X-Signet-Agent-Id": "alice"},
    )
    await client.get("/nope")
    await client.post("/api/memory/recall", content=b"{bad")
    first, second, third = daemon.requests
    assert first.method == "POST"
    assert first.path == "/api/hooks/session-start"
    assert first.query == {"x": "1"}
    assert first.headers["x-signet-agent-id"] == "alice"
    assert first.json == {"harness": "h"}
    assert first.body == b'{"harness":"h"}'
    assert first.status == 200
    assert first.response_json["identity"] == {
        "name": "Agent",
        "description": "Signet agent (served by the signet-sdk mock daemon)",
    }
    assert (second.status, second.response_json) == (404, None)
    assert (third.json, third.response_json) == (None, {"error": "Invalid JSON body"})
    assert daemon.requests_to("/nope") == [second]
    assert daemon.requests_to("/nope", method="post") == []
    daemon.clear_requests()
    assert daemon.requests == []


async def test_head_is_answered_by_get_without_a_body(client: httpx.AsyncClient) -> None:
    r = await client.head("/health")
    assert r.status_code == 200
    assert r.content == b""


async def test_cors_preflight(client: httpx.AsyncClient) -> None:
    r = await client.options(
        "/api/memory/recall",
        headers={
            "origin": "http://localhost:5173",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type",
        },
    )
    assert r.status_code == 204
    assert r.headers["access-control-allow-origin"] == "http://localhost:5173"
    assert r.headers["access-control-allow-methods"] == "GET,HEAD,PUT,POST,DELETE,PATCH"


def test_import_pulls_in_no_server_or_client_library() -> None:
    code = (
        "import sys, signet_sdk.testing.mock_daemon; "
        "bad = [m for m in ('uvicorn', 'fastapi', 'httpx', 'pydantic', 'starlette') "
        "if m in sys.modules]; print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_instance_and_app_are_asgi_callables(daemon: MockDaemon) -> None:
    assert callable(daemon)
    assert callable(daemon.app)


def test_all_lists_exactly_the_public_names() -> None:
    import signet_sdk.testing.mock_daemon as package

    # "@py_builtins"-style names are pytest's assertion rewriting (the SDK is a pytest
    # plugin, so its modules are rewritten), not the package's.
    public = {n for n in dir(package) if n[0] not in "_@" and n != "annotations"}
    assert set(package.__all__) == public
    assert package.__all__ == sorted(package.__all__)


async def test_unhandled_errors_are_plain_text_500(client: httpx.AsyncClient) -> None:
    # A non-string content throws in the remember route outside its try/catch.
    r = await client.post("/api/memory/remember", json={"content": 5})
    assert (r.status_code, r.text) == (500, "Internal Server Error")
    assert r.headers["content-type"].startswith("text/plain")
    r = await client.post("/api/hooks/remember", json={"harness": "h", "content": 5})
    assert (r.status_code, r.text) == (500, "Internal Server Error")
