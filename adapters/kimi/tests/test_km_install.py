"""``signet-sdk install kimi`` / ``uninstall`` on Kimi Code's config.toml and mcp.json.

The files are the user's: the installer adds one ``[[hooks]]`` entry per
event and one MCP server, keeps every comment, entry and server of theirs,
changes nothing on a second run and, on uninstall, gives back the bytes it
found.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from signet_adapter_kimi import PLUGIN
from signet_adapter_kimi.install import hook_command, hook_timeouts, main
from signet_e2e.installer_checks import (
    assert_crlf_kept,
    assert_dangling_link_kept,
    assert_link_kept,
    assert_refused,
)

from signet_sdk.installing.command import sdk_command

USER_CONFIG = """\
# Kimi Code settings, by hand
default_model = "kimi-code/k3"  # the big one

[providers."managed:kimi-code"]
type = "kimi"
base_url = "https://api.kimi.com/coding/v1"
api_key = ""

[[hooks]]
event = "PreToolUse"   # my guard
matcher = "Bash"
command = "node ~/.kimi-code/hooks/check-bash.mjs"
timeout = 5

[models."kimi-code/k3"]
provider = "managed:kimi-code"
model = "k3"
max_context_size = 1048576
"""

USER_MCP = """{
    "mcpServers": {
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}
    }
}
"""


def _ours(command: str) -> list[dict[str, object]]:
    timeouts = hook_timeouts({})
    return [
        {"event": e, "command": f"{command} {e}", "timeout": timeouts[e]} for e in PLUGIN.events
    ]


def test_timeouts_are_each_deadline_plus_two_seconds() -> None:
    assert hook_timeouts({}) == {
        "SessionStart": 17,
        "UserPromptSubmit": 7,
        "Stop": 12,
        "PreCompact": 12,
        "PostCompact": 12,
        "SessionEnd": 12,
    }
    assert hook_timeouts({"SIGNET_PROMPT_SUBMIT_TIMEOUT": "9000"})["UserPromptSubmit"] == 11


def test_a_fresh_install_writes_both_files_and_uninstall_removes_them(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, mcp = isolated / "config.toml", isolated / "mcp.json"

    assert main(["install"]) == 0

    command = hook_command()
    expected = "\n".join(
        f'[[hooks]]\nevent = "{e["event"]}"\ncommand = "{e["command"]}"\ntimeout = {e["timeout"]}\n'
        for e in _ours(command)
    )
    assert config.read_text() == expected
    words = sdk_command()
    assert json.loads(mcp.read_text()) == {
        "mcpServers": {
            "signet": {
                "command": words[0],
                "args": [*words[1:], "mcp"],
                "env": {"SIGNET_HARNESS": "kimi"},
            }
        }
    }
    for path in (config, mcp):
        assert path.stat().st_mode & 0o777 == 0o600
    out = capsys.readouterr().out
    assert f"Signet hooks installed into {config}\n" in out
    assert f"Signet memory tools (MCP server 'signet') installed into {mcp}\n" in out

    assert main(["uninstall"]) == 0
    assert not config.exists() and not mcp.exists()
    assert sorted(p.name for p in isolated.iterdir()) == ["sessions"]


def test_the_users_config_and_servers_are_kept_and_a_second_run_changes_nothing(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, mcp = isolated / "config.toml", isolated / "mcp.json"
    config.write_text(USER_CONFIG)
    mcp.write_text(USER_MCP)

    assert main(["install"]) == 0
    installed = (config.read_bytes(), mcp.read_bytes())
    capsys.readouterr()
    assert main(["install"]) == 0

    assert (config.read_bytes(), mcp.read_bytes()) == installed
    assert capsys.readouterr().out.count("already up to date, nothing changed") == 2
    text = config.read_text()
    assert "# Kimi Code settings, by hand\n" in text and "# the big one" in text
    assert 'event = "PreToolUse"   # my guard\n' in text
    data = tomllib.loads(text)
    assert data["hooks"][0]["command"] == "node ~/.kimi-code/hooks/check-bash.mjs"
    assert data["hooks"][1:] == _ours(hook_command())
    for entry in data["hooks"][1:]:
        assert set(entry) == {"event", "command", "timeout"}  # Kimi refuses any other key
    assert data["models"]["kimi-code/k3"]["max_context_size"] == 1048576
    servers = json.loads(mcp.read_text())["mcpServers"]
    assert list(servers) == ["github", "signet"]
    assert mcp.read_text().startswith('{\n    "mcpServers": {\n        "github": {"command": "npx"')


def test_uninstall_gives_back_the_original_bytes(isolated: Path) -> None:
    config, mcp = isolated / "config.toml", isolated / "mcp.json"
    odd = USER_CONFIG.rstrip("\n")  # no newline at the end: still given back as it was
    config.write_text(odd)
    mcp.write_text(USER_MCP)
    os.chmod(config, 0o640)

    assert main(["install"]) == 0
    assert main(["uninstall"]) == 0

    assert (config.read_text(), mcp.read_text()) == (odd, USER_MCP)
    assert config.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in isolated.iterdir()) == ["config.toml", "mcp.json", "sessions"]


def test_uninstall_after_the_user_edited_keeps_the_edit(isolated: Path) -> None:
    config = isolated / "config.toml"
    config.write_text(USER_CONFIG)
    assert main(["install", "--no-mcp"]) == 0
    config.write_text(config.read_text().replace('model = "k3"', 'model = "k3-preview"'))

    assert main(["uninstall", "--no-mcp"]) == 0

    assert config.read_text() == USER_CONFIG.replace('model = "k3"', 'model = "k3-preview"')


def test_an_install_from_another_environment_replaces_ours(isolated: Path) -> None:
    config = isolated / "config.toml"
    config.write_text(USER_CONFIG)
    assert main(["install", "--no-mcp"]) == 0
    other = isolated.parent / "venv2" / "bin" / "python"
    other.parent.mkdir(parents=True)
    other.symlink_to(sys.executable)

    assert main(["install", "--no-mcp", "--python", str(other)]) == 0

    hooks = tomllib.loads(config.read_text())["hooks"]
    assert hooks[1:] == _ours(hook_command(str(other)))
    assert len(hooks) == 1 + len(PLUGIN.events)
    assert main(["uninstall", "--no-mcp"]) == 0
    assert config.read_text() == USER_CONFIG


def test_dry_run_shows_the_diff_and_writes_nothing(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = isolated / "config.toml"
    config.write_text(USER_CONFIG)

    assert main(["install", "--dry-run"]) == 0

    out = capsys.readouterr().out
    assert f"+++ {config} (after install)" in out
    assert '+event = "SessionStart"' in out
    assert config.read_text() == USER_CONFIG
    assert not (isolated / "mcp.json").exists()
    assert not (isolated / "config.toml.signet-sdk-orig").exists()


def test_project_puts_the_memory_tools_in_the_project(
    isolated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "atlas"
    project.mkdir()

    assert main(["install", "--project", str(project)]) == 0

    assert "signet" in json.loads((project / ".kimi-code" / "mcp.json").read_text())["mcpServers"]
    assert not (isolated / "mcp.json").exists()
    assert len(tomllib.loads((isolated / "config.toml").read_text())["hooks"]) == 6
    assert "Kimi Code has no project config" in capsys.readouterr().out
    assert main(["uninstall", "--project", str(project)]) == 0
    assert not (project / ".kimi-code").exists()
    assert not (isolated / "config.toml").exists()


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("config.toml", 'default_model = "k3\n', "invalid TOML"),
        ("config.toml", 'hooks = "none"\n', "'hooks' must be an array of tables"),
        ("config.toml", "hooks = [1]\n", "hooks[0] is not a table"),
        ("mcp.json", '{"mcpServers": [}', "not valid JSON"),
        (
            "mcp.json",
            '{"mcpServers": {"signet": {"url": "https://x.example/mcp"}}}',
            "another server",
        ),
    ],
)
def test_a_file_that_cannot_be_merged_is_refused_and_nothing_changes(
    isolated: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, problem: str
) -> None:
    err = assert_refused(main, isolated / name, text, problem, capsys)

    assert f"signet-sdk install kimi: {isolated / name}" in err
    assert err.endswith("No file was changed.\n")
    assert sorted(p.name for p in isolated.iterdir()) == sorted(["sessions", name])


def test_kimi_code_home_is_where_kimi_reads_its_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "kimi-home"
    monkeypatch.setenv("KIMI_CODE_HOME", str(elsewhere))
    assert main(["install"]) == 0
    assert (elsewhere / "config.toml").exists() and (elsewhere / "mcp.json").exists()


def test_the_command_line_runs_the_installer(isolated: Path) -> None:
    from signet_sdk.testing.hook_process import SIGNET_SDK

    proc = subprocess.run(
        [SIGNET_SDK, "install", "kimi", "--no-mcp"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"Signet hooks installed into {isolated / 'config.toml'}\n")


@pytest.mark.parametrize(
    "user_config", ["hooks = []\n", 'model = "k2"\nhooks = [ ]  # none yet\n\n[x]\ny = 2\n']
)
def test_an_empty_inline_hooks_array_is_installed_into_and_given_back(
    isolated: Path, user_config: str
) -> None:
    path = isolated / "config.toml"
    path.write_text(user_config)
    assert main(["install", "--no-mcp"]) == 0
    assert [h["event"] for h in tomllib.loads(path.read_text())["hooks"]] == [
        "SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact", "SessionEnd"
    ]  # fmt: skip
    assert main(["uninstall", "--no-mcp"]) == 0
    assert path.read_text() == user_config


def test_a_dangling_link_is_left_dangling_again_by_uninstall(isolated: Path) -> None:
    # A dotfiles link made before its target.
    assert_dangling_link_kept(main, isolated / "mcp.json")


def test_linked_and_crlf_files_are_kept_as_the_user_keeps_them(isolated: Path) -> None:
    assert_link_kept(main, isolated / "config.toml", USER_CONFIG)
    (isolated / "config.toml").unlink()
    assert_crlf_kept(main, isolated / "config.toml", USER_CONFIG)
    assert_crlf_kept(main, isolated / "mcp.json", USER_MCP)


def test_a_users_hook_that_mentions_ours_is_never_taken_for_ours(isolated: Path) -> None:
    config = isolated / "config.toml"
    mine = (
        '[[hooks]]\nevent = "Notification"\n'
        'command = "notify-send done; logger signet-sdk hook kimi Stop"\n'
    )
    config.write_text(mine)
    assert main(["uninstall", "--no-mcp"]) == 0
    assert config.read_text() == mine
    assert main(["install", "--no-mcp"]) == 0
    assert mine in config.read_text()
    assert main(["uninstall", "--no-mcp"]) == 0
    assert config.read_text() == mine


MINE = "default_thinking = true  # mine\n"


def _moved(config: Path, verb: str, where: str) -> str:
    return (
        f"signet-sdk {verb} kimi: {config}: moved your 'default_thinking' out of Signet's "
        f"[[hooks]] entry to {where}, where it is without Signet's entries\n"
    )


@pytest.mark.parametrize(
    ("before", "where"),
    [
        ('default_model = "k3"\n', "the top level"),
        ("", "the top level"),
        ('[models."k3"]\nmodel = "k3"\n', "[models.k3]"),
        ('[[hooks]]\nevent = "Stop"\ncommand = "notify-send done"\n', "[[hooks]] entry 1"),
    ],
    ids=["root-keys", "no-file", "ends-in-a-table", "ends-in-a-hook-of-the-users"],
)
def test_a_key_appended_after_install_is_moved_back_not_deleted(
    isolated: Path, capsys: pytest.CaptureFixture[str], before: str, where: str
) -> None:
    """``echo key >> config.toml`` lands in our last entry; uninstall used to delete it."""
    config = isolated / "config.toml"
    if before:
        config.write_text(before)
    assert main(["install", "--no-mcp"]) == 0
    with config.open("a") as file:
        file.write(MINE)
    capsys.readouterr()
    assert main(["uninstall", "--no-mcp"]) == 0
    assert config.read_text() == before + MINE
    assert capsys.readouterr().err == _moved(config, "uninstall", where)


def test_a_key_that_cannot_move_stays_in_place_and_is_named(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The top level has the key already: it stays, in an entry without our keys."""
    config = isolated / "config.toml"
    config.write_text("default_thinking = false\n")
    assert main(["install", "--no-mcp"]) == 0
    with config.open("a") as file:
        file.write(MINE)
    capsys.readouterr()
    assert main(["uninstall", "--no-mcp"]) == 0
    assert config.read_text() == "default_thinking = false\n\n[[hooks]]\n" + MINE
    assert capsys.readouterr().err == (
        f"signet-sdk uninstall kimi: {config}: kept your 'default_thinking' where it is, in "
        "the [[hooks]] entry that held Signet's SessionEnd hook (moving it is not safe)\n"
    )


def test_a_reinstall_from_another_environment_moves_the_users_key(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Our entries are replaced; the key appended into the last one is not lost with it."""
    config = isolated / "config.toml"
    config.write_text('default_model = "k3"\n')
    assert main(["install", "--no-mcp"]) == 0
    installed = config.read_text()
    with config.open("a") as file:
        file.write(MINE)
    other = isolated.parent / "venv2" / "bin" / "python"
    other.parent.mkdir(parents=True)
    other.symlink_to(sys.executable)
    capsys.readouterr()
    assert main(["install", "--no-mcp", "--python", str(other)]) == 0
    assert capsys.readouterr().err == _moved(config, "install", "the top level")
    mine = 'default_model = "k3"\n' + MINE
    assert config.read_text() == installed.replace(
        hook_command(), hook_command(str(other))
    ).replace('default_model = "k3"\n', mine)
    assert main(["uninstall", "--no-mcp"]) == 0
    assert config.read_text() == mine
