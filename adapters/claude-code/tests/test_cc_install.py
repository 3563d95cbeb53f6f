"""``signet-sdk install claude-code`` / ``uninstall``: settings.json and the MCP file, as text."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from signet_adapter_claude_code import install
from signet_adapter_claude_code.install import HOOK_TIMEOUTS, RECORD, hook_command, is_ours, main
from signet_e2e.installer_checks import (
    assert_blank_kept,
    assert_crlf_kept,
    assert_dangling_link_kept,
    assert_given_back,
    assert_link_kept,
    assert_round_trip,
    install_over,
)

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
    # The undo record, not a backup copy, is the way back (0600: it holds the settings).
    assert not list(path.parent.glob("settings.json.bak-*"))
    assert (path.parent / RECORD).stat().st_mode & 0o777 == 0o600


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
    assert not list(path.parent.glob("settings.json.bak-*"))


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
    original = path.read_bytes()
    assert main(["install", "--project", str(tmp_path)]) == 0
    assert main(["uninstall", "--project", str(tmp_path)]) == 0
    assert path.read_bytes() == original
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
        ('{"hooks": null}', "'hooks' must be an object, got null"),
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
    assert not (config_dir / ".claude.json").exists()  # the install created it


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


def test_a_dangling_link_is_left_dangling_again_by_uninstall(isolated: Path) -> None:
    # A dotfiles link made before its target.
    assert_dangling_link_kept(main, isolated / ".claude" / "settings.json")


@pytest.mark.parametrize(
    "user_text",
    [
        '{"hooks": {"Stop": []}}\n',
        '{\n  "model": "opus",\n  "hooks": {"Stop": [], "SessionEnd": []}\n}\n',
    ],
)
def test_a_users_empty_event_lists_come_back_byte_for_byte(isolated: Path, user_text: str) -> None:
    # Removing ours empties ``hooks``; the user's own empty lists inside it are theirs.
    assert_given_back(main, isolated / ".claude" / "settings.json", user_text)


def test_linked_and_crlf_settings_are_kept_as_the_user_keeps_them(isolated: Path) -> None:
    path = isolated / ".claude" / "settings.json"
    assert_link_kept(main, path, FOUR_SPACES, same_bytes=True)
    path.unlink()
    assert_crlf_kept(main, path, FOUR_SPACES, same_bytes=True)


# -- the user's bytes -----------------------------------------------------------------

#: A user's own layout: 4-space indent, compact arrays and objects, no comments.
FOUR_SPACES = (
    "{\n"
    '    "model": "opus",\n'
    '    "permissions": {"allow": ["Bash(ls:*)", "Read"]},\n'
    '    "hooks": {\n'
    '        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n'
    "    }\n"
    "}\n"
)


def our_group(event: str) -> dict[str, Any]:
    handler = {"type": "command", "command": f"{hook_command()} {event}"}
    return {"hooks": [{**handler, "timeout": HOOK_TIMEOUTS[event]}]}


def no_mcp(argv: list[str]) -> int:
    """The installer on the settings file alone (the MCP file has its own tests)."""
    return main([*argv, "--no-mcp"])


def test_a_four_space_file_with_compact_arrays_keeps_every_byte(tmp_path: Path) -> None:
    path = settings_file(tmp_path, text=FOUR_SPACES)
    assert main(["install", "--project", str(tmp_path), "--no-mcp"]) == 0
    # Ours go where the user's layout puts them: into the compact Stop list on its
    # line, and as new events in the file's own 4-space indent; nothing else moves.
    added = "".join(
        f',\n        "{event}": '
        + json.dumps([our_group(event)], indent=4).replace("\n", "\n        ")
        for event in HOOK_TIMEOUTS
        if event != "Stop"
    )
    stop = '{"hooks": [{"type": "command", "command": "notify-send done"}]}'
    assert path.read_text() == FOUR_SPACES.replace(
        stop + "]", f"{stop}, {json.dumps(our_group('Stop'))}]"
    ).replace("]\n    }", "]" + added + "\n    }")
    assert main(["uninstall", "--project", str(tmp_path), "--no-mcp"]) == 0
    assert path.read_text() == FOUR_SPACES
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]  # no record left


def test_the_shared_round_trip_gives_back_the_users_bytes(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = isolated / ".claude" / "settings.json"
    installed = install_over(no_mcp, path, FOUR_SPACES)
    assert installed.startswith('{\n    "model": "opus",\n    "permissions": {"allow": [')
    assert_round_trip(no_mcp, path, FOUR_SPACES, installed, capsys)


def test_an_empty_hooks_object_comes_back_empty(tmp_path: Path) -> None:
    text = '{\n  "model": "opus",\n  "hooks": {}\n}\n'
    path = settings_file(tmp_path, text=text)
    assert main(["install", "--project", str(tmp_path)]) == 0
    installed = path.read_text()
    assert installed.startswith('{\n  "model": "opus",\n  "hooks": {\n    "')
    assert installed.endswith(']\n  },\n  "enabledMcpjsonServers": [\n    "signet"\n  ]\n}\n')
    assert main(["uninstall", "--project", str(tmp_path)]) == 0
    assert path.read_text() == text


def test_an_empty_hooks_object_is_kept_after_an_edit(tmp_path: Path) -> None:
    text = '{\n  "model": "opus",\n  "hooks": {}\n}\n'
    path = settings_file(tmp_path, text=text)
    assert main(["install", "--project", str(tmp_path), "--no-mcp"]) == 0
    path.write_text(path.read_text().replace('"opus"', '"sonnet"'))
    assert main(["uninstall", "--project", str(tmp_path), "--no-mcp"]) == 0
    assert path.read_text() == text.replace('"opus"', '"sonnet"')


def test_a_blank_settings_file_is_given_back_blank(isolated: Path) -> None:
    assert_blank_kept(main, isolated / ".claude" / "settings.json")


def test_no_file_at_all_install_creates_and_uninstall_removes(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert main(["install", "--project", str(project)]) == 0
    settings = project / ".claude" / "settings.json"
    assert set(json.loads(settings.read_text())["hooks"]) == set(HOOK_TIMEOUTS)
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["signet"]
    assert main(["uninstall", "--project", str(project)]) == 0
    assert list(project.iterdir()) == []  # the files, the record and .claude/ are gone
    assert main(["uninstall", "--project", str(project)]) == 0
    assert list(project.iterdir()) == []


def test_no_user_config_at_all_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_dir = tmp_path / "a" / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    assert main(["install"]) == 0
    assert sorted(p.name for p in config_dir.iterdir()) == [".claude.json", "settings.json", RECORD]
    assert main(["uninstall"]) == 0
    assert not (tmp_path / "a").exists()  # the folders it created went with the files


def test_a_user_edit_between_install_and_uninstall_is_kept(tmp_path: Path) -> None:
    path = settings_file(tmp_path, text=FOUR_SPACES)
    assert main(["install", "--project", str(tmp_path), "--no-mcp"]) == 0
    edited = path.read_text().replace('"opus"', '"sonnet"').replace('"Read"]', '"Read", "Edit"]')
    path.write_text(edited)
    assert main(["uninstall", "--project", str(tmp_path), "--no-mcp"]) == 0
    expected = FOUR_SPACES.replace('"opus"', '"sonnet"').replace('"Read"]', '"Read", "Edit"]')
    assert path.read_text() == expected
    assert not (path.parent / RECORD).exists()


def test_without_the_record_uninstall_still_takes_out_only_ours(tmp_path: Path) -> None:
    path = settings_file(tmp_path, text=FOUR_SPACES)
    assert main(["install", "--project", str(tmp_path), "--no-mcp"]) == 0
    (path.parent / RECORD).unlink()  # e.g. installed by an older version
    assert main(["uninstall", "--project", str(tmp_path), "--no-mcp"]) == 0
    assert path.read_text() == FOUR_SPACES


#: Claude Code's own state file, as it writes it: only ``mcpServers.signet`` is ours.
CLAUDE_JSON = (
    "{\n"
    '  "numStartups": 3,\n'
    '  "projects": {\n'
    '    "/work/x": {"allowedTools": [], "history": [{"display": "hi"}]}\n'
    "  },\n"
    '  "mcpServers": {\n'
    '    "other": {\n'
    '      "command": "x"\n'
    "    }\n"
    "  },\n"
    '  "userID": "abc"\n'
    "}\n"
)


def test_claude_json_keeps_everything_but_our_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_dir = tmp_path / "claude-config"
    config_dir.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    state = config_dir / ".claude.json"
    state.write_text(CLAUDE_JSON)
    assert main(["install"]) == 0
    entry = json.loads(state.read_text())["mcpServers"]["signet"]
    server = '      "command": "x"\n    }'
    rendered = json.dumps(entry, indent=2).replace("\n", "\n    ")
    assert state.read_text() == CLAUDE_JSON.replace(server, f'{server},\n    "signet": {rendered}')
    assert "numStartups" not in (config_dir / RECORD).read_text()  # its state is not copied
    assert main(["uninstall"]) == 0
    assert state.read_text() == CLAUDE_JSON
    # Claude Code rewrites its state while we are installed: uninstall takes out only ours.
    assert main(["install"]) == 0
    state.write_text(state.read_text().replace('"numStartups": 3', '"numStartups": 4'))
    assert main(["uninstall"]) == 0
    assert state.read_text() == CLAUDE_JSON.replace('"numStartups": 3', '"numStartups": 4')


def test_a_users_own_signet_server_is_refused_not_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mcp_file = tmp_path / ".mcp.json"
    mine = '{"mcpServers": {"signet": {"command": "my-own-signet"}}}\n'
    mcp_file.write_text(mine)
    assert main(["install", "--project", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert str(mcp_file) in err and "mcpServers.signet is another server" in err
    assert mcp_file.read_text() == mine
    assert not (tmp_path / ".claude").exists()
