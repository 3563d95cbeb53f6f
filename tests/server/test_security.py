"""The gate: bearer token, Host header, body limit; and serve's refusal to bind openly."""

from __future__ import annotations

import subprocess
import sys

import pytest

from signet_sdk.server import RuntimeAdapterServer

from .server_support import make_client

pytestmark = pytest.mark.anyio

TOKEN = "s3cret-token-for-tests"


def _server(**kw: object) -> RuntimeAdapterServer:
    return RuntimeAdapterServer(
        "http://127.0.0.1:9",
        max_retries=0,
        allowed_hosts=["127.0.0.1:3851"],
        **kw,  # type: ignore[arg-type]
    )


async def test_token_required_everywhere_but_a_bare_health() -> None:
    server = _server(server_token=TOKEN)
    async with make_client(server) as anon:
        health = await anon.get("/health")
        assert (health.status_code, health.json()) == (200, {"status": "ok"})
        denied = await anon.post("/v1/h/lifecycle/recall", json={"query": "q"})
        assert denied.status_code == 401 and denied.headers["www-authenticate"] == "Bearer"
    async with make_client(server, authorization="Bearer wrong") as wrong:
        assert (await wrong.post("/v1/h/lifecycle/recall", json={"query": "q"})).status_code == 401
        assert (await wrong.get("/v1/tools")).status_code == 401
    async with make_client(server, authorization=f"Bearer {TOKEN}") as right:
        full = (await right.get("/health")).json()
        assert full["version"] and "daemon" in full
        assert (await right.get("/v1/tools")).status_code == 200


@pytest.mark.parametrize(
    ("authorization", "status"),
    [
        (f"bearer {TOKEN}", 200),  # the scheme is case-insensitive (RFC 9110)
        (f"BEARER  {TOKEN}", 200),
        (TOKEN, 401),  # no scheme
        (f"Basic {TOKEN}", 401),
        (f"Bearer {TOKEN.upper()}x", 401),  # the token is compared exactly
        ("Bearer ", 401),
        ("Bearer", 401),
    ],
)
async def test_the_bearer_scheme_in_any_case_and_only_the_exact_token(
    authorization: str, status: int
) -> None:
    server = _server(server_token=TOKEN)
    async with make_client(server, authorization=authorization) as client:
        assert (await client.get("/v1/tools")).status_code == status


async def test_host_header_must_name_the_server() -> None:
    server = _server()
    async with make_client(server) as client:
        ok = await client.get("/health")
        rebound = await client.get("/health", headers={"host": "attacker.example:3851"})
    assert ok.status_code == 200
    assert rebound.status_code == 421


async def test_default_hosts_are_the_loopback_names_on_any_port() -> None:
    server = RuntimeAdapterServer("http://127.0.0.1:9", max_retries=0)
    async with make_client(server) as client:
        for host in ("127.0.0.1:3851", "localhost:8080", "[::1]:1", "LOCALHOST"):
            answer = await client.get("/health", headers={"host": host})
            assert answer.status_code == 200, host
        for host in ("evil.example", "evil.example:3851", "127.0.0.1.evil.example", ""):
            answer = await client.get("/health", headers={"host": host})
            assert answer.status_code == 421, host


async def test_a_wildcard_bind_answers_ip_literals_and_named_hosts_only() -> None:
    server = RuntimeAdapterServer(
        "http://127.0.0.1:9",
        max_retries=0,
        server_token=TOKEN,
        allowed_hosts=["0.0.0.0:3851", "memory.internal"],
        any_ip_host=True,
    )
    async with make_client(server, authorization=f"Bearer {TOKEN}") as client:
        for host in ("192.168.1.20:3851", "[fd00::1]:3851", "memory.internal:443"):
            assert (await client.get("/v1/tools", headers={"host": host})).status_code == 200
        rebound = await client.get("/v1/tools", headers={"host": "attacker.example:3851"})
        assert rebound.status_code == 421


async def test_the_host_check_can_be_turned_off_for_a_front_proxy() -> None:
    server = RuntimeAdapterServer("http://127.0.0.1:9", max_retries=0, allowed_hosts=["*"])
    async with make_client(server) as client:
        answer = await client.get("/health", headers={"host": "memory.example.com"})
    assert answer.status_code == 200


async def test_no_cors_headers() -> None:
    server = _server()
    async with make_client(server) as client:
        answer = await client.get("/health", headers={"origin": "https://evil.example"})
    assert not any(k.startswith("access-control-") for k in answer.headers)


async def test_body_limit_by_length_and_by_stream() -> None:
    server = _server(body_limit=1024)
    async with make_client(server) as client:
        big = await client.post("/v1/h/lifecycle/recall", json={"query": "x" * 2000})
        assert big.status_code == 413

        async def chunks():  # no Content-Length: counted as it arrives
            for _ in range(10):
                yield b" " * 200

        streamed = await client.post(
            "/v1/h/lifecycle/recall", content=chunks(), headers={"content-type": "application/json"}
        )
        assert streamed.status_code == 413
        small = await client.post("/v1/h/lifecycle/recall", json={"query": "x"})
        assert small.status_code == 502  # through the gate, then the daemon is down


def test_serve_refuses_a_non_loopback_bind_without_a_token() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "signet_sdk", "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "refusing to listen on 0.0.0.0 without --token" in done.stderr


def test_serve_refuses_a_bad_daemon_url_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "signet_sdk.server", "--port", "0", "--daemon-url", "ftp://x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "daemon_url" in done.stderr


def test_token_not_in_reprs() -> None:
    server = _server(server_token=TOKEN, token="daemon-token-xyz")
    assert TOKEN not in repr(server) and "daemon-token-xyz" not in repr(server)
    assert TOKEN not in repr(server.asgi)
