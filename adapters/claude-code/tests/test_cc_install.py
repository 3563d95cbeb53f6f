"""``signet-sdk install claude-code`` / ``uninstall``: merging into settings.json."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from signet_adapter_claude_code import install
from signet_adapter_claude_code.install import HOOK_TIMEOUTS, hook_command, is_ours, main
from signet_e2e.installer_checks import assert_crlf_kept, assert_link_kept

USER_SETTINGS: dict[str, Any] = {
    "model": "opus",
    "env": {"FOO": "bar"},
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": "/usr/local/bin/my-linter", "timeout": 3}]}
        ],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]},
        ],
        "SessionEnd": [{"hooks": []}],
    },
}


def settings_file(project: Path, data: Any = None, text: str | None = None) -> Path:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if text is not None:
        path.write_text(text)
    elif data is not None:
        path.write_text(json.dumps(data, indent=4) + "\n")
    return path


def ours_in(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [h for g in settings["hooks"].get(event, []) for h in g["hooks"] if is_ours(h)]


def test_install_merges_and_preserves_everything(tmp_path: Path) -> None:
    path = settings_file(tmp_path, USER_SETTINGS)
    assert main(["install", "--project", str(tmp_path)]) == 0
    merged = json.loads(path.read_text())
    for key in ("model", "env", "permissions"):
        assert merged[key] == USER_SETTINGS[key]
    assert merged["hooks"]["PreToolUse"] == USER_SETTINGS["hooks"]["PreToolUse"]
    # The user's hook on the same event is still there, first, untouched.
    groups = merged["hooks"]["UserPromptSubmit"]
    assert groups[0] == USER_SETTINGS["hooks"]["UserPromptSubmit"][0]
    assert merged["hooks"]["SessionEnd"][0] == {"hooks": []}
    for event, seconds in HOOK_TIMEOUTS.items():
        (handler,) = ours_in(merged, event)
        assert handler["type"] == "command"
        assert handler["timeout"] == seconds
        words = shlex.split(handler["command"])
        assert os.path.isabs(words[0]) and words[-1] == event
    backups = list(path.parent.glob("settings.json.bak-*"))
    assert len(backups) == 1
    assert json.loads(backups[0].read_text()) == USER_SETTINGS


def test_timeouts_are_seconds() -> None:
    assert HOOK_TIMEOUTS["SessionStart"] == 17
    assert HOOK_TIMEOUTS["UserPromptSubmit"] == 7
    assert HOOK_TIMEOUTS["SessionEnd"] <= 10
    assert all(0 < s < 60 for s in HOOK_TIMEOUTS.values())


def test_install_twice_is_byte_identical(tmp_path: Path) -> None:
    path = settings_file(tmp_path, USER_SETTINGS)
    assert main(["install", "--project", str(tmp_path)]) == 0
    first = path.read_bytes()
    stat_before = path.stat().st_mtime_ns
    assert main(["install", "--project", str(tmp_path)]) == 0
    assert path.read_bytes() == first
    assert path.stat().st_mtime_ns == stat_before
    assert len(list(path.parent.glob("settings.json.bak-*"))) == 1


def test_install_into_a_new_file_and_user_scope(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["install"]) == 0
    path = isolated / ".claude" / "settings.json"
    assert set(json.loads(path.read_text())["hooks"]) == set(HOOK_TIMEOUTS)
    assert not list(path.parent.glob("*.bak-*"))
    assert path.stat().st_mode & 0o077 == 0
    config_dir = isolated / "alt-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    assert main(["install"]) == 0
    assert (config_dir / "settings.json").exists()


def test_reinstall_from_another_environment_updates_in_place(tmp_path: Path) -> None:
    old = {"type": "command", "command": "/old/venv/bin/signet-claude-code-hook Stop", "timeout": 1}
    mine = {"type": "command", "command": "notify-send done"}
    path = settings_file(tmp_path, {"hooks": {"Stop": [{"hooks": [mine, old]}]}})
    assert main(["install", "--project", str(tmp_path)]) == 0
    merged = json.loads(path.read_text())
    (group,) = merged["hooks"]["Stop"]
    assert group["hooks"][0] == mine
    assert group["hooks"][1]["command"] == f"{hook_command()} Stop"
    assert group["hooks"][1]["timeout"] == HOOK_TIMEOUTS["Stop"]


def test_dry_run_prints_a_diff_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = settings_file(tmp_path, USER_SETTINGS)
    before = path.read_bytes()
    assert main(["install", "--project", str(tmp_path), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"--- {path}\n+++ {path} (after install)\n")
    assert "+" in out and "signet-sdk hook claude-code" in out
    assert path.read_bytes() == before
    assert not list(path.parent.glob("*.bak-*"))


def test_uninstall_removes_only_ours(tmp_path: Path) -> None:
    path = settings_file(tmp_path, USER_SETTINGS)
    original = json.loads(path.read_text())
    assert main(["install", "--project", str(tmp_path)]) == 0
    assert main(["uninstall", "--project", str(tmp_path)]) == 0
    assert json.loads(path.read_text()) == original
    again = path.read_bytes()
    assert main(["uninstall", "--project", str(tmp_path)]) == 0
    assert path.read_bytes() == again


def test_uninstall_removes_what_install_created(tmp_path: Path) -> None:
    path = settings_file(tmp_path, {"model": "opus"})
    assert main(["install", "--project", str(tmp_path)]) == 0
    assert main(["uninstall", "--project", str(tmp_path)]) == 0
    assert json.loads(path.read_text()) == {"model": "opus"}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"hooks": {', "invalid JSON at line 1"),
        ("[1, 2]", "expected a JSON object"),
        ('{"hooks": []}', "'hooks' must be an object"),
        ('{"hooks": {"Stop": {}}}', "hooks.Stop must be a list"),
        ('{"hooks": {"Stop": [1]}}', "hooks.Stop[0] must be an object"),
        ('{"hooks": {"Stop": [{"hooks": "x"}]}}', "hooks.Stop[0].hooks must be a list"),
    ],
)
@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_malformed_settings_are_reported_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str, verb: str
) -> None:
    path = settings_file(tmp_path, text=text)
    assert main([verb, "--project", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert str(path) in err and problem in err
    assert path.read_text() == text
    assert not list(path.parent.glob("*.bak-*"))


def test_command_falls_back_to_python_dash_m(tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "python3"
    fake.parent.mkdir()
    fake.write_text("")
    command = hook_command(str(fake))
    assert command == f"{fake} -m signet_sdk hook claude-code"
    assert is_ours({"command": f"{command} Stop"})
    # Commands earlier versions wrote are ours too, so an upgrade replaces them.
    assert is_ours({"command": "/old/venv/bin/signet-claude-code-hook Stop"})
    assert is_ours({"command": "/usr/bin/python3 -m signet_adapter_claude_code.hook Stop"})
    assert not is_ours({"command": "/x/signet-sdk hook codex Stop"})
    assert not is_ours({"command": "python -m something_else Stop"})
    assert not is_ours({"command": "echo 'unbalanced"})


def test_the_cli_dispatcher_reaches_the_installer(tmp_path: Path) -> None:
    from signet_sdk.cli import main as cli

    assert cli(["install", "claude-code", "--project", str(tmp_path)]) == 0
    assert (tmp_path / ".claude" / "settings.json").exists()
    assert cli(["uninstall", "claude-code", "--project", str(tmp_path)]) == 0


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reinstall"]) == 2
    assert install.main(["install", "--project", "a", "--settings", "b"]) == 2


# -- the memory tools' MCP server --------------------------------------------------


def test_project_install_registers_and_approves_the_mcp_server(tmp_path: Path) -> None:
    mcp_file = tmp_path / ".mcp.json"
    mine = '{\n  "mcpServers": {\n    "other": {\n      "command": "x"\n    }\n  }\n}\n'
    mcp_file.write_text(mine)
    settings = settings_file(tmp_path, USER_SETTINGS)
    assert main(["install", "--project", str(tmp_path)]) == 0
    servers = json.loads(mcp_file.read_text())["mcpServers"]
    assert servers["other"] == {"command": "x"}
    words = hook_command().split()
    assert servers["signet"] == {
        "type": "stdio",
        "command": words[0],
        "args": [*words[1:-2], "mcp"],
        "env": {"SIGNET_HARNESS": "claude-code"},
    }
    assert json.loads(settings.read_text())["enabledMcpjsonServers"] == ["signet"]
    before = (mcp_file.read_bytes(), settings.read_bytes())
    assert main(["install", "--project", str(tmp_path)]) == 0
    assert (mcp_file.read_bytes(), settings.read_bytes()) == before  # idempotent
    assert main(["uninstall", "--project", str(tmp_path)]) == 0
    assert mcp_file.read_text() == mine  # byte for byte, as the user had it
    assert "enabledMcpjsonServers" not in json.loads(settings.read_text())


def test_user_install_uses_the_user_scope_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_dir = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    assert main(["install"]) == 0
    state = json.loads((config_dir / ".claude.json").read_text())
    assert state["mcpServers"]["signet"]["args"][-1] == "mcp"
    assert "enabledMcpjsonServers" not in json.loads((config_dir / "settings.json").read_text())
    assert main(["uninstall"]) == 0
    assert json.loads((config_dir / ".claude.json").read_text()) == {}


def test_no_mcp_leaves_mcp_files_alone(tmp_path: Path) -> None:
    assert main(["install", "--project", str(tmp_path), "--no-mcp"]) == 0
    assert not (tmp_path / ".mcp.json").exists()
    settings = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    assert "enabledMcpjsonServers" not in settings and "hooks" in settings


def test_malformed_mcp_config_is_reported_and_nothing_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mcp_file = tmp_path / ".mcp.json"
    mcp_file.write_text('{"mcpServers": []}')
    assert main(["install", "--project", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert str(mcp_file) in err and "'mcpServers' must be an object" in err
    assert mcp_file.read_text() == '{"mcpServers": []}'
    assert not (tmp_path / ".claude" / "settings.json").exists()


def test_timeouts_follow_the_hooks_own_deadlines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNET_PROMPT_SUBMIT_TIMEOUT", "20000")
    monkeypatch.setenv("SIGNET_FETCH_TIMEOUT", "30000")
    assert main(["install", "--project", str(tmp_path), "--no-mcp"]) == 0
    hooks = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]
    timeout = {event: groups[0]["hooks"][0]["timeout"] for event, groups in hooks.items()}
    assert timeout["UserPromptSubmit"] == 22  # never below the hook's own 20 s deadline
    assert timeout["Stop"] == timeout["PreCompact"] == timeout["PostCompact"] == 32
    assert timeout["SessionStart"] == 32  # follows SIGNET_FETCH_TIMEOUT when not set itself
    assert timeout["SessionEnd"] == 5


def test_linked_and_crlf_settings_are_kept_as_the_user_keeps_them(isolated: Path) -> None:
    # Claude Code's settings are rewritten as JSON (a backup keeps the user's
    # bytes), so the link and the line ends are what must hold.
    path = isolated / ".claude" / "settings.json"
    text = json.dumps(USER_SETTINGS, indent=2) + "\n"
    assert_link_kept(main, path, text, same_bytes=False)
    path.unlink()
    assert_crlf_kept(main, path, text, same_bytes=False)
