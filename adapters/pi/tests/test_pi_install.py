"""``signet-sdk install pi`` / ``uninstall``: our directory in pi's extensions, nothing else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest
from signet_adapter_pi import PLUGIN, SHIM_EVENTS
from signet_adapter_pi.install import DIRECTORY, MARKER, main, sdk_command

from signet_sdk.tools import tool_definitions

NAMES = {"index.js", "transport.mjs", "signet-sdk.json", "signet-pi.json"}


def ext(home: Path) -> Path:
    return home / ".pi" / "agent" / "extensions" / DIRECTORY


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_install_writes_the_shim_transport_command_and_event_table(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install"]) == 0
    folder = ext(isolated)
    assert {p.name for p in folder.iterdir()} == NAMES
    index = (folder / "index.js").read_text()
    assert MARKER in index.splitlines()[0]
    assert index == Path(PLUGIN.shim_dir() or "", "index.js").read_text()
    transport = (files("signet_sdk") / "shims" / "transport.mjs").read_text()
    assert (folder / "transport.mjs").read_text() == transport
    command = json.loads((folder / "signet-sdk.json").read_text())
    assert command["command"] == sdk_command()
    assert Path(command["command"][0]).is_absolute()
    table = json.loads((folder / "signet-pi.json").read_text())
    assert table["harness"] == "pi"
    assert set(table["events"]) == set(SHIM_EVENTS)
    for name, rule in table["events"].items():
        assert rule["fields"] == SHIM_EVENTS[name]["fields"]
        assert rule["session"] == SHIM_EVENTS[name]["session"]
    assert table["events"]["session_start"]["timeoutMs"] == 16000
    assert table["events"]["input"]["timeoutMs"] == 6000
    assert table["events"]["session_shutdown"]["timeoutMs"] == 11000
    # The memory tools, as pi's registerTool takes them, from the SDK's one tool set.
    definitions = tool_definitions()
    assert [t["name"] for t in table["tools"]] == [d["name"] for d in definitions]
    for tool, definition in zip(table["tools"], definitions, strict=True):
        assert tool["parameters"] == definition["inputSchema"]
        assert tool["description"] == definition["description"]
        assert tool["label"] and tool["timeoutMs"] == 30000
    assert "secrets_exec" not in [t["name"] for t in table["tools"]]
    assert "installed into" in capsys.readouterr().out


def test_deadlines_follow_the_environment_at_install_time(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNET_PROMPT_SUBMIT_TIMEOUT", "2500")
    assert main(["install"]) == 0
    table = json.loads((ext(isolated) / "signet-pi.json").read_text())
    assert table["events"]["input"]["timeoutMs"] == 3500


def test_second_install_changes_nothing(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install"]) == 0
    before = snapshot(ext(isolated))
    capsys.readouterr()
    assert main(["install"]) == 0
    assert snapshot(ext(isolated)) == before
    assert "already up to date" in capsys.readouterr().out


def test_an_outdated_install_is_updated_in_place(isolated: Path) -> None:
    assert main(["install"]) == 0
    table = ext(isolated) / "signet-pi.json"
    table.write_text("{}\n")
    assert main(["install"]) == 0
    assert json.loads(table.read_text())["harness"] == "pi"


def test_dry_run_writes_nothing_and_shows_the_files(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert not ext(isolated).exists()
    for name in NAMES:
        assert f"{ext(isolated) / name} (after install)" in out
    assert MARKER in out


def test_agent_dir_option_and_env(isolated: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    assert main(["install", "--agent-dir", str(other)]) == 0
    assert (other / "extensions" / DIRECTORY / "index.js").is_file()
    assert not ext(isolated).exists()


def test_refuses_a_directory_that_is_not_ours(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = ext(isolated)
    folder.mkdir(parents=True)
    (folder / "index.js").write_text("export default function (pi) {}\n")
    assert main(["install"]) == 1
    assert "not ours" in capsys.readouterr().err
    assert (folder / "index.js").read_text() == "export default function (pi) {}\n"
    assert {p.name for p in folder.iterdir()} == {"index.js"}
    assert main(["uninstall"]) == 0
    assert (folder / "index.js").exists()


def test_refuses_a_file_in_place_of_the_directory(isolated: Path) -> None:
    folder = ext(isolated)
    folder.parent.mkdir(parents=True)
    folder.write_text("mine")
    assert main(["install"]) == 1
    assert folder.read_text() == "mine"


def test_refuses_our_names_without_the_marker(isolated: Path) -> None:
    folder = ext(isolated)
    folder.mkdir(parents=True)
    (folder / "signet-pi.json").write_text('{"mine": true}')
    assert main(["install"]) == 1
    assert (folder / "signet-pi.json").read_text() == '{"mine": true}'


def test_uninstall_removes_only_ours(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = ext(isolated).parent / "my-extension.ts"
    assert main(["install"]) == 0
    other.write_text("export default () => {}\n")
    (ext(isolated) / "notes.txt").write_text("keep me")
    assert main(["uninstall", "--dry-run"]) == 0
    assert (ext(isolated) / "index.js").exists()
    assert main(["uninstall"]) == 0
    assert {p.name for p in ext(isolated).iterdir()} == {"notes.txt"}
    assert other.exists()
    (ext(isolated) / "notes.txt").unlink()
    assert main(["install"]) == 0
    assert main(["uninstall"]) == 0
    assert not ext(isolated).exists()
    assert other.exists()
    capsys.readouterr()
    assert main(["uninstall"]) == 0
    assert "nothing changed" in capsys.readouterr().out


def test_signet_connector_is_pointed_out(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    connector = ext(isolated).parent / "signet-pi.js"
    connector.parent.mkdir(parents=True)
    connector.write_text("// SIGNET_MANAGED_PI_EXTENSION\n")
    assert main(["install"]) == 0
    assert "captured twice" in capsys.readouterr().out
    assert connector.read_text() == "// SIGNET_MANAGED_PI_EXTENSION\n"


def test_usage_errors_exit_2() -> None:
    assert main(["reinstall"]) == 2
    assert main(["install", "--bogus"]) == 2


def test_cli_install_dry_run_and_uninstall(isolated: Path) -> None:
    sdk = str(Path(sys.executable).parent / "signet-sdk")
    env = dict(os.environ)
    dry = subprocess.run(
        [sdk, "install", "pi", "--dry-run"], capture_output=True, text=True, env=env
    )
    assert dry.returncode == 0, dry.stderr
    assert "index.js (after install)" in dry.stdout
    assert not ext(isolated).exists()
    done = subprocess.run([sdk, "install", "pi"], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and ext(isolated).is_dir()
    gone = subprocess.run([sdk, "uninstall", "pi"], capture_output=True, text=True, env=env)
    assert gone.returncode == 0 and not ext(isolated).exists()


@pytest.mark.parametrize("installed_first", [False, True], ids=["fresh", "over-ours"])
def test_refuses_a_folder_holding_a_file_not_ours_and_never_removes_it(
    isolated: Path, capsys: pytest.CaptureFixture[str], installed_first: bool
) -> None:
    """A user's index.ts (pi may load it before our index.js) used to get ours beside it."""
    folder = ext(isolated)
    folder.mkdir(parents=True)
    if installed_first:
        assert main(["install"]) == 0
    (folder / "index.ts").write_text("export default function (pi) {}\n")
    before = snapshot(folder)
    capsys.readouterr()
    assert main(["install"]) == 1
    assert capsys.readouterr().err == (
        f"signet-sdk install pi: {folder}: holds index.ts, not ours; pi loads this folder "
        "as one extension, so Signet's cannot go beside it; left untouched (move it "
        "elsewhere)\nNo file was changed.\n"
    )
    assert snapshot(folder) == before
    assert main(["uninstall"]) == 0
    assert {p.name for p in folder.iterdir()} == {"index.ts"}
    assert (folder / "index.ts").read_text() == "export default function (pi) {}\n"
