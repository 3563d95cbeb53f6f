"""``signet-sdk install cursor`` / ``uninstall``: the bytes of hooks.json and mcp.json."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from signet_adapter_cursor.install import RECORD, hook_command, hook_timeouts
from signet_adapter_cursor.install import main as installer
from signet_e2e.installer_checks import (
    assert_crlf_kept,
    assert_dangling_link_kept,
    assert_link_kept,
    assert_refused,
)

from signet_sdk.cli.doctor import diagnose

USER_HOOKS = """{
  "version": 1,
  "hooks": {
    "stop": [
      {
        "command": "./hooks/audit.sh"
      }
    ],
    "afterFileEdit": [{ "command": "./hooks/format.sh" }]
  }
}
"""

USER_MCP = """{
  "mcpServers": {
    "docs": {
      "command": "docs-mcp",
      "args": ["--fast"]
    }
  }
}
"""


def fresh_hooks(command: str) -> str:
    """hooks.json as the install writes it where there was none."""
    return f"""{{
  "version": 1,
  "hooks": {{
    "sessionStart": [
      {{
        "command": "{command} sessionStart",
        "timeout": 17
      }}
    ],
    "beforeSubmitPrompt": [
      {{
        "command": "{command} beforeSubmitPrompt",
        "timeout": 7
      }}
    ],
    "stop": [
      {{
        "command": "{command} stop",
        "timeout": 12
      }}
    ],
    "preCompact": [
      {{
        "command": "{command} preCompact",
        "timeout": 12
      }}
    ],
    "sessionEnd": [
      {{
        "command": "{command} sessionEnd",
        "timeout": 5
      }}
    ]
  }}
}}
"""


def server_lines(indent: str) -> str:
    """Our ``mcpServers.signet`` value as the install lays it out at ``indent``."""
    program = hook_command().split(" hook cursor")[0]
    lines = ["{", f'  "command": "{program}",', '  "args": [', '    "mcp"', "  ],",
             '  "env": {', '    "SIGNET_HARNESS": "cursor"', "  }", "}"]  # fmt: skip
    return ("\n" + indent).join(lines)


def files(cursor: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(cursor.iterdir()) if p.is_file()}


def test_timeouts_are_seconds_above_each_hooks_deadline() -> None:
    assert hook_timeouts({}) == {
        "sessionStart": 17,
        "beforeSubmitPrompt": 7,
        "stop": 12,
        "preCompact": 12,
        "sessionEnd": 5,
    }
    faster = hook_timeouts({"SIGNET_PROMPT_SUBMIT_TIMEOUT": "2500"})
    assert faster["beforeSubmitPrompt"] == 5


def test_install_where_cursor_has_no_files_writes_them_whole(isolated: Path) -> None:
    assert installer(["install"]) == 0

    command = hook_command()
    assert (isolated / "hooks.json").read_text() == fresh_hooks(command)
    mcp = '{\n  "mcpServers": {\n    "signet": ' + server_lines("    ") + "\n  }\n}\n"
    assert (isolated / "mcp.json").read_text() == mcp
    for name in ("hooks.json", "mcp.json", RECORD):
        assert (isolated / name).stat().st_mode & 0o777 == 0o600


def test_install_keeps_the_users_hooks_and_servers_byte_for_byte(isolated: Path) -> None:
    (isolated / "hooks.json").write_text(USER_HOOKS)
    (isolated / "mcp.json").write_text(USER_MCP)

    assert installer(["install"]) == 0

    command = hook_command()
    hooks = (isolated / "hooks.json").read_text()
    ours_after_audit = (
        '        "command": "./hooks/audit.sh"\n      },\n      {\n'
        f'        "command": "{command} stop",\n        "timeout": 12\n      }}\n    ],\n'
    )
    assert hooks.startswith('{\n  "version": 1,\n  "hooks": {\n    "stop": [\n      {\n'
                            + ours_after_audit)  # fmt: skip
    assert '    "afterFileEdit": [{ "command": "./hooks/format.sh" }],\n' in hooks
    data = json.loads(hooks)
    assert data["hooks"]["stop"][0] == {"command": "./hooks/audit.sh"}
    assert data["hooks"]["afterFileEdit"] == [{"command": "./hooks/format.sh"}]
    for event, seconds in hook_timeouts({}).items():
        assert data["hooks"][event][-1] == {"command": f"{command} {event}", "timeout": seconds}
    mcp = (isolated / "mcp.json").read_text()
    assert mcp == USER_MCP.replace(
        '"args": ["--fast"]\n    }\n',
        '"args": ["--fast"]\n    },\n    "signet": ' + server_lines("    ") + "\n",
    )


def test_install_is_idempotent_and_uninstall_restores_the_bytes(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated / "hooks.json").write_text(USER_HOOKS)
    (isolated / "mcp.json").write_text(USER_MCP)
    assert installer(["install"]) == 0
    once = files(isolated)
    capsys.readouterr()

    assert installer(["install"]) == 0
    assert capsys.readouterr().out.count("already up to date, nothing changed") == 2
    assert files(isolated) == once

    assert installer(["uninstall"]) == 0
    assert files(isolated) == {"hooks.json": USER_HOOKS.encode(), "mcp.json": USER_MCP.encode()}


def test_uninstall_removes_what_the_install_created(isolated: Path) -> None:
    assert installer(["install"]) == 0
    assert installer(["uninstall"]) == 0
    assert files(isolated) == {}
    assert installer(["uninstall"]) == 0  # nothing left to do is not an error
    assert files(isolated) == {}


@pytest.mark.parametrize("text", ["", "\n", "{}", "{}\n"])
def test_an_empty_file_is_written_whole_and_given_back(isolated: Path, text: str) -> None:
    (isolated / "hooks.json").write_text(text)
    (isolated / "mcp.json").write_text(text)
    assert installer(["install"]) == 0
    assert (isolated / "hooks.json").read_text() == fresh_hooks(hook_command())
    assert json.loads((isolated / "mcp.json").read_text())["mcpServers"]["signet"]["args"][-1:] == [
        "mcp"
    ]
    assert installer(["uninstall"]) == 0
    assert files(isolated) == {"hooks.json": text.encode(), "mcp.json": text.encode()}


def test_uninstall_without_the_record_still_gives_back_the_bytes(isolated: Path) -> None:
    (isolated / "hooks.json").write_text(USER_HOOKS)
    (isolated / "mcp.json").write_text(USER_MCP)
    assert installer(["install"]) == 0
    (isolated / RECORD).unlink()  # only the spliced-in text tells what is ours
    assert installer(["uninstall"]) == 0
    assert files(isolated) == {"hooks.json": USER_HOOKS.encode(), "mcp.json": USER_MCP.encode()}


def test_uninstall_keeps_what_the_user_added_since(isolated: Path) -> None:
    (isolated / "hooks.json").write_text(USER_HOOKS)
    assert installer(["install", "--no-mcp"]) == 0
    path = isolated / "hooks.json"
    path.write_text(path.read_text().replace("./hooks/format.sh", "./hooks/format-v2.sh"))

    assert installer(["uninstall"]) == 0
    assert path.read_text() == USER_HOOKS.replace("./hooks/format.sh", "./hooks/format-v2.sh")
    assert RECORD not in files(isolated)


def test_an_install_from_another_environment_is_updated_in_place(isolated: Path) -> None:
    (isolated / "hooks.json").write_text(USER_HOOKS)
    assert installer(["install", "--python", "/opt/other/bin/python3", "--no-mcp"]) == 0
    old = json.loads((isolated / "hooks.json").read_text())["hooks"]["stop"][-1]["command"]
    assert old == "/opt/other/bin/python3 -m signet_sdk hook cursor stop"

    assert installer(["install", "--no-mcp"]) == 0
    stop = json.loads((isolated / "hooks.json").read_text())["hooks"]["stop"]
    assert stop == [{"command": "./hooks/audit.sh"},
                    {"command": f"{hook_command()} stop", "timeout": 12}]  # fmt: skip
    assert installer(["uninstall"]) == 0
    assert (isolated / "hooks.json").read_text() == USER_HOOKS


def test_no_mcp_leaves_mcp_json_alone(isolated: Path) -> None:
    (isolated / "mcp.json").write_text(USER_MCP)
    assert installer(["install", "--no-mcp"]) == 0
    assert (isolated / "mcp.json").read_text() == USER_MCP
    assert (isolated / "hooks.json").exists()


def test_project_scope_and_dry_run(
    isolated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    assert installer(["install", "--project", str(project), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"+++ {project / '.cursor' / 'hooks.json'} (after install)" in out
    assert f"+++ {project / '.cursor' / 'mcp.json'} (after install)" in out
    assert not (project / ".cursor").exists() and files(isolated) == {}

    assert installer(["install", "--project", str(project)]) == 0
    assert "only in a trusted workspace" in capsys.readouterr().out
    assert (project / ".cursor" / "hooks.json").read_text() == fresh_hooks(hook_command())
    assert files(isolated) == {}  # the user's own files are not touched
    assert installer(["uninstall", "--project", str(project)]) == 0
    assert sorted(p.name for p in (project / ".cursor").iterdir()) == []


def test_a_server_named_signet_that_is_not_ours_is_refused(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theirs = '{"mcpServers": {"signet": {"command": "their-signet", "args": []}}}\n'
    (isolated / "mcp.json").write_text(theirs)
    assert installer(["install"]) == 1
    err = capsys.readouterr().err
    assert str(isolated / "mcp.json") in err and "No file was changed" in err
    assert files(isolated) == {"mcp.json": theirs.encode()}
    assert installer(["uninstall"]) == 0
    assert files(isolated) == {"mcp.json": theirs.encode()}


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("hooks.json", "{not json", "not valid JSON"),
        ("hooks.json", "[]", "the top level is not an object"),
        ("hooks.json", '{"hooks": []}', "'hooks' is not an object"),
        ("hooks.json", '{"hooks": {"stop": {}}}', "hooks.stop is not a list"),
        ("mcp.json", '{"mcpServers": []}', "'mcpServers' is not an object"),
        (RECORD, "{", "not valid JSON"),
    ],
)
def test_bad_files_are_named_and_nothing_is_changed(
    isolated: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, problem: str
) -> None:
    for verb in ("install", "uninstall"):
        assert_refused(installer, isolated / name, text, problem, capsys, verb)
        assert files(isolated) == {name: text.encode()}


def test_a_users_file_keeps_its_mode(isolated: Path) -> None:
    path = isolated / "hooks.json"
    path.write_text(USER_HOOKS)
    os.chmod(path, 0o664)
    assert installer(["install"]) == 0
    assert path.stat().st_mode & 0o777 == 0o664


def test_doctor_reports_cursor(isolated: Path) -> None:
    env = {**os.environ, "SIGNET_DAEMON_URL": "http://127.0.0.1:9"}

    def said() -> list[str]:
        found = diagnose(env)
        return [f.message for f in found if f.area == "harness" and f.message.startswith("cursor")]

    assert said() == ["cursor: not installed (optional)"]
    assert installer(["install"]) == 0
    assert said() == ["cursor: installed and up to date"]
    hooks = isolated / "hooks.json"
    hooks.write_text(hooks.read_text().replace('"timeout": 7', '"timeout": 3'))
    (stale,) = said()
    assert stale.startswith("cursor: installed, but not as this SDK would install it now")


def test_a_dangling_link_is_left_dangling_again_by_uninstall(isolated: Path) -> None:
    # A dotfiles link made before its target.
    assert_dangling_link_kept(installer, isolated / "mcp.json")


def test_linked_and_crlf_files_are_kept_as_the_user_keeps_them(isolated: Path) -> None:
    assert_link_kept(installer, isolated / "hooks.json", USER_HOOKS)
    (isolated / "hooks.json").unlink()
    assert_crlf_kept(installer, isolated / "hooks.json", USER_HOOKS)
    assert_crlf_kept(installer, isolated / "mcp.json", USER_MCP)


@pytest.mark.parametrize("unit", ["    ", "\t"], ids=["four-spaces", "tabs"])
def test_what_is_added_follows_the_files_own_indent(isolated: Path, unit: str) -> None:
    hooks = USER_HOOKS.replace("  ", unit)
    mcp = USER_MCP.replace("  ", unit)
    (isolated / "hooks.json").write_text(hooks)
    (isolated / "mcp.json").write_text(mcp)
    assert installer(["install"]) == 0

    command = hook_command()
    ours_after_audit = (
        f'{unit * 4}"command": "./hooks/audit.sh"\n{unit * 3}}},\n{unit * 3}{{\n'
        f'{unit * 4}"command": "{command} stop",\n{unit * 4}"timeout": 12\n{unit * 3}}}\n'
    )
    assert ours_after_audit in (isolated / "hooks.json").read_text()
    program = hook_command().split(" hook cursor")[0]
    entry = {"command": program, "args": ["mcp"], "env": {"SIGNET_HARNESS": "cursor"}}
    server = json.dumps(entry, indent=unit).replace("\n", "\n" + unit * 2)
    assert (isolated / "mcp.json").read_text() == mcp.replace(
        f'"args": ["--fast"]\n{unit * 2}}}\n',
        f'"args": ["--fast"]\n{unit * 2}}},\n{unit * 2}"signet": {server}\n',
    )
    assert installer(["uninstall"]) == 0
    assert files(isolated) == {"hooks.json": hooks.encode(), "mcp.json": mcp.encode()}
