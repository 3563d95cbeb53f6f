"""``signet-sdk install codex`` / ``uninstall``: the bytes of hooks.json and config.toml."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

import pytest
from signet_adapter_codex._trust import event_label, trusted_hash
from signet_adapter_codex.install import hook_command, hook_timeouts
from signet_adapter_codex.install import main as installer
from signet_e2e.installer_checks import assert_given_back, assert_refused

USER_TOML = """\
# my Codex settings
model = "gpt-5.5"   # the one I like

[features]
web_search = true

[mcp_servers.docs]
command = "docs-mcp"
args = ["--fast"]
"""

USER_HOOKS = """{
    "description": "mine",
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}
}
"""

EVENTS = ["SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact",
          "SubagentStart", "SessionEnd"]  # fmt: skip


def test_trusted_hash_is_codex_normalized_identity() -> None:
    """sha256 over sorted-key compact JSON of {event_name, hooks:[normalized handler]}."""
    handler = {"type": "command", "command": "python3 /tmp/user.py"}
    identity = '{"event_name":"session_start","hooks":[{"async":false,"command":"python3 /tmp/user.py","timeout":600,"type":"command"}]}'  # noqa: E501
    expected = "sha256:" + hashlib.sha256(identity.encode()).hexdigest()
    assert trusted_hash("SessionStart", handler) == expected
    assert trusted_hash("SessionStart", {**handler, "timeout": 600}) == expected
    assert trusted_hash("SessionStart", {**handler, "timeout": 0}) != expected  # max(1)
    # Matchers count for SessionStart, not for UserPromptSubmit or Stop.
    assert trusted_hash("SessionStart", handler, "startup") != expected
    assert trusted_hash("Stop", handler, "x") == trusted_hash("Stop", handler)
    assert event_label("UserPromptSubmit") == "user_prompt_submit"


def test_install_into_user_files_keeps_them_and_trusts_ours(isolated: Path) -> None:
    (isolated / "config.toml").write_text(USER_TOML)
    (isolated / "hooks.json").write_text(USER_HOOKS)

    assert installer(["install"]) == 0

    hooks = json.loads((isolated / "hooks.json").read_text())
    assert hooks["description"] == "mine"
    assert hooks["hooks"]["Stop"][0] == {
        "hooks": [{"type": "command", "command": "notify-send done"}]
    }
    command = hook_command()
    timeouts = hook_timeouts({})
    assert timeouts["SessionEnd"] == 3 and "SubagentStop" not in timeouts
    for event in EVENTS:
        ours = hooks["hooks"][event][-1]
        assert ours == {"hooks": [{"type": "command", "command": f"{command} {event}",
                                   "timeout": timeouts[event]}]}  # fmt: skip
    text = (isolated / "config.toml").read_text()
    assert text.startswith(USER_TOML.split("[features]")[0])  # comments and order kept
    assert "web_search = true\nhooks = true # signet-sdk install codex\n" in text
    assert '[mcp_servers.docs]\ncommand = "docs-mcp"\nargs = ["--fast"]\n' in text
    source = isolated / "hooks.json"
    for event in EVENTS:
        group = 1 if event == "Stop" else 0
        handler = hooks["hooks"][event][group]["hooks"][0]
        key = f'[hooks.state."{source}:{event_label(event)}:{group}:0"]'
        assert f'{key}\ntrusted_hash = "{trusted_hash(event, handler)}"\n' in text
    assert "notify-send" not in text  # the user's own hook is not trusted by us


def test_install_is_idempotent_and_uninstall_restores_the_bytes(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated / "config.toml").write_text(USER_TOML)
    (isolated / "hooks.json").write_text(USER_HOOKS)
    assert installer(["install"]) == 0
    once = ((isolated / "config.toml").read_bytes(), (isolated / "hooks.json").read_bytes())
    capsys.readouterr()
    assert installer(["install"]) == 0
    assert capsys.readouterr().out.count("already up to date") == 2
    assert ((isolated / "config.toml").read_bytes(), (isolated / "hooks.json").read_bytes()) == once

    assert installer(["uninstall"]) == 0
    assert (isolated / "config.toml").read_text() == USER_TOML
    assert (isolated / "hooks.json").read_text() == USER_HOOKS
    assert sorted(p.name for p in isolated.iterdir()) == ["config.toml", "hooks.json", "sessions"]


@pytest.mark.parametrize(
    "user_hooks",
    ['{"hooks": {}}\n', '{\n    "hooks": {"Stop": []}\n}\n', '{"description": "x", "hooks": {}}\n'],
)
def test_a_users_empty_hooks_come_back_byte_for_byte(isolated: Path, user_hooks: str) -> None:
    # Our removal takes away the lists it emptied: the user's own empty ones must come back.
    assert_given_back(installer, isolated / "hooks.json", user_hooks)
    assert sorted(p.name for p in isolated.iterdir()) == ["hooks.json", "sessions"]


def test_uninstall_removes_files_it_created(isolated: Path) -> None:
    assert installer(["install"]) == 0
    assert (isolated / "config.toml").exists() and (isolated / "hooks.json").exists()
    assert installer(["uninstall"]) == 0
    assert sorted(p.name for p in isolated.iterdir()) == ["sessions"]


def test_uninstall_keeps_later_user_edits(isolated: Path) -> None:
    (isolated / "config.toml").write_text(USER_TOML)
    assert installer(["install"]) == 0
    path = isolated / "config.toml"
    path.write_text(path.read_text().replace('model = "gpt-5.5"', 'model = "o4"'))
    assert installer(["uninstall"]) == 0
    assert path.read_text() == USER_TOML.replace('model = "gpt-5.5"', 'model = "o4"')


def test_an_existing_hooks_feature_is_left_alone(isolated: Path) -> None:
    text = "[features]\nhooks = true\n"
    (isolated / "config.toml").write_text(text)
    assert installer(["install"]) == 0
    assert (isolated / "config.toml").read_text().startswith(text + "\n[hooks.state.")
    assert installer(["uninstall"]) == 0
    assert (isolated / "config.toml").read_text() == text


def _our_trust(isolated: Path) -> list[tuple[str, str]]:
    """(``hooks.state`` key, trusted hash) of each handler install wrote, in file order."""
    source = isolated / "hooks.json"
    hooks = json.loads(source.read_text())["hooks"]
    return [
        (f"{source}:{event_label(event)}:0:0", trusted_hash(event, hooks[event][0]["hooks"][0]))
        for event in EVENTS
    ]


def _trust_tables(isolated: Path) -> str:
    """The ``[hooks.state."…"]`` tables install appends to a config.toml."""
    return "".join(
        f'\n[hooks.state."{k}"]\ntrusted_hash = "{h}"\n' for k, h in _our_trust(isolated)
    )


NOTE = " # signet-sdk install codex"
#: A [features] table continued past another table (tomlkit joins the pieces in a proxy).
APART = 'model="o3"\n[features]\nweb_search=true\n[profiles.x]\nmodel="a"\n[features.sub]\nx=1\n'


@pytest.mark.parametrize(
    ("before", "installed"),
    [
        (
            "features.web_search = true\n",
            f"features.web_search = true\nfeatures.hooks = true{NOTE}\n",
        ),
        (APART, APART.replace("web_search=true\n", f"web_search=true\nhooks = true{NOTE}\n")),
        # The user's own hooks = true (no comment of ours) is left alone, and stays.
        ("features.web_search = true\nfeatures.hooks = true\n", None),
        (APART.replace("web_search", "hooks"), None),
    ],
    ids=["dotted", "apart", "dotted-users-own", "apart-users-own"],
)
def test_a_features_table_written_in_pieces(
    isolated: Path, before: str, installed: str | None
) -> None:
    """Dotted keys or a table split by others: uninstall used to crash (no ``item()``)."""
    config = isolated / "config.toml"
    config.write_text(before)
    assert installer(["install"]) == 0
    assert config.read_text() == (installed or before) + _trust_tables(isolated)
    assert tomllib.loads(config.read_text())["features"]["hooks"] is True
    assert installer(["uninstall"]) == 0
    assert config.read_text() == before
    # Edited since: the kept original no longer applies, only our lines go.
    assert installer(["install"]) == 0
    config.write_text("mine = 1\n" + config.read_text())
    assert installer(["uninstall"]) == 0
    assert config.read_text() == "mine = 1\n" + before


@pytest.mark.parametrize(
    ("before", "installed"),
    [
        ("features = { web_search = true }\n", "features = { web_search = true, hooks = true}\n"),
        ("features = {}\n", "features = {hooks = true}\n"),
        # The user's own: the kept original had it, so it stays.
        ("features = { web_search = true, hooks = true }\n", None),
    ],
    ids=["one-key", "empty", "users-own"],
)
def test_an_inline_features_table(isolated: Path, before: str, installed: str | None) -> None:
    """No comment fits in an inline table: the value is ours when the kept original lacked it."""
    config, original = isolated / "config.toml", isolated / "config.toml.signet-sdk-orig"
    config.write_text(before)
    assert installer(["install"]) == 0
    assert original.read_text() == before
    assert config.read_text() == (installed or before) + _trust_tables(isolated)
    assert tomllib.loads(config.read_text())["features"]["hooks"] is True
    assert installer(["uninstall"]) == 0
    assert config.read_text() == before and not original.exists()
    # Edited since: the kept original no longer gives back the bytes, yet still tells.
    assert installer(["install"]) == 0
    config.write_text("mine = 1\n" + config.read_text())
    assert installer(["uninstall"]) == 0
    assert config.read_text() == "mine = 1\n" + before
    # No original kept: nothing tells whose the value is, so it stays.
    config.write_text(before)
    assert installer(["install"]) == 0
    original.unlink()
    assert installer(["uninstall"]) == 0
    assert config.read_text() == (installed or before)


def test_trust_entries_written_in_pieces_are_removed(isolated: Path) -> None:
    """Ours rewritten as a dotted key apart from the rest: uninstall used to crash."""
    config = isolated / "config.toml"
    before = '[hooks.state."mine"]\ntrusted_hash = "x"\n\n[other]\nz = 1\n'
    mine = '[hooks.state."mine"]\ntrusted_hash = "x"\n'
    for edit in ("", "mine = 1\n"):  # then edited since: only our entries go
        config.write_text(before)
        assert installer(["install"]) == 0
        trust = _trust_tables(isolated)
        assert (
            config.read_text()
            == mine + trust + f"[other]\nz = 1\n\n[features]\nhooks = true{NOTE}\n"
        )
        (key, hashed), *_ = _our_trust(isolated)
        first = f'\n[hooks.state."{key}"]\ntrusted_hash = "{hashed}"\n'
        dotted = f'hooks.state."{key}".trusted_hash = "{hashed}"\n'
        config.write_text(edit + dotted + config.read_text().replace(first, ""))
        assert installer(["uninstall"]) == 0
        assert config.read_text() == edit + before


def test_an_inline_hooks_table_gets_inline_entries(isolated: Path) -> None:
    """A table cannot go into an inline one: install used to crash (ValueError)."""
    config = isolated / "config.toml"
    before = "[hooks]\nstate = {}\n"
    config.write_text(before)
    assert installer(["install"]) == 0
    entries = ",".join(f'"{k}" = {{trusted_hash = "{h}"}}' for k, h in _our_trust(isolated))
    installed = f"[hooks]\nstate = {{{entries}}}\n\n[features]\nhooks = true{NOTE}\n"
    assert config.read_text() == installed
    assert installer(["uninstall"]) == 0
    assert config.read_text() == before


def test_project_scope_and_dry_run(
    isolated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    assert installer(["install", "--project", str(project), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"+++ {project / '.codex' / 'hooks.json'} (after install)" in out
    assert not (project / ".codex").exists() and not (isolated / "config.toml").exists()
    assert installer(["install", "--project", str(project)]) == 0
    source = project / ".codex" / "hooks.json"
    assert source.exists()
    assert f'[hooks.state."{source}:session_start:0:0"]' in (isolated / "config.toml").read_text()


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("hooks.json", "{not json", "invalid JSON at line 1"),
        ("hooks.json", '{"hooks": []}', "'hooks' must be an object"),
        ("hooks.json", '{"hooks": null}', "'hooks' must be an object, got null"),
        ("hooks.json", '{"hooks": {"Stop": {}}}', "hooks.Stop must be a list"),
        ("config.toml", "model = ", "invalid TOML"),
        ("config.toml", "features = 3\n", "'features' must be a table"),
        # tomlkit would write our entries under [state."…"], not [hooks.state."…"]
        pytest.param(
            "config.toml",
            '[hooks]\nstate.mine.trusted_hash = "x"\n\n[other]\nz = 1\n',
            "cannot edit its 'features' or 'hooks' tables safely",
            id="config.toml-misedited-layout",
        ),
    ],
)
def test_bad_files_are_named_and_left_untouched(
    isolated: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, problem: str
) -> None:
    assert_refused(installer, isolated / name, text, problem, capsys)
    assert sorted(p.name for p in isolated.iterdir()) == [name, "sessions"]


def test_a_users_files_keep_their_mode_and_new_ones_are_private(isolated: Path) -> None:
    import os

    config, hooks = isolated / "config.toml", isolated / "hooks.json"
    config.write_text(USER_TOML)
    os.chmod(config, 0o664)  # group-writable on purpose; the umask would make it 0644
    old = os.umask(0o022)
    try:
        assert installer(["install"]) == 0
    finally:
        os.umask(old)
    assert config.stat().st_mode & 0o777 == 0o664
    assert hooks.stat().st_mode & 0o777 == 0o600


MINE = 'approval_policy = "never"  # mine\n'


def _moved(config: Path, verb: str, where: str) -> str:
    return (
        f"signet-sdk {verb} codex: {config}: moved your 'approval_policy' out of Signet's "
        f"[hooks.state] table to {where}, where it is without Signet's tables\n"
    )


@pytest.mark.parametrize(
    ("before", "where"),
    [('model = "o3"\n', "the top level"), ("", "the top level"), (USER_TOML, "[mcp_servers.docs]")],
    ids=["root-keys", "no-file", "ends-in-a-table"],
)
def test_a_key_appended_after_install_is_moved_back_not_deleted(
    isolated: Path, capsys: pytest.CaptureFixture[str], before: str, where: str
) -> None:
    """``echo key >> config.toml`` lands in our last table; uninstall used to delete it."""
    config = isolated / "config.toml"
    if before:
        config.write_text(before)
    assert installer(["install"]) == 0
    with config.open("a") as file:
        file.write(MINE)
    capsys.readouterr()
    assert installer(["uninstall"]) == 0
    assert config.read_text() == before + MINE
    assert "approval_policy" in str(tomllib.loads(config.read_text()))
    assert capsys.readouterr().err == _moved(config, "uninstall", where)


def test_a_key_that_cannot_move_stays_in_place_and_is_named(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The top level has the key already: it stays in our table, which loses only our hash."""
    config = isolated / "config.toml"
    config.write_text('model = "o3"\n')
    assert installer(["install"]) == 0
    with config.open("a") as file:
        file.write('model = "o4"\n')
    capsys.readouterr()
    assert installer(["uninstall"]) == 0
    key = f"{isolated / 'hooks.json'}:session_end:0:0"
    assert config.read_text() == f'model = "o3"\n\n[hooks.state."{key}"]\nmodel = "o4"\n'
    assert capsys.readouterr().err == (
        f"signet-sdk uninstall codex: {config}: kept your 'model' where it is, in "
        f'[hooks.state."{key}"] (moving it out of Signet\'s table is not safe)\n'
    )


def test_a_reinstall_that_drops_an_entry_of_ours_moves_the_users_key(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second handler of ours (trusted) goes on reinstall; the key after its table stays."""
    config, hooks = isolated / "config.toml", isolated / "hooks.json"
    config.write_text('model = "o3"\n')
    assert installer(["install"]) == 0
    installed = config.read_text()
    data = json.loads(hooks.read_text())
    data["hooks"]["SessionEnd"].append(data["hooks"]["SessionEnd"][0])
    hooks.write_text(json.dumps(data))
    (key, hashed), *_ = _our_trust(isolated)[::-1]
    key = key.replace(":session_end:0:0", ":session_end:1:0")
    with config.open("a") as file:
        file.write(f'\n[hooks.state."{key}"]\ntrusted_hash = "{hashed}"\n{MINE}')
    capsys.readouterr()
    assert installer(["install"]) == 0
    assert capsys.readouterr().err == _moved(config, "install", "the top level")
    assert config.read_text() == installed.replace('model = "o3"\n', 'model = "o3"\n' + MINE)
    assert installer(["uninstall"]) == 0
    assert config.read_text() == 'model = "o3"\n' + MINE
