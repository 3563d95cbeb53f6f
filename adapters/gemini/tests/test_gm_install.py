"""``signet-sdk install gemini``: merged into settings.json, idempotent, undone byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from signet_adapter_gemini import PLUGIN
from signet_adapter_gemini.install import hook_timeouts, is_ours, main, mcp_entry
from signet_e2e.installer_checks import (
    assert_blank_kept,
    assert_crlf_kept,
    assert_dangling_link_kept,
    assert_given_back,
    assert_link_kept,
    assert_round_trip,
    install_over,
)

SDK = str(Path(sys.executable).parent / "signet-sdk")

USER_SETTINGS = """\
{
  // picked in the theme dialog
  "ui": { "theme": "GitHub" },
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "hooks": {
    "BeforeTool": [
      { "matcher": "write_file|replace",
        "hooks": [ { "type": "command", "command": "./check.sh", "timeout": 3000 } ] }
    ],
    "SessionStart": [
      { "hooks": [ { "name": "greet", "type": "command", "command": "echo '{}'" } ] }
    ]
  },
  "mcpServers": {
    /* the team's server */
    "docs": { "command": "docs-mcp", "args": ["--stdio"] }
  }
}
"""


def _settings(gemini: Path) -> Path:
    return gemini / "settings.json"


def _strict(text: str) -> dict[str, object]:
    """The settings as Gemini reads them: comments stripped, then JSON."""
    lines = [line.split("//")[0] if "//" in line and '"' not in line.split("//")[0][-1:] else line
             for line in text.splitlines()]  # fmt: skip
    joined = "\n".join(lines)
    while "/*" in joined:
        start = joined.index("/*")
        joined = joined[:start] + joined[joined.index("*/", start) + 2 :]
    data = json.loads(joined)
    assert isinstance(data, dict)
    return data


def _ours(data: dict[str, object], event: str) -> list[dict[str, object]]:
    hooks = data["hooks"]
    assert isinstance(hooks, dict)
    return [h for g in hooks.get(event, []) for h in g["hooks"] if is_ours(h)]


def test_fresh_install_writes_every_event_and_the_mcp_server(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install"]) == 0
    data = json.loads(_settings(isolated).read_text())
    timeouts = hook_timeouts({})
    for event in PLUGIN.events:
        (handler,) = _ours(data, event)
        assert handler["type"] == "command"
        assert handler["command"] == f"{SDK} hook gemini {event}"
        assert handler["timeout"] == timeouts[event]
        assert handler["name"] == "signet-sdk"
    assert timeouts["SessionStart"] >= 10_000  # milliseconds, deadline plus margin
    assert timeouts["SessionEnd"] == 5000
    assert data["mcpServers"] == {
        "signet": {"command": SDK, "args": ["mcp"], "env": {"SIGNET_HARNESS": "gemini"}}
    }
    assert "installed into" in capsys.readouterr().out
    assert main(["uninstall"]) == 0
    assert not _settings(isolated).exists()
    assert not (isolated / "signet-sdk-install.json").exists()


def test_user_settings_kept_idempotent_and_restored(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _settings(isolated)
    text = install_over(main, path, USER_SETTINGS)
    assert "// picked in the theme dialog" in text and "/* the team's server */" in text
    data = _strict(text)
    assert data["ui"] == {"theme": "GitHub"}
    hooks = data["hooks"]
    assert isinstance(hooks, dict)
    assert hooks["BeforeTool"][0]["matcher"] == "write_file|replace"
    assert hooks["SessionStart"][0]["hooks"][0]["name"] == "greet"  # the user's stays first
    assert len(_ours(data, "SessionStart")) == 1
    servers = data["mcpServers"]
    assert isinstance(servers, dict) and set(servers) == {"docs", "signet"}
    assert_round_trip(main, path, USER_SETTINGS, text, capsys)


def test_edited_after_install_uninstall_removes_only_ours(isolated: Path) -> None:
    path = _settings(isolated)
    path.write_text(USER_SETTINGS)
    assert main(["install"]) == 0
    installed = path.read_text()
    edited = installed.replace('"ui": { "theme": "GitHub" },', '"ui": { "theme": "Dracula" },')
    assert edited != installed
    path.write_text(edited)
    assert main(["uninstall"]) == 0
    assert path.read_text() == USER_SETTINGS.replace("GitHub", "Dracula")


def test_a_server_an_earlier_install_replaced_comes_back(isolated: Path) -> None:
    """Installs before the SDK's server rule replaced a user's own ``signet`` and recorded it."""
    path = _settings(isolated)
    theirs = '{ "command": "their-signet" }'
    path.write_text(f'{{\n  "mcpServers": {{ "signet": {theirs} }}\n}}\n')
    assert main(["install", "--no-mcp"]) == 0
    entry = mcp_entry()
    text = path.read_text().replace(theirs, json.dumps(entry))
    path.write_text(text.replace("{\n", '{\n  "ui": { "theme": "GitHub" },\n', 1))
    record_path = isolated / "signet-sdk-install.json"
    record = json.loads(record_path.read_text())
    record.update(mcp=["replaced", ["mcpServers", "signet"], theirs], entry=entry)
    record_path.write_text(json.dumps(record))
    assert main(["uninstall"]) == 0
    ui = '"ui": { "theme": "GitHub" }'
    assert path.read_text() == f'{{\n  {ui},\n  "mcpServers": {{ "signet": {theirs} }}\n}}\n'


def test_another_environment_is_replaced_not_duplicated(isolated: Path) -> None:
    path = _settings(isolated)
    old = {
        "hooks": {
            "BeforeAgent": [
                {"hooks": [{"type": "command", "timeout": 9000,
                            "command": "/old/venv/bin/signet-sdk hook gemini BeforeAgent"}]}
            ]
        }
    }  # fmt: skip
    path.write_text(json.dumps(old, indent=2) + "\n")
    assert main(["install", "--no-mcp"]) == 0
    data = json.loads(path.read_text())
    (handler,) = _ours(data, "BeforeAgent")
    assert handler["command"] == f"{SDK} hook gemini BeforeAgent"
    assert "mcpServers" not in data
    assert main(["uninstall"]) == 0
    # Uninstall takes every handler of ours away, the older environment's too.
    assert json.loads(path.read_text()) == {}


def test_project_scope_and_dry_run(
    tmp_path: Path, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "atlas"
    project.mkdir()
    assert main(["install", "--project", str(project), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "+++" in out and "hook gemini BeforeAgent" in out
    assert not (project / ".gemini").exists()
    assert main(["install", "--project", str(project)]) == 0
    assert (project / ".gemini" / "settings.json").exists()
    assert not _settings(isolated).exists()
    assert main(["uninstall", "--project", str(project)]) == 0
    assert not (project / ".gemini" / "settings.json").exists()


@pytest.mark.parametrize(
    "text",
    ["{ not json", "[1, 2]", '{"hooks": []}', '{"hooks": {"BeforeAgent": {}}}',
     '{"mcpServers": "x"}', '{"hooks": {"BeforeAgent": [3]}}',
     '{"mcpServers": {"signet": {"command": "theirs"}}}'],
)  # fmt: skip
def test_malformed_settings_are_left_untouched(
    text: str, isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _settings(isolated)
    path.write_text(text)
    assert main(["install"]) == 1
    assert path.read_text() == text
    err = capsys.readouterr().err
    assert str(path) in err and "No file was changed" in err
    assert not (isolated / "signet-sdk-install.json").exists()


def test_timeouts_follow_the_deadlines_in_milliseconds() -> None:
    timeouts = hook_timeouts({"SIGNET_PROMPT_SUBMIT_TIMEOUT": "1500"})
    assert timeouts["BeforeAgent"] == 1500 + 2000
    assert set(timeouts) == set(PLUGIN.events)


def test_through_the_signet_sdk_command(isolated: Path) -> None:
    env = dict(os.environ)
    done = subprocess.run([SDK, "install", "gemini"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    again = subprocess.run([SDK, "install", "gemini"], capture_output=True, text=True, env=env)
    assert "already up to date" in again.stdout
    gone = subprocess.run([SDK, "uninstall", "gemini"], capture_output=True, text=True, env=env)
    assert gone.returncode == 0 and not _settings(isolated).exists()


def test_what_signet_sdk_doctor_reads(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``doctor`` calls the dry runs: "nothing changed" means installed / not installed."""
    assert main(["uninstall", "--dry-run"]) == 0
    assert "nothing changed" in capsys.readouterr().out
    _settings(isolated).write_text(USER_SETTINGS)
    assert main(["uninstall", "--dry-run"]) == 0
    assert "nothing changed" in capsys.readouterr().out
    assert main(["install"]) == 0
    capsys.readouterr()
    assert main(["install", "--dry-run"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert lines and all("nothing changed" in line for line in lines)


def test_trust_tools_marks_the_server_trusted(isolated: Path) -> None:
    assert main(["install", "--trust-tools"]) == 0
    data = json.loads(_settings(isolated).read_text())
    assert data["mcpServers"]["signet"]["trust"] is True
    assert main(["install"]) == 0  # and back: our own entry, replaced in place
    data = json.loads(_settings(isolated).read_text())
    assert "trust" not in data["mcpServers"]["signet"]
    assert main(["uninstall"]) == 0
    assert not _settings(isolated).exists()
    assert main(["install", "--no-mcp", "--trust-tools"]) == 2


def test_uninstall_without_the_record_removes_only_ours(isolated: Path) -> None:
    path = _settings(isolated)
    path.write_text(USER_SETTINGS)
    assert main(["install"]) == 0
    (isolated / "signet-sdk-install.json").unlink()
    assert main(["uninstall"]) == 0
    assert path.read_text() == USER_SETTINGS


def test_a_linked_settings_file_stays_linked(isolated: Path) -> None:
    assert_link_kept(main, _settings(isolated), USER_SETTINGS)


def test_a_dangling_link_is_left_dangling_again_by_uninstall(isolated: Path) -> None:
    # A dotfiles link made before its target.
    assert_dangling_link_kept(main, _settings(isolated))


@pytest.mark.parametrize("user", ['{"hooks": {}}\n', '{\n  "mcpServers": {}\n}\n'])
def test_a_users_empty_hooks_and_servers_come_back_byte_for_byte(isolated: Path, user: str) -> None:
    assert_given_back(main, _settings(isolated), user)


def test_crlf_line_ends_are_kept_and_given_back(isolated: Path) -> None:
    assert_crlf_kept(main, _settings(isolated), USER_SETTINGS)


def test_an_empty_settings_file_installs_and_uninstalls_cleanly(isolated: Path) -> None:
    assert_blank_kept(main, _settings(isolated))
