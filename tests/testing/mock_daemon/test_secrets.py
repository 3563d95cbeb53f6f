"""``POST /api/secrets/exec`` (§3.12): no shell, injected env, redaction, exact errors."""

from __future__ import annotations

import shutil

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.testing.mock_daemon._routes_ops import split_command

pytestmark = pytest.mark.anyio

needs_printenv = pytest.mark.skipif(shutil.which("printenv") is None, reason="needs printenv")


async def exec_(client: httpx.AsyncClient, command: object, secrets: object) -> httpx.Response:
    return await client.post("/api/secrets/exec", json={"command": command, "secrets": secrets})


@needs_printenv
async def test_secret_reaches_the_process_but_not_the_caller(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    daemon.set_secret("OPENAI_KEY", "sk-live-1234")
    r = await exec_(client, "printenv API_KEY", {"API_KEY": "OPENAI_KEY"})
    assert r.json() == {"stdout": "[REDACTED]\n", "stderr": "", "code": 0}
    r = await exec_(client, "printenv API_KEY", {"API_KEY": "local://OPENAI_KEY"})
    assert r.json()["stdout"] == "[REDACTED]\n"


@needs_printenv
async def test_short_values_are_not_redacted_and_exit_codes_are_200(
    client: httpx.AsyncClient, daemon: MockDaemon
) -> None:
    daemon.set_secret("PIN", "123")
    r = await exec_(client, "printenv PIN_VALUE", {"PIN_VALUE": "PIN"})
    assert r.json() == {"stdout": "123\n", "stderr": "", "code": 0}
    r = await exec_(client, "printenv DOES_NOT_EXIST_ANYWHERE", {"PIN_VALUE": "PIN"})
    assert (r.status_code, r.json()["code"]) == (200, 1)


@pytest.mark.parametrize(
    "command", ["echo $HOME", "ls; rm x", "a && b", "cat < f", "echo `id`", "x | y", "echo \\n"]
)
async def test_shell_metacharacters_are_refused(
    client: httpx.AsyncClient, daemon: MockDaemon, command: str
) -> None:
    daemon.set_secret("S", "value")
    r = await exec_(client, command, {"S": "S"})
    assert (r.status_code, r.json()) == (
        200,
        {"stdout": "", "stderr": "command contains disallowed shell metacharacters", "code": 1},
    )


async def test_validation_errors(client: httpx.AsyncClient, daemon: MockDaemon) -> None:
    daemon.set_secret("S", "value")
    for command in (None, "", 5):
        r = await exec_(client, command, {"S": "S"})
        assert (r.status_code, r.json()) == (400, {"error": "command is required"})
    for secrets in (None, {}, ["S"], "S"):
        r = await exec_(client, "echo hi", secrets)
        assert (r.status_code, r.json()) == (400, {"error": "secrets map is required"})
    r = await exec_(client, "echo hi", {"X": "MISSING"})
    assert (r.status_code, r.json()) == (500, {"error": "Secret 'MISSING' not found"})
    r = await exec_(client, "echo hi", {"X": "not-a-name"})
    assert r.status_code == 500
    r = await exec_(client, "definitely-not-a-command-xyz", {"S": "S"})
    assert (r.status_code, r.json()) == (
        500,
        {"error": "spawn definitely-not-a-command-xyz ENOENT"},
    )


async def test_secrets_need_admin_in_team_mode() -> None:
    daemon = MockDaemon(
        version="0.109", auth_mode="team", tokens={"adm": "admin", "op": "operator"}
    )
    daemon.set_secret("S", "value")
    transport = httpx.ASGITransport(app=daemon)
    async with httpx.AsyncClient(transport=transport, base_url="http://d") as client:
        body = {"command": "echo hi", "secrets": {"S": "S"}}
        r = await client.post(
            "/api/secrets/exec", json=body, headers={"authorization": "Bearer op"}
        )
        assert (r.status_code, r.json()) == (
            403,
            {"error": "role 'operator' lacks 'admin' permission"},
        )
        r = await client.post(
            "/api/secrets/exec", json=body, headers={"authorization": "Bearer adm"}
        )
        assert r.json() == {"stdout": "hi\n", "stderr": "", "code": 0}
    daemon.close()


def test_split_command_groups_quotes() -> None:
    assert split_command("echo 'a b'  \"c d\" e") == ["echo", "a b", "c d", "e"]
    assert split_command("x''y") == ["xy"]
    assert split_command("   ") == []
