"""``signet-sdk install openclaw`` / ``uninstall``: the plugin folder and openclaw.json bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from signet_adapter_openclaw import SHIM_EVENTS
from signet_adapter_openclaw._translate import SHIM_SCOPE
from signet_adapter_openclaw.install import MARKER, main
from signet_e2e.installer_checks import (
    assert_crlf_kept,
    assert_dangling_link_kept,
    assert_link_kept,
)

from signet_sdk.tools import tool_definitions

SDK = str(Path(sys.executable).parent / "signet-sdk")
FILES = {
    "index.mjs",
    "openclaw.plugin.json",
    "package.json",
    "transport.mjs",
    "signet-sdk.json",
    "signet-openclaw.json",
    "signet-install.json",
}

USER_CONFIG = """{
  // my gateway
  gateway: { port: 18789 },
  plugins: {
    entries: {
      'voice-call': { enabled: true }, // keep this
    },
  },
}
"""

OURS = """      "signet-sdk": {
        "enabled": true,
        "hooks": {
          "allowConversationAccess": true
        }
      }"""


def state(home: Path) -> Path:
    return home / ".openclaw"


def folder(home: Path) -> Path:
    return state(home) / "extensions" / "signet-sdk"


def config(home: Path) -> Path:
    return state(home) / "openclaw.json"


def write_config(home: Path, text: str) -> Path:
    path = config(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_install_into_a_fresh_state_dir_and_back(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install"]) == 0
    assert {p.name for p in folder(isolated).iterdir()} == FILES
    assert MARKER in (folder(isolated) / "index.mjs").read_text().splitlines()[0]
    cfg = json.loads(config(isolated).read_text())
    assert cfg == {
        "plugins": {
            "entries": {
                "signet-sdk": {"enabled": True, "hooks": {"allowConversationAccess": True}}
            },
            "slots": {"memory": "signet-sdk"},
        }
    }
    assert config(isolated).stat().st_mode & 0o777 == 0o600
    manifest = json.loads((folder(isolated) / "openclaw.plugin.json").read_text())
    assert manifest["id"] == "signet-sdk" and manifest["kind"] == "memory"
    package = json.loads((folder(isolated) / "package.json").read_text())
    assert package["type"] == "module" and package["openclaw"]["extensions"] == ["./index.mjs"]
    spec = json.loads((folder(isolated) / "signet-openclaw.json").read_text())
    assert spec["harness"] == "openclaw" and spec["scope"] == list(SHIM_SCOPE)
    assert set(spec["events"]) == set(SHIM_EVENTS)
    assert spec["events"]["session_start"]["timeoutMs"] == 16000
    assert spec["events"]["before_prompt_build"]["timeoutMs"] == 6000
    # The memory tools: the tool set's, prefixed for OpenClaw, declared in the manifest.
    expected = [t["name"] for t in tool_definitions()]
    assert [t["tool"] for t in spec["tools"]] == expected
    assert [t["name"] for t in spec["tools"]] == [f"signet_{n}" for n in expected]
    assert manifest["contracts"] == {"tools": [t["name"] for t in spec["tools"]]}
    assert spec["tools"][0]["parameters"] == tool_definitions()[0]["inputSchema"]
    command = json.loads((folder(isolated) / "signet-sdk.json").read_text())["command"]
    assert os.path.isabs(command[0])

    assert main(["uninstall"]) == 0
    assert not folder(isolated).exists()
    assert not config(isolated).exists()  # we created it, it held only ours


def test_json5_comments_survive_and_uninstall_restores_the_bytes(isolated: Path) -> None:
    path = write_config(isolated, USER_CONFIG)
    assert main(["install"]) == 0
    after = path.read_text()
    assert after == USER_CONFIG.replace(
        "      'voice-call': { enabled: true }, // keep this\n",
        "      'voice-call': { enabled: true },\n" + OURS + ", // keep this\n",
    ).replace(
        "    },\n  },\n}",
        '    },\n    "slots": {\n      "memory": "signet-sdk"\n    },\n  },\n}',
    )
    stamp = path.stat().st_mtime_ns
    assert main(["install"]) == 0  # idempotent: nothing written
    assert path.read_text() == after and path.stat().st_mtime_ns == stamp
    assert main(["uninstall"]) == 0
    assert path.read_text() == USER_CONFIG


def test_another_memory_plugin_keeps_the_slot_unless_asked(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = '{"plugins": {"allow": ["voice-call"], "slots": {"memory": "memory-lancedb"}}}\n'
    path = write_config(isolated, text)
    assert main(["install"]) == 0
    out = capsys.readouterr().out
    assert "memory-lancedb" in out and "--memory-slot" in out
    cfg = json.loads(path.read_text())
    assert cfg["plugins"]["slots"]["memory"] == "memory-lancedb"
    assert cfg["plugins"]["allow"] == ["voice-call", "signet-sdk"]

    assert main(["install", "--memory-slot"]) == 0
    assert json.loads(path.read_text())["plugins"]["slots"]["memory"] == "signet-sdk"
    assert main(["uninstall"]) == 0
    assert path.read_text() == text


def test_uninstall_keeps_what_the_user_added_since(isolated: Path) -> None:
    path = write_config(isolated, "{}\n")
    assert main(["install"]) == 0
    cfg = json.loads(path.read_text())
    cfg["plugins"]["entries"]["mine"] = {"enabled": True}
    path.write_text(json.dumps(cfg, indent=2) + "\n")
    assert main(["uninstall"]) == 0
    assert json.loads(path.read_text()) == {"plugins": {"entries": {"mine": {"enabled": True}}}}


def test_the_config_path_and_state_dir_come_from_openclaws_variables(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "conf" / "oc.json5"
    elsewhere.parent.mkdir()
    elsewhere.write_text("// empty\n{}\n")
    monkeypatch.setenv("OPENCLAW_CONFIG_PATH", str(elsewhere))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "oc-state"))
    assert main(["install"]) == 0
    assert (tmp_path / "oc-state" / "extensions" / "signet-sdk" / "index.mjs").is_file()
    assert '"signet-sdk"' in elsewhere.read_text()
    assert not config(isolated).exists()
    assert main(["uninstall"]) == 0
    assert elsewhere.read_text() == "// empty\n{}\n"


def test_dry_run_prints_the_changes_and_writes_nothing(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(isolated, USER_CONFIG)
    assert main(["install", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert '+      "signet-sdk": {' in out and "index.mjs" in out
    assert path.read_text() == USER_CONFIG
    assert not folder(isolated).exists()


def test_bad_config_is_refused_naming_file_and_line(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(isolated, "{\n  plugins: {\n    entries: [,\n}\n")
    assert main(["install"]) == 1
    err = capsys.readouterr().err
    assert str(path) in err and "line 3" in err and "No file was changed" in err
    assert not folder(isolated).exists()


def test_a_folder_that_is_not_ours_is_left_alone(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder(isolated).mkdir(parents=True)
    (folder(isolated) / "index.mjs").write_text("export default {};\n")
    assert main(["install"]) == 1
    assert "not ours" in capsys.readouterr().err
    assert (folder(isolated) / "index.mjs").read_text() == "export default {};\n"
    assert not config(isolated).exists()
    assert main(["uninstall"]) == 0
    assert (folder(isolated) / "index.mjs").exists()


def test_the_cli_runs_the_installer(isolated: Path) -> None:
    env = dict(os.environ)
    done = subprocess.run([SDK, "install", "openclaw"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (folder(isolated) / "index.mjs").is_file()
    done = subprocess.run([SDK, "uninstall", "openclaw"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not folder(isolated).exists()


def test_secrets_exec_is_registered_only_when_enabled_at_install(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNET_TOOLS_ALLOW_EXEC", "1")
    assert main(["install"]) == 0
    spec = json.loads((folder(isolated) / "signet-openclaw.json").read_text())
    manifest = json.loads((folder(isolated) / "openclaw.plugin.json").read_text())
    assert "signet_secrets_exec" in [t["name"] for t in spec["tools"]]
    assert "signet_secrets_exec" in manifest["contracts"]["tools"]


def test_a_dangling_link_is_left_dangling_again_by_uninstall(isolated: Path) -> None:
    # A dotfiles link made before its target.
    assert_dangling_link_kept(main, config(isolated))


def test_linked_and_crlf_files_are_kept_as_the_user_keeps_them(isolated: Path) -> None:
    assert_link_kept(main, config(isolated), USER_CONFIG)
    config(isolated).unlink()
    assert_crlf_kept(main, config(isolated), USER_CONFIG)
