"""``signet-sdk install qwen-code``: merged into settings.json, idempotent, undone byte for byte."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from signet_adapter_qwen_code import PLUGIN
from signet_adapter_qwen_code.install import RECORD, hook_timeouts, is_ours, main
from signet_e2e.installer_checks import (
    assert_blank_kept,
    assert_crlf_kept,
    assert_link_kept,
    assert_refused,
    assert_round_trip,
    install_over,
)

SDK = str(Path(sys.executable).parent / "signet-sdk")
REGISTERED = [e for e in PLUGIN.events if e != "SubagentStop"]

USER_SETTINGS = """\
{
  // the model the team pays for
  "model": { "name": "qwen3-coder-plus" },
  "hooks": {
    "disabled": ["noisy-linter"],
    "PreToolUse": [
      { "matcher": "^run_shell_command$",
        "hooks": [ { "type": "command", "command": "./check.sh", "timeout": 10 } ] }
    ],
    "SessionStart": [
      { "hooks": [ { "name": "greet", "type": "command", "command": "echo '{}'" } ] }
    ],
    "Stop": []
  },
  "mcpServers": {
    /* the team's docs */
    "docs": { "command": "docs-mcp", "args": ["--stdio"], "timeout": 15000 }
  }
}
"""


def settings(qwen: Path) -> Path:
    return qwen / "settings.json"


def strict(text: str) -> dict[str, Any]:
    """The settings as Qwen Code reads them: comments dropped, then strict JSON."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    data = json.loads(text)
    assert isinstance(data, dict)
    return data


def ours(data: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [h for g in data["hooks"].get(event, []) for h in g["hooks"] if is_ours(h)]


def test_fresh_install_writes_every_event_and_the_mcp_server(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install"]) == 0
    data = json.loads(settings(isolated).read_text())
    timeouts = hook_timeouts({})
    assert set(data["hooks"]) == set(REGISTERED)
    for event in REGISTERED:
        (handler,) = ours(data, event)
        assert handler == {
            "type": "command",
            "command": f"{SDK} hook qwen-code {event}",
            "name": "signet-sdk",
            "timeout": timeouts[event],
        }
    # Milliseconds of 1000 or more mean the same to Qwen Code 0.24 (which reads smaller
    # numbers as seconds) and to older releases (milliseconds only).
    assert timeouts == {
        "SessionStart": 17000,
        "UserPromptSubmit": 7000,
        "Stop": 12000,
        "PreCompact": 12000,
        "PostCompact": 12000,
        "SubagentStart": 17000,
        "SessionEnd": 5000,
    }
    assert data["mcpServers"] == {
        "signet": {"command": SDK, "args": ["mcp"], "env": {"SIGNET_HARNESS": "qwen-code"}}
    }
    assert "installed into" in capsys.readouterr().out
    assert oct((isolated / RECORD).stat().st_mode & 0o777) == "0o600"
    assert main(["uninstall"]) == 0
    assert not settings(isolated).exists()
    assert not (isolated / RECORD).exists()


def test_timeouts_follow_the_hooks_own_deadlines() -> None:
    slow = hook_timeouts({"SIGNET_PROMPT_SUBMIT_TIMEOUT": "9000"})
    assert slow["UserPromptSubmit"] == 11000
    assert hook_timeouts({"SIGNET_PROMPT_SUBMIT_TIMEOUT": "1"})["UserPromptSubmit"] >= 1000


def test_user_settings_kept_idempotent_and_restored_byte_for_byte(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings(isolated)
    text = install_over(main, path, USER_SETTINGS)
    assert "// the model the team pays for" in text and "/* the team's docs */" in text
    data = strict(text)
    assert data["model"] == {"name": "qwen3-coder-plus"}
    assert data["hooks"]["disabled"] == ["noisy-linter"]
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "^run_shell_command$"
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["name"] == "greet"  # yours stays first
    assert len(ours(data, "SessionStart")) == 1 and len(ours(data, "Stop")) == 1
    assert set(data["mcpServers"]) == {"docs", "signet"}
    assert_round_trip(main, path, USER_SETTINGS, text, capsys)  # the empty "Stop": [] included
    assert not (isolated / RECORD).exists()


def test_edited_after_install_uninstall_removes_only_ours(isolated: Path) -> None:
    path = settings(isolated)
    path.write_text(USER_SETTINGS)
    assert main(["install"]) == 0
    edited = path.read_text().replace("qwen3-coder-plus", "qwen3-coder-flash")
    path.write_text(edited)
    assert main(["uninstall"]) == 0
    assert path.read_text() == USER_SETTINGS.replace("qwen3-coder-plus", "qwen3-coder-flash")


def test_edited_after_install_what_the_install_created_goes_too(isolated: Path) -> None:
    path = settings(isolated)
    path.write_text('{\n  "ui": { "theme": "Qwen Dark" }\n}\n')
    assert main(["install"]) == 0
    path.write_text(path.read_text().replace("Qwen Dark", "Qwen Light"))
    assert main(["uninstall"]) == 0
    assert path.read_text() == '{\n  "ui": { "theme": "Qwen Light" }\n}\n'


def test_without_the_record_uninstall_removes_ours_and_what_only_they_filled(
    isolated: Path,
) -> None:
    path = settings(isolated)
    path.write_text('{\n  "ui": { "theme": "Qwen Dark" }\n}\n')
    assert main(["install"]) == 0
    (isolated / RECORD).unlink()
    assert main(["uninstall"]) == 0
    assert path.read_text() == '{\n  "ui": { "theme": "Qwen Dark" }\n}\n'


def test_an_install_from_another_environment_is_replaced_in_place(isolated: Path) -> None:
    path = settings(isolated)
    old = "/opt/old-venv/bin/signet-sdk hook qwen-code Stop"
    theirs = {"type": "command", "command": "notify-send done"}
    path.write_text(
        json.dumps(
            {
                "hooks": {
                    "Stop": [
                        {"hooks": [{"type": "command", "command": old, "timeout": 60}]},
                        {"hooks": [theirs]},
                    ]
                }
            },
            indent=2,
        )
    )
    assert main(["install"]) == 0
    data = strict(path.read_text())
    (handler,) = ours(data, "Stop")
    assert handler["command"] == f"{SDK} hook qwen-code Stop"
    assert data["hooks"]["Stop"][0]["hooks"] == [theirs]
    assert main(["uninstall"]) == 0
    # Uninstall takes every handler of ours away, the older environment's too.
    assert strict(path.read_text()) == {"hooks": {"Stop": [{"hooks": [theirs]}]}}


def test_project_scope_qwen_home_no_mcp_and_trusted_tools(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "atlas"
    project.mkdir()
    assert main(["install", "--project", str(project), "--no-mcp"]) == 0
    data = json.loads((project / ".qwen" / "settings.json").read_text())
    assert "mcpServers" not in data and len(ours(data, "UserPromptSubmit")) == 1
    assert not settings(isolated).exists()
    assert main(["uninstall", "--project", str(project)]) == 0
    assert not (project / ".qwen" / "settings.json").exists()

    monkeypatch.setenv("QWEN_HOME", str(tmp_path / "qwen-home"))
    assert main(["install", "--trust-tools"]) == 0
    data = json.loads((tmp_path / "qwen-home" / "settings.json").read_text())
    assert data["mcpServers"]["signet"]["trust"] is True
    assert main(["install", "--no-mcp", "--trust-tools"]) == 2  # one or the other


def test_dry_run_prints_the_diff_and_writes_nothing(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings(isolated)
    path.write_text(USER_SETTINGS)
    assert main(["install", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"--- {path}\n+++ {path} (after install)\n")
    assert f'+            "command": "{SDK} hook qwen-code UserPromptSubmit",' in out
    assert path.read_text() == USER_SETTINGS and not (isolated / RECORD).exists()
    assert main(["uninstall", "--dry-run"]) == 0
    assert capsys.readouterr().out == f"{path}: nothing of ours found, nothing changed\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"hooks": {"Stop": [}', "not valid JSON"),
        ('["a list"]', "the top level is not an object"),
        ('{"hooks": []}', "'hooks' is not an object"),
        ('{"hooks": {"Stop": {"hooks": []}}}', "hooks.Stop is not a list"),
        ('{"hooks": {"Stop": ["echo"]}}', "hooks.Stop[0] is not a hook group"),
        ('{"mcpServers": []}', "'mcpServers' is not an object"),
        ('{"mcpServers": {"signet": {"command": "x"}}}', "mcpServers.signet is another server"),
    ],
)
def test_a_file_we_cannot_merge_safely_is_left_untouched(
    isolated: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str
) -> None:
    err = assert_refused(main, settings(isolated), text, problem, capsys)
    assert "No file was changed." in err


def test_install_through_the_sdk_command(isolated: Path) -> None:
    proc = subprocess.run([SDK, "install", "qwen-code"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"installed into {settings(isolated)}" in proc.stdout
    proc = subprocess.run([SDK, "doctor"], capture_output=True, text=True)
    assert "qwen-code: installed and up to date" in proc.stdout
    proc = subprocess.run([SDK, "uninstall", "qwen-code"], capture_output=True, text=True)
    assert proc.returncode == 0 and not settings(isolated).exists()
    proc = subprocess.run([SDK, "doctor"], capture_output=True, text=True)
    assert "qwen-code: not installed (optional)" in proc.stdout


def test_a_linked_settings_file_stays_linked(isolated: Path) -> None:
    assert_link_kept(main, settings(isolated), USER_SETTINGS)


def test_crlf_line_ends_are_kept_and_given_back(isolated: Path) -> None:
    assert_crlf_kept(main, settings(isolated), USER_SETTINGS)


def test_an_empty_settings_file_installs_and_uninstalls_cleanly(isolated: Path) -> None:
    assert_blank_kept(main, settings(isolated))
