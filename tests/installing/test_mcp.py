"""Our ``signet`` server in a JSON ``mcpServers`` file: edited as text, never the user's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from signet_sdk.installing.files import InstallError
from signet_sdk.installing.mcp import (
    add_server,
    is_sdk_server,
    mcp_normal,
    remove_server,
    sdk_mcp_entry,
    server_change,
)

USER = '{\n  // mine\n  "mcpServers": {\n    "other": {"command": "x"}\n  }\n}\n'


def test_the_entry_runs_signet_sdk_mcp_labelled_with_the_harness() -> None:
    entry = sdk_mcp_entry("kimi", "/opt/venv/bin/python")
    assert entry["args"][-1] == "mcp" and entry["env"] == {"SIGNET_HARNESS": "kimi"}
    assert list(entry) == ["command", "args", "env"]
    assert is_sdk_server(entry)
    assert is_sdk_server({"command": "/elsewhere/bin/python", "args": ["-m", "signet_sdk", "mcp"]})
    assert not is_sdk_server({"command": "node", "args": ["server.js"]})
    assert not is_sdk_server({"command": "signet-sdk", "args": ["mcp", 3]})


def test_added_and_removed_the_users_bytes_stay(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    entry = sdk_mcp_entry("copilot")
    added = add_server(path, USER, entry)
    assert added.startswith('{\n  // mine\n  "mcpServers": {\n    "other": {"command": "x"},')
    assert add_server(path, added, entry) == added  # a second install changes nothing
    assert remove_server(path, added, drop_empty=True) == USER  # "other" keeps mcpServers
    assert remove_server(path, USER, drop_empty=True) == USER  # nothing of ours: untouched


def test_a_new_file_and_the_mcp_servers_the_install_created(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    entry = sdk_mcp_entry("kimi")
    assert json.loads(add_server(path, None, entry)) == {"mcpServers": {"signet": entry}}
    added = add_server(path, '{"theme": "dark"}\n', entry)
    kept = remove_server(path, added, drop_empty=False)
    assert kept is not None and json.loads(kept) == {"theme": "dark", "mcpServers": {}}
    assert mcp_normal(kept) == mcp_normal('{"theme": "dark"}\n') == {"theme": "dark"}
    gone = remove_server(path, added, drop_empty=True)
    assert gone is not None and json.loads(gone) == {"theme": "dark"}
    assert mcp_normal(None) == mcp_normal("  ") == {}
    assert mcp_normal("[1]") == {"unreadable": "[1]"}


def test_a_server_of_the_users_called_signet_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    theirs = '{"mcpServers": {"signet": {"command": "node", "args": ["s.js"]}}}\n'
    with pytest.raises(InstallError, match=r"mcp\.json: mcpServers\.signet is another server"):
        add_server(path, theirs, sdk_mcp_entry("kimi"))
    assert remove_server(path, theirs, drop_empty=True) == theirs


def test_server_change_restores_the_original_bytes_on_uninstall(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from signet_sdk.installing.originals import apply_keeping

    path = tmp_path / "home" / "mcp.json"
    entry = sdk_mcp_entry("kimi")
    install = server_change("install", path, entry, "memory tools")
    assert install.before is None and install.after is not None
    assert apply_keeping("kimi", "install", [install], dry_run=False) is True
    assert f"Signet memory tools installed into {path}" in capsys.readouterr().out
    path.write_text(path.read_text().replace("{", '{\n  "theme": "dark",', 1))
    edited = server_change("uninstall", path, entry, "memory tools")
    assert edited.after is not None and json.loads(edited.after) == {"theme": "dark"}
    path.write_text(install.after or "")
    gone = server_change("uninstall", path, entry, "memory tools")
    assert gone.after is None  # the file was not there before: it goes
    assert apply_keeping("kimi", "uninstall", [gone], dry_run=False) is True
    assert "(file removed)" in capsys.readouterr().out
    assert not (tmp_path / "home").exists()


def test_a_new_file_is_laid_out_as_a_spliced_one_non_ascii_paths_as_they_are(
    tmp_path: Path,
) -> None:
    path = tmp_path / "mcp.json"
    entry = {**sdk_mcp_entry("kimi"), "command": "/home/zoë/venv/bin/signet-sdk"}
    fresh = add_server(path, None, entry)
    spliced = add_server(path, "{}\n", entry)
    assert fresh == spliced  # a new file, or a spliced empty one: the same bytes
    assert '"/home/zoë/venv/bin/signet-sdk"' in fresh


def test_our_server_follows_the_files_indent(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    mine = '{\n\t"mcpServers": {\n\t\t"other": {\n\t\t\t"command": "x"\n\t\t}\n\t}\n}\n'
    entry = sdk_mcp_entry("kimi")
    added = add_server(path, mine, entry)
    rendered = json.dumps(entry, indent="\t").replace("\n", "\n\t\t")
    assert added == mine.replace("\t\t}\n\t}", '\t\t},\n\t\t"signet": ' + rendered + "\n\t}")
    assert remove_server(path, added, drop_empty=True) == mine
