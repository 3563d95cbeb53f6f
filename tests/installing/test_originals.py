"""The kept original beside a config file: recorded once, restored when nothing else changed."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from signet_sdk.installing.cli import Change
from signet_sdk.installing.originals import (
    kept,
    original_path,
    original_record,
    restored,
    write_keeping,
)


def _normal(text: str | None) -> object:
    return json.loads(text) if text and text.strip() else {}


def test_an_existing_file_is_kept_once_and_its_bytes_come_back_when_the_rest_is_unchanged(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.json"
    path.write_text('{ "user": 1 }\n')
    record = original_record(path, path.read_text())
    write_keeping(Change(path, path.read_text(), '{"user": 1, "ours": 2}\n'), "install", record)
    write_keeping(Change(path, path.read_text(), '{"user": 1, "ours": 3}\n'), "install", "later")
    assert kept(path) == (True, '{ "user": 1 }\n')  # the first install's, not the second's
    assert stat.S_IMODE(original_path(path).stat().st_mode) == 0o600
    assert restored(path, '{"user": 1}\n', _normal) == '{ "user": 1 }\n'
    assert restored(path, '{"user": 5}\n', _normal) == '{"user": 5}\n'  # the user's edit stays
    write_keeping(Change(path, path.read_text(), '{ "user": 1 }\n'), "uninstall", record)
    assert path.read_text() == '{ "user": 1 }\n'
    assert not original_path(path).exists()


def test_a_file_that_was_absent_goes_on_uninstall_with_the_empty_folders_made_for_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "a" / "b" / "mcp.json"
    record = original_record(path, None)
    assert record.splitlines()[1:] == [str(tmp_path / "a" / "b"), str(tmp_path / "a")]
    assert original_record(path, None, folders=False) == "\x00absent\n"
    write_keeping(Change(path, None, "{}\n"), "install", record)
    assert kept(path) == (True, None)
    assert restored(path, "{}\n", _normal) is None
    write_keeping(Change(path, "{}\n", None), "uninstall", record)
    assert sorted(tmp_path.iterdir()) == []


def test_a_folder_the_user_put_something_in_stays(tmp_path: Path) -> None:
    path = tmp_path / "a" / "hooks.json"
    record = original_record(path, None)
    write_keeping(Change(path, None, "{}\n"), "install", record)
    (tmp_path / "a" / "mine.txt").write_text("x")
    write_keeping(Change(path, "{}\n", None), "uninstall", record)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["mine.txt"]


def test_without_a_kept_original_uninstall_leaves_what_it_computed(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    assert kept(path) == (False, None)
    assert restored(path, "{}\n", _normal) == "{}\n"
