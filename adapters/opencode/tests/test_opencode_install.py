"""``signet-sdk install opencode``: the files written, the config bytes, and back out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from signet_adapter_opencode import PLUGIN
from signet_adapter_opencode.install import MARKER, main, mcp_entry, sdk_command
from signet_e2e.installer_checks import (
    assert_crlf_kept,
    assert_dangling_link_kept,
    assert_link_kept,
)

JSONC = """// My OpenCode settings
{
  "$schema": "https://opencode.ai/config.json",
  /* the model I use */
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": {
    // my own MCP server
    "files": {"type": "local", "command": ["files-mcp"]},
  },
  "plugin": ["my-plugin"],
}
"""


def _config_dir(home: Path) -> Path:
    return home / ".config" / "opencode"


def _user_config(home: Path, name: str, text: str) -> Path:
    """The user's config file ``name`` in ``home``, holding ``text``."""
    cfg = _config_dir(home) / name
    cfg.parent.mkdir(parents=True)
    cfg.write_text(text)
    return cfg


def _plugins(home: Path) -> Path:
    return _config_dir(home) / "plugins"


def _snapshot(folder: Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_install_writes_the_plugin_and_merges_the_mcp_server_keeping_comments(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = _user_config(isolated, "opencode.jsonc", JSONC)
    assert main(["install"]) == 0

    plugins = _plugins(isolated)
    shim = (plugins / "signet-sdk.js").read_text()
    assert MARKER in shim.splitlines()[0]
    assert shim == (Path(PLUGIN.shim_dir() or "") / "signet-sdk.js").read_text()
    assert "export function sendSync" in (plugins / "signet-sdk" / "transport.mjs").read_text()
    command = json.loads((plugins / "signet-sdk" / "signet-sdk.json").read_text())
    assert command["command"] == sdk_command()
    spec = json.loads((plugins / "signet-sdk" / "signet-opencode.json").read_text())
    assert spec["harness"] == "opencode"
    assert set(spec["events"]) == set(PLUGIN.events)
    assert spec["events"]["chat.message"]["hook"] == "chat.message"
    assert spec["events"]["chat.message"]["timeoutMs"] == 6000  # 5 s prompt budget + margin
    assert spec["events"]["session.end"]["hook"] == "held"

    entry = json.dumps(mcp_entry(), indent=2).replace("\n", "\n    ")
    expected = JSONC.replace(
        """    "files": {"type": "local", "command": ["files-mcp"]},
  },""",
        f"""    "files": {{"type": "local", "command": ["files-mcp"]}},
    "signet": {entry},
  }},""",
    )
    assert cfg.read_text() == expected
    assert (cfg.parent / "opencode.jsonc.signet-sdk.bak").read_text() == JSONC
    assert "mcp.signet" in capsys.readouterr().out

    # Idempotent: a second run changes no byte.
    before = _snapshot(_config_dir(isolated))
    assert main(["install"]) == 0
    assert _snapshot(_config_dir(isolated)) == before
    assert "already up to date" in capsys.readouterr().out

    # Uninstall gives back the user's file byte for byte and removes only ours.
    assert main(["uninstall"]) == 0
    assert cfg.read_text() == JSONC
    assert not (plugins / "signet-sdk.js").exists()
    assert not (plugins / "signet-sdk").exists()


def test_install_without_a_config_creates_one_and_uninstall_removes_it(isolated: Path) -> None:
    assert main(["install"]) == 0
    cfg = _config_dir(isolated) / "opencode.json"
    assert json.loads(cfg.read_text()) == {"mcp": {"signet": mcp_entry()}}
    assert main(["uninstall"]) == 0
    assert not cfg.exists()
    assert not (_plugins(isolated) / "signet-sdk.js").exists()


def test_a_signet_mcp_entry_of_someone_else_is_restored_on_uninstall(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Replaced, and said so (it used to go without a word); uninstall puts it back."""
    original = '{\n  "mcp": {\n    "signet": {"type": "remote", "url": "https://x"}\n  }\n}\n'
    cfg = _user_config(isolated, "opencode.json", original)
    assert main(["install"]) == 0
    assert json.loads(cfg.read_text())["mcp"]["signet"] == mcp_entry()
    plugins = _plugins(isolated)
    assert capsys.readouterr().out == (
        f"Signet OpenCode plugin installed into {plugins}\n"
        f"{cfg}: mcp.signet runs the memory tools (signet-sdk mcp)\n"
        f"{cfg}: replaced your own mcp.signet; signet-sdk uninstall opencode puts it back\n"
        "OpenCode loads plugins at start-up: restart running sessions.\n"
    )
    other = str(isolated / "other-venv" / "bin" / "python3")
    assert main(["install", "--python", other]) == 0  # our own older entry: nothing to say
    assert "replaced" not in capsys.readouterr().out
    assert main(["uninstall"]) == 0
    assert cfg.read_text() == original


def test_a_reinstall_with_another_interpreter_still_uninstalls_to_the_original(
    isolated: Path, tmp_path: Path
) -> None:
    original = '{\n  "theme": "dark"\n}\n'
    cfg = _user_config(isolated, "opencode.json", original)
    assert main(["install"]) == 0
    other = str(tmp_path / "other-venv" / "bin" / "python3")
    assert main(["install", "--python", other]) == 0
    assert json.loads(cfg.read_text())["mcp"]["signet"]["command"] == [
        other,
        "-m",
        "signet_sdk",
        "mcp",
    ]
    assert main(["uninstall"]) == 0
    assert cfg.read_text() == original


def test_an_entry_changed_by_the_user_is_left_on_uninstall(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install"]) == 0
    cfg = _config_dir(isolated) / "opencode.json"
    data = json.loads(cfg.read_text())
    data["mcp"]["signet"]["enabled"] = False
    cfg.write_text(json.dumps(data))
    assert main(["uninstall"]) == 0
    assert json.loads(cfg.read_text()) == data
    assert "changed since install" in capsys.readouterr().out


def test_dry_run_prints_the_diff_and_writes_nothing(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _user_config(isolated, "opencode.jsonc", JSONC)
    assert main(["install", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert '+    "signet": {' in out
    assert "signet-sdk.js" in out
    assert _snapshot(_config_dir(isolated)) == {"opencode.jsonc": JSONC.encode()}


def test_a_malformed_config_is_reported_and_left_untouched(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = _user_config(isolated, "opencode.json", '{"model": "x",, }')
    assert main(["install"]) == 1
    err = capsys.readouterr().err
    assert str(cfg) in err and "not valid JSONC" in err and "No file was changed" in err
    assert _snapshot(_config_dir(isolated)) == {"opencode.json": b'{"model": "x",, }'}


def test_a_plugin_file_that_is_not_ours_is_refused(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugins = _plugins(isolated)
    plugins.mkdir(parents=True)
    (plugins / "signet-sdk.js").write_text("export const Mine = async () => ({})\n")
    assert main(["install"]) == 1
    assert "without our marker" in capsys.readouterr().err
    assert (plugins / "signet-sdk.js").read_text() == "export const Mine = async () => ({})\n"
    assert main(["uninstall"]) == 0
    assert (plugins / "signet-sdk.js").exists()


def test_project_install_uses_the_projects_opencode_directory(tmp_path: Path) -> None:
    project = tmp_path / "atlas"
    project.mkdir()
    (project / "opencode.json").write_text('{"model": "fake/fake-model"}\n')
    assert main(["install", "--project", str(project)]) == 0
    assert MARKER in (project / ".opencode" / "plugins" / "signet-sdk.js").read_text()
    config = json.loads((project / "opencode.json").read_text())
    assert config == {"model": "fake/fake-model", "mcp": {"signet": mcp_entry()}}
    assert main(["uninstall", "--project", str(project)]) == 0
    assert (project / "opencode.json").read_text() == '{"model": "fake/fake-model"}\n'
    assert not (project / ".opencode" / "plugins" / "signet-sdk.js").exists()


def test_no_mcp_leaves_the_config_alone(isolated: Path) -> None:
    cfg = _user_config(isolated, "opencode.jsonc", JSONC)
    assert main(["install", "--no-mcp"]) == 0
    assert cfg.read_text() == JSONC
    assert MARKER in (_plugins(isolated) / "signet-sdk.js").read_text()
    assert not (cfg.parent / "opencode.jsonc.signet-sdk.bak").exists()
    assert main(["uninstall"]) == 0
    assert cfg.read_text() == JSONC
    assert not (_plugins(isolated) / "signet-sdk.js").exists()


def test_the_users_config_keeps_its_mode(isolated: Path) -> None:
    cfg = _user_config(isolated, "opencode.json", '{"theme": "dark"}\n')
    cfg.chmod(0o600)
    assert main(["install"]) == 0
    assert cfg.stat().st_mode & 0o777 == 0o600
    assert main(["uninstall"]) == 0
    assert cfg.stat().st_mode & 0o777 == 0o600


def test_a_dangling_link_is_left_dangling_again_by_uninstall(isolated: Path) -> None:
    # A dotfiles link made before its target.
    assert_dangling_link_kept(main, _config_dir(isolated) / "opencode.json")


def test_linked_and_crlf_files_are_kept_as_the_user_keeps_them(isolated: Path) -> None:
    cfg = _config_dir(isolated) / "opencode.jsonc"
    assert_link_kept(main, cfg, JSONC)
    cfg.unlink()
    assert_crlf_kept(main, cfg, JSONC)


def _failing_writes(monkeypatch: pytest.MonkeyPatch, failing: Path) -> list[Path]:
    """Writing ``failing`` raises, as a full disk would, until the list returned is emptied;
    every other write goes through."""
    from signet_sdk.installing import files

    real = files.replace_text

    def replace_text(path: Path, text: str, mode: int = 0o644) -> None:
        if path in fails:
            raise OSError(28, "No space left on device")
        real(path, text, mode)

    fails = [failing]
    monkeypatch.setattr(files, "replace_text", replace_text)
    return fails


def test_an_install_that_cannot_write_the_plugin_puts_the_config_back(
    isolated: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = _user_config(isolated, "opencode.jsonc", JSONC)
    shim = _plugins(isolated) / "signet-sdk.js"
    _failing_writes(monkeypatch, shim)
    capsys.readouterr()
    assert main(["install"]) == 1
    assert cfg.read_text() == JSONC
    assert sorted(p.name for p in cfg.parent.iterdir()) == ["opencode.jsonc", "plugins"]
    assert _snapshot(_plugins(isolated)) == {}
    bak = cfg.with_name("opencode.jsonc.signet-sdk.bak")
    assert capsys.readouterr().err == (
        f"signet-sdk install opencode: cannot write {shim}: [Errno 28] No space left on device\n"
        + "".join(
            f"signet-sdk install opencode: {p} put back as it was\n"
            for p in [
                *(
                    _plugins(isolated) / "signet-sdk" / n
                    # last written, first put back
                    for n in (
                        "install.json",
                        "signet-opencode.json",
                        "signet-sdk.json",
                        "transport.mjs",
                    )
                ),
                cfg,
                bak,
            ]
        )
    )


def test_an_uninstall_that_cannot_write_the_config_keeps_the_plugin_and_its_record(
    isolated: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = _user_config(isolated, "opencode.jsonc", JSONC)
    assert main(["install"]) == 0
    installed, plugin = cfg.read_text(), _snapshot(_plugins(isolated))
    fails = _failing_writes(monkeypatch, cfg)
    capsys.readouterr()
    assert main(["uninstall"]) == 1
    assert cfg.read_text() == installed and _snapshot(_plugins(isolated)) == plugin
    err = capsys.readouterr().err
    assert err.startswith(f"signet-sdk uninstall opencode: cannot write {cfg}: [Errno 28]")
    fails.clear()  # the disk has room again
    assert main(["uninstall"]) == 0
    assert cfg.read_text() == JSONC
