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
