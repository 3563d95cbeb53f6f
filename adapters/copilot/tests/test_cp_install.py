"""``signet-sdk install copilot`` / ``uninstall``: the files it writes, byte for byte.

The hook file is ours (``hooks/signet-sdk.json``); ``mcp-config.json`` is the
user's, edited only where our server goes. Uninstall must give back exactly
the bytes that were there (or no file where there was none), a second install
must change nothing, and every refusal must leave every file as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from signet_adapter_copilot.install import HOOK_FILE, hook_command, hook_timeouts, main
from signet_e2e.installer_checks import (
    assert_crlf_kept,
    assert_dangling_link_kept,
    assert_link_kept,
    assert_refused,
)

from signet_sdk.installing.command import sdk_command

USER_MCP = """\
{
  // servers I use every day
  "mcpServers": {
    "playwright": {"type": "local", "command": "npx", "args": ["@playwright/mcp@latest"]},
    "context7": {
      "type": "http",
      "url": "https://mcp.context7.com/mcp",
      "headers": {"CONTEXT7_API_KEY": "secret"},
      "tools": ["*"],
    },
  },
}
"""


def _hooks(copilot_home: Path) -> Path:
    return copilot_home / "hooks" / HOOK_FILE


def _mcp(copilot_home: Path) -> Path:
    return copilot_home / "mcp-config.json"


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (folders as empty markers), by relative path."""
    out = {}
    for path in sorted(root.rglob("*")):
        out[str(path.relative_to(root))] = b"<dir>" if path.is_dir() else path.read_bytes()
    return out


def test_install_writes_our_hook_file_and_server(isolated: Path) -> None:
    assert main(["install"]) == 0

    command = hook_command()
    data = json.loads(_hooks(isolated).read_text())
    assert data == {
        "version": 1,
        "hooks": {
            event: [{"type": "command", "bash": f"{command} {event}", "timeoutSec": seconds}]
            for event, seconds in hook_timeouts({}).items()
        },
    }
    assert hook_timeouts({}) == {
        "sessionStart": 17,
        "userPromptSubmitted": 7,
        "agentStop": 12,
        "preCompact": 12,
        "subagentStart": 17,
        "sessionEnd": 12,
    }
    words = sdk_command()
    assert json.loads(_mcp(isolated).read_text()) == {
        "mcpServers": {
            "signet": {
                "type": "local",
                "command": words[0],
                "args": [*words[1:], "mcp"],
                "env": {"SIGNET_HARNESS": "copilot"},
                "tools": ["*"],
            }
        }
    }
    for path in (_hooks(isolated), _mcp(isolated)):
        assert path.stat().st_mode & 0o777 == 0o600


def test_timeouts_follow_the_hooks_own_deadlines() -> None:
    env = {"SIGNET_PROMPT_SUBMIT_TIMEOUT": "9500", "SIGNET_FETCH_TIMEOUT": "3000"}
    timeouts = hook_timeouts(env)
    assert (timeouts["userPromptSubmitted"], timeouts["agentStop"]) == (12, 5)


def test_a_second_install_changes_nothing(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install"]) == 0
    before = _snapshot(isolated)
    capsys.readouterr()
    assert main(["install"]) == 0
    assert _snapshot(isolated) == before
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.endswith("already up to date, nothing changed") for line in lines)


def test_uninstall_gives_back_the_users_file_byte_for_byte(isolated: Path) -> None:
    _mcp(isolated).write_text(USER_MCP)
    before = _snapshot(isolated)

    assert main(["install"]) == 0
    text = _mcp(isolated).read_text()
    assert text.startswith(USER_MCP[: USER_MCP.index('    "context7"')])  # untouched up to ours
    assert "// servers I use every day" in text and '"CONTEXT7_API_KEY": "secret"' in text
    assert (isolated / "mcp-config.json.signet-sdk-orig").stat().st_mode & 0o777 == 0o600

    assert main(["uninstall"]) == 0
    assert _snapshot(isolated) == before


@pytest.mark.parametrize(
    "original",
    ["", "{}\n", '{\n  "mcpServers": {}\n}\n', '{"theme": "dark"}', "{\n  // only a comment\n}"],
)
def test_uninstall_restores_small_and_empty_configs(isolated: Path, original: str) -> None:
    _mcp(isolated).write_text(original)
    before = _snapshot(isolated)
    assert main(["install"]) == 0
    assert (
        "signet"
        in json.loads(_mcp(isolated).read_text().replace("// only a comment", ""))["mcpServers"]
    )
    assert main(["uninstall"]) == 0
    assert _snapshot(isolated) == before


def test_uninstall_of_a_fresh_install_leaves_no_file_or_folder_behind(tmp_path: Path) -> None:
    """No ~/.copilot before: none after (the folders the install made go too)."""
    home = Path(os.environ["COPILOT_HOME"])
    for path in sorted(home.rglob("*"), reverse=True):
        path.rmdir()
    home.rmdir()
    assert main(["install"]) == 0
    assert _hooks(home).exists()
    assert main(["uninstall"]) == 0
    assert not home.exists()


def test_a_server_added_since_install_stays_after_uninstall(isolated: Path) -> None:
    assert main(["install"]) == 0
    data = json.loads(_mcp(isolated).read_text())
    data["mcpServers"]["mine"] = {"type": "local", "command": "my-server"}
    _mcp(isolated).write_text(json.dumps(data, indent=2) + "\n")

    assert main(["uninstall"]) == 0
    assert json.loads(_mcp(isolated).read_text()) == {
        "mcpServers": {"mine": {"type": "local", "command": "my-server"}}
    }


def test_a_hook_of_the_users_in_our_file_stays(isolated: Path) -> None:
    assert main(["install"]) == 0
    data = json.loads(_hooks(isolated).read_text())
    mine = {"type": "command", "bash": "notify-send done", "timeoutSec": 5}
    data["hooks"]["agentStop"].insert(0, mine)
    _hooks(isolated).write_text(json.dumps(data, indent=2) + "\n")

    assert main(["install"]) == 0  # in place: the user's first, ours after
    assert json.loads(_hooks(isolated).read_text())["hooks"]["agentStop"][0] == mine
    assert main(["uninstall"]) == 0
    assert json.loads(_hooks(isolated).read_text()) == {
        "version": 1,
        "hooks": {"agentStop": [mine]},
    }


def test_an_install_from_another_environment_is_updated_in_place(isolated: Path) -> None:
    assert main(["install", "--python", "/opt/other/bin/python3"]) == 0
    old = json.loads(_hooks(isolated).read_text())
    assert old["hooks"]["sessionStart"][0]["bash"].startswith("/opt/other/bin/python3 -m ")
    assert main(["install"]) == 0
    data = json.loads(_hooks(isolated).read_text())
    assert all(len(handlers) == 1 for handlers in data["hooks"].values())
    assert data["hooks"]["sessionStart"][0]["bash"] == f"{hook_command()} sessionStart"
    assert (
        json.loads(_mcp(isolated).read_text())["mcpServers"]["signet"]["command"]
        == (sdk_command()[0])
    )


def test_project_scope_writes_the_repositorys_hook_folder_and_says_when_it_loads(
    isolated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "atlas"
    project.mkdir()
    assert main(["install", "--project", str(project)]) == 0
    out = capsys.readouterr().out
    assert (project / ".github" / "hooks" / HOOK_FILE).exists()
    assert not _hooks(isolated).exists()
    assert "only in a folder you trust" in out
    assert "signet" in json.loads(_mcp(isolated).read_text())["mcpServers"]

    assert main(["uninstall", "--project", str(project)]) == 0
    assert [p.name for p in project.iterdir()] == []
    assert not _mcp(isolated).exists()


def test_no_mcp_leaves_the_mcp_config_alone(isolated: Path) -> None:
    assert main(["install", "--no-mcp"]) == 0
    assert _hooks(isolated).exists() and not _mcp(isolated).exists()
    assert main(["install"]) == 0
    server = _mcp(isolated).read_bytes()
    assert main(["uninstall", "--no-mcp"]) == 0
    assert not _hooks(isolated).exists() and _mcp(isolated).read_bytes() == server


def test_dry_run_shows_the_diff_and_writes_nothing(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _mcp(isolated).write_text(USER_MCP)
    before = _snapshot(isolated)
    assert main(["install", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"+++ {_hooks(isolated)} (after install)" in out
    assert '+        "SIGNET_HARNESS": "copilot"' in out
    assert _snapshot(isolated) == before


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"mcpServers": {"signet": {"type": "http", "url": "https://x"}}}', "another server"),
        ('{"mcpServers": [1]}', "'mcpServers' is not an object"),
        ('{"mcpServers": {', "not valid JSON"),
    ],
)
def test_a_config_it_cannot_edit_safely_is_refused_and_nothing_changes(
    isolated: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str
) -> None:
    before = {**_snapshot(isolated), _mcp(isolated).name: text.encode()}
    err = assert_refused(main, _mcp(isolated), text, problem, capsys)
    assert "No file was changed." in err
    assert _snapshot(isolated) == before


def test_a_broken_hook_file_is_refused(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _hooks(isolated).parent.mkdir()
    _hooks(isolated).write_text('{"version": 1, "hooks": {"agentStop": {}}}')
    assert main(["install"]) == 1
    assert "hooks.agentStop must be a list" in capsys.readouterr().err
    assert not _mcp(isolated).exists()


def test_doctor_reports_the_install() -> None:
    def doctor() -> str:
        done = subprocess.run(
            [sys.executable, "-m", "signet_sdk", "doctor"],
            capture_output=True,
            text=True,
            env={**os.environ, "SIGNET_DAEMON_URL": "http://127.0.0.1:9"},
            timeout=120,
        )
        return done.stdout + done.stderr

    assert "copilot: not installed (optional)" in doctor()
    assert main(["install"]) == 0
    assert "copilot: installed and up to date" in doctor()
    hooks = _hooks(Path(os.environ["COPILOT_HOME"]))
    hooks.write_text(hooks.read_text().replace('"timeoutSec": 7', '"timeoutSec": 3'))
    assert "copilot: installed, but not as this SDK would install it now" in doctor()


def test_a_dangling_link_is_left_dangling_again_by_uninstall(isolated: Path) -> None:
    # A dotfiles link made before its target.
    assert_dangling_link_kept(main, _mcp(isolated))


def test_linked_and_crlf_files_are_kept_as_the_user_keeps_them(isolated: Path) -> None:
    assert_link_kept(main, _mcp(isolated), USER_MCP)
    _mcp(isolated).unlink()
    assert_crlf_kept(main, _mcp(isolated), USER_MCP)
