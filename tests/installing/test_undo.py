"""The undo record beside a settings file: exact bytes back when untouched, only ours otherwise."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from signet_sdk.installing.files import InstallError
from signet_sdk.installing.undo import RECORD, read_record, uninstall_file, write_record

BEFORE = '{\n  // mine\n  "theme": "dark"\n}\n'
AFTER = '{\n  // mine\n  "theme": "dark",\n  "ours": 1\n}\n'


def _unmerge(text: str) -> tuple[str, list[str]]:
    return text.replace(',\n  "ours": 1', ""), ["a note"]


def test_the_record_is_private_and_another_installers_is_not_ours(tmp_path: Path) -> None:
    path = tmp_path / RECORD
    write_record(path, {"managedBy": "signet-sdk install x", "before": None})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_record(path, "signet-sdk install x") == {
        "managedBy": "signet-sdk install x",
        "before": None,
    }
    assert read_record(path, "signet-sdk install y") is None
    assert read_record(tmp_path / "none.json") is None
    path.write_text("{nope")
    with pytest.raises(InstallError, match="not valid JSON; remove it and run again"):
        read_record(path)


def test_an_untouched_file_gets_its_exact_bytes_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(AFTER)
    record = {"before": BEFORE, "after": AFTER, "existed": True}
    write_record(tmp_path / RECORD, record)
    assert uninstall_file("x", settings, record, _unmerge, dry=True) == 0
    assert settings.read_text() == AFTER and "(after uninstall)" in capsys.readouterr().out
    assert uninstall_file("x", settings, record, _unmerge, dry=False) == 0
    assert settings.read_text() == BEFORE
    assert not (tmp_path / RECORD).exists()
    assert capsys.readouterr().err == ""  # the record answered: no unmerge, no notes


def test_an_edited_file_loses_only_ours_and_a_file_we_made_goes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(AFTER.replace("dark", "light"))
    record = {"before": BEFORE, "after": AFTER}
    uninstall_file("x", settings, record, _unmerge, dry=False)
    assert settings.read_text() == BEFORE.replace("dark", "light")
    assert "signet-sdk uninstall x: a note" in capsys.readouterr().err
    settings.write_text(AFTER)
    uninstall_file(
        "x", settings, {"before": None, "after": AFTER, "existed": False}, _unmerge, False
    )
    assert not settings.exists()
    uninstall_file("x", settings, None, _unmerge, dry=False)
    assert "does not exist, nothing changed" in capsys.readouterr().out


@pytest.mark.parametrize("blank", ["", "\n", "  \n\t\n"])
def test_a_blank_file_holds_nothing_of_ours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], blank: str
) -> None:
    # An empty settings file is one an install accepts (as no settings), so
    # uninstall must too: nothing to parse, nothing to remove, exit 0.
    settings = tmp_path / "settings.json"
    settings.write_text(blank)

    def unparseable(text: str) -> tuple[str, list[str]]:
        raise InstallError(f"{settings}: not valid JSON")

    assert uninstall_file("x", settings, None, unparseable, dry=False) == 0
    assert settings.read_text() == blank
    assert capsys.readouterr().out == f"{settings}: nothing of ours found, nothing changed\n"
