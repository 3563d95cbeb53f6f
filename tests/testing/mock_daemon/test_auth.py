"""Auth modes, bearer parsing and role permissions (§1.4)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

pytestmark = pytest.mark.anyio

TOKENS = {"adm": "admin", "ag": "agent", "ro": "readonly", "op": "operator"}
REQUIRED = {"error": "authentication required"}


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


@pytest.fixture
async def team() -> AsyncIterator[httpx.AsyncClient]:
    daemon = MockDaemon(version="0.109", auth_mode="team", tokens=TOKENS)
    transport = httpx.ASGITransport(app=daemon)
    async with httpx.AsyncClient(transport=transport, base_url="http://d") as c:
        yield c
    daemon.close()


async def test_local_mode_checks_nothing(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/memory/remember", json={"content": "x"}, headers=bearer("junk"))
    assert r.status_code == 200


async def test_team_mode_needs_a_token_everywhere(team: httpx.AsyncClient) -> None:
    for path in ("/health", "/api/logs", "/nope"):
        r = await team.get(path)
        assert (r.status_code, r.json()) == (401, REQUIRED), path
        assert r.headers["www-authenticate"] == "Bearer"
    for header in ("bearer adm", "Bearer  adm", "Basic abc", "Bearer"):
        r = await team.get("/health", headers={"authorization": header})
        assert (r.status_code, r.json()) == (401, REQUIRED), header
    r = await team.get("/health", headers=bearer("who-knows"))
    assert (r.status_code, r.json()) == (401, {"error": "invalid signature"})
    assert r.headers["www-authenticate"] == "Bearer"
    assert (await team.get("/health", headers=bearer("ro"))).status_code == 200
    # Authenticated, unknown route: Hono's 404.
    r = await team.get("/nope", headers=bearer("ro"))
    assert (r.status_code, r.text) == (404, "404 Not Found")


async def test_role_permissions_on_guarded_routes(team: httpx.AsyncClient) -> None:
    r = await team.post("/api/memory/remember", json={"content": "x"}, headers=bearer("ro"))
    assert (r.status_code, r.json()) == (
        403,
        {"error": "role 'readonly' lacks 'remember' permission"},
    )
    r = await team.post("/api/memory/remember", json={"content": "x"}, headers=bearer("ag"))
    assert r.status_code == 200
    mid = r.json()["id"]
    assert (await team.get(f"/api/memory/{mid}", headers=bearer("ro"))).status_code == 200
    r = await team.patch(
        f"/api/memory/{mid}", json={"reason": "r", "type": "x"}, headers=bearer("ro")
    )
    assert r.json() == {"error": "role 'readonly' lacks 'modify' permission"}
    r = await team.request("DELETE", f"/api/memory/{mid}?reason=r", headers=bearer("ro"))
    assert r.json() == {"error": "role 'readonly' lacks 'forget' permission"}
    r = await team.get("/api/sessions/summaries", headers=bearer("ro"))
    assert r.status_code == 200
    # The token names the actor of a mutation.
    r = await team.patch(
        f"/api/memory/{mid}", json={"reason": "r", "type": "rule"}, headers=bearer("op")
    )
    assert r.json()["status"] == "updated"
    row = (await team.get(f"/api/memory/{mid}", headers=bearer("op"))).json()
    assert row["updated_by"] == "token:operator"


async def test_hooks_have_no_guard_except_remember_through_the_proxy(
    team: httpx.AsyncClient,
) -> None:
    r = await team.post("/api/hooks/session-start", json={"harness": "h"}, headers=bearer("ro"))
    assert r.status_code == 200
    r = await team.post(
        "/api/hooks/recall", json={"harness": "h", "query": "q"}, headers=bearer("ro")
    )
    assert r.status_code == 200
    r = await team.post(
        "/api/hooks/remember", json={"harness": "h", "content": "c"}, headers=bearer("ro")
    )
    assert (r.status_code, r.json()) == (
        403,
        {"error": "role 'readonly' lacks 'remember' permission"},
    )
    r = await team.post(
        "/api/hooks/remember", json={"harness": "h", "content": "c"}, headers=bearer("ag")
    )
    assert r.status_code == 200


async def test_hybrid_mode_trusts_only_loopback_peers() -> None:
    daemon = MockDaemon(version="0.109", auth_mode="hybrid", tokens=TOKENS)
    local = httpx.ASGITransport(app=daemon, client=("127.0.0.1", 5000))
    remote = httpx.ASGITransport(app=daemon, client=("10.1.2.3", 5000))
    v6 = httpx.ASGITransport(app=daemon, client=("::1", 5000))
    async with (
        httpx.AsyncClient(transport=local, base_url="http://d") as near,
        httpx.AsyncClient(transport=remote, base_url="http://d") as far,
        httpx.AsyncClient(transport=v6, base_url="http://d") as near6,
    ):
        assert (await near.get("/health")).status_code == 200
        assert (await near6.get("/health")).status_code == 200
        r = await near.post("/api/memory/remember", json={"content": "x"})
        assert r.status_code == 200  # loopback without a token: allowed
        # An invalid token from loopback is ignored, not refused.
        r = await near.post("/api/memory/remember", json={"content": "y"}, headers=bearer("bad"))
        assert r.status_code == 200
        # A valid token from loopback is checked.
        r = await near.post("/api/memory/remember", json={"content": "z"}, headers=bearer("ro"))
        assert r.status_code == 403
        r = await far.get("/health")
        assert (r.status_code, r.json()) == (401, REQUIRED)
        assert r.headers["www-authenticate"] == "Bearer"
        assert (await far.get("/health", headers=bearer("ro"))).status_code == 200
    daemon.close()


async def test_tokens_can_be_added_later() -> None:
    daemon = MockDaemon(version="0.109", auth_mode="team")
    daemon.add_token("fresh", "agent")
    transport = httpx.ASGITransport(app=daemon)
    async with httpx.AsyncClient(transport=transport, base_url="http://d") as c:
        assert (await c.get("/health", headers=bearer("fresh"))).status_code == 200
    daemon.close()


def test_unknown_roles_and_modes_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown role"):
        MockDaemon(auth_mode="team", tokens={"t": "root"})
    with pytest.raises(ValueError, match="auth_mode"):
        MockDaemon(auth_mode="open")  # type: ignore[arg-type]
