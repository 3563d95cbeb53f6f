"""The file helpers every installer shares: read or refuse, replace atomically, diff."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from signet_sdk.installing.files import InstallError, read_text, replace_text, text_diff


def test_read_text_is_none_for_a_missing_file_and_refuses_an_unreadable_one(
    tmp_path: Path,
) -> None:
    assert read_text(tmp_path / "absent.json") is None
    (tmp_path / "bad.json").write_bytes(b"\xff\xfe{")
    with pytest.raises(InstallError, match=r"bad\.json: cannot read"):
        read_text(tmp_path / "bad.json")


def test_replace_text_keeps_an_existing_files_mode_and_gives_a_new_one_the_mode_asked(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.json"
    config.write_text("{}\n")
    config.chmod(0o600)
    replace_text(config, '{"a": 1}\n')
    assert config.read_text() == '{"a": 1}\n'
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    old = os.umask(0o077)
    try:
        replace_text(tmp_path / "new" / "plugin.js", "x\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new" / "plugin.js").stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json", "new"]  # no temp left


def test_text_diff_names_both_sides() -> None:
    path = Path("/etc/x.json")
    assert text_diff(path, None, "a\n").startswith("--- /dev/null\n+++ /etc/x.json\n")
    assert text_diff(path, "a\n", "b\n", "install").startswith(
        "--- /etc/x.json\n+++ /etc/x.json (after install)\n"
    )
    assert "+++ /dev/null" in text_diff(path, "a\n", None, "uninstall")


def test_parse_json_names_the_line_to_fix_and_reads_no_file_as_empty(tmp_path: Path) -> None:
    from signet_sdk.installing.files import parse_json

    path = tmp_path / "hooks.json"
    assert parse_json(path, None) == {} and parse_json(path, " \n") == {}
    assert parse_json(path, '{"a": [1]}') == {"a": [1]}
    with pytest.raises(InstallError, match=r"hooks\.json: invalid JSON at line 2 column 1"):
        parse_json(path, '{"a":\n}')

    class Refused(Exception):
        pass

    with pytest.raises(Refused):
        parse_json(path, "{", Refused)
    deep = '{"a": ' + "[" * 5000 + "]" * 5000 + "}"
    with pytest.raises(Refused) as caught:
        parse_json(path, deep, Refused)
    assert str(caught.value) == f"{path}: nested too deeply to edit; left untouched"


def test_remove_file_takes_a_links_target_and_keeps_the_link(tmp_path: Path) -> None:
    from signet_sdk.installing.files import remove_file

    target = tmp_path / "dotfiles" / "settings.json"
    target.parent.mkdir()
    target.write_text("{}")
    link = tmp_path / "settings.json"
    link.symlink_to(target)
    remove_file(link)
    assert link.is_symlink() and link.readlink() == target and not target.exists()
    remove_file(link)  # nothing there any more: not an error
    plain = tmp_path / "plain.json"
    plain.write_text("{}")
    remove_file(plain)
    assert not plain.exists()


def test_replace_text_writes_through_a_link_and_keeps_it(tmp_path: Path) -> None:
    # A config kept in a dotfiles repository and linked into place.
    target = tmp_path / "dotfiles" / "settings.json"
    target.parent.mkdir()
    target.write_text('{"theme": "x"}\n', encoding="utf-8")
    target.chmod(0o600)
    link = tmp_path / "home" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(target, link.parent))
    replace_text(link, '{"theme": "y"}\n')
    assert link.is_symlink()
    assert os.readlink(link) == os.path.relpath(target, link.parent)
    assert target.read_bytes() == b'{"theme": "y"}\n'
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in target.parent.iterdir()) == ["settings.json"]


@pytest.mark.parametrize(
    ("on_disk", "written", "expected"),
    [
        # Every line end CRLF: the new text gets CRLF too (read_text gave it "\n").
        (b"{\r\n}\r\n", '{\n  "a": 1\n}\n', b'{\r\n  "a": 1\r\n}\r\n'),
        # Mixed, or plain "\n", or no line end at all: written as given.
        (b"{\r\n}\n", '{\n  "a": 1\n}\n', b'{\n  "a": 1\n}\n'),
        (b"{\n}\n", '{\n  "a": 1\n}\n', b'{\n  "a": 1\n}\n'),
        (b"{}", '{"a": 1}\n', b'{"a": 1}\n'),
    ],
)
def test_replace_text_keeps_a_crlf_files_line_ends(
    tmp_path: Path, on_disk: bytes, written: str, expected: bytes
) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(on_disk)
    replace_text(path, written)
    assert path.read_bytes() == expected


def test_a_crlf_file_read_then_written_back_is_the_same_bytes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    original = b'model = "o3"\r\n\r\n[features]\r\nweb_search = true\r\n'
    path.write_bytes(original)
    text = read_text(path)
    assert text is not None and "\r" not in text
    replace_text(path, text)
    assert path.read_bytes() == original
