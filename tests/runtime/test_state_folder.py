"""A hook's state folder: one claim per key across processes, whole replaces, old files swept."""

from __future__ import annotations

import os
import stat
import time
from multiprocessing import get_context
from pathlib import Path

from signet_sdk.plugin import StateFolder


def _env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path)}


def _claim_in_a_process(env: dict[str, str]) -> bool:
    return StateFolder(env, "h", "claims", keep_days=1).claim("s", "k")


def test_of_many_processes_exactly_one_makes_a_claim(tmp_path: Path) -> None:
    env = _env(tmp_path)
    with get_context("spawn").Pool(4) as pool:
        won = pool.map(_claim_in_a_process, [env] * 8)
    assert won.count(True) == 1
    folder = StateFolder(env, "h", "claims", keep_days=1)
    assert folder.claimed("s", "k") and not folder.claimed("s", "other")
    for level in (tmp_path / "state" / "signet-sdk", Path(folder.path).parent, Path(folder.path)):
        assert stat.S_IMODE(level.stat().st_mode) == 0o700


def test_a_claim_that_cannot_be_made_lets_the_caller_go_on(tmp_path: Path) -> None:
    env = _env(tmp_path)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "signet-sdk").write_text("a file in the way")
    folder = StateFolder(env, "h", keep_days=1)
    assert folder.claim("s", "k") and folder.claim("s", "k")  # a duplicate beats a loss


def test_names_cannot_climb_out_of_the_folder() -> None:
    assert StateFolder.name("../../etc", "a/b") == ".._.._etc--a_b"
    assert len(StateFolder.name("x" * 500)) == 96


def test_kept_files_are_private_replaced_whole_and_not_rewritten_unchanged(
    tmp_path: Path,
) -> None:
    folder = StateFolder(_env(tmp_path), "h", "transcripts", keep_days=30)
    path = folder.keep("session-1", b'{"a": 1}\n')
    assert path is not None and Path(path).read_bytes() == b'{"a": 1}\n'
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    before = os.stat(path).st_ino
    assert folder.keep("session-1", b'{"a": 1}\n') == path
    assert os.stat(path).st_ino == before  # unchanged: not written again
    assert folder.keep("session-1", b'{"a": 1}\n{"b": 2}\n') == path
    assert os.stat(path).st_ino != before  # a new file renamed over the old one
    assert folder.read("session-1.jsonl", 8) == b'{"a": 1}'
    assert folder.keep("../escape", b"x") is None and folder.keep(".hidden", b"x") is None
    assert folder.keep("s", b"") is None
    assert sorted(os.listdir(folder.path)) == ["session-1.jsonl"]  # no temporary left


def test_what_is_older_than_the_folder_keeps_is_swept_when_a_new_file_comes(
    tmp_path: Path,
) -> None:
    folder = StateFolder(_env(tmp_path), "h", "claims", keep_days=30)
    assert folder.claim("old", "k")
    old = os.path.join(folder.path, StateFolder.name("old", "k"))
    month_ago = time.time() - 31 * 24 * 3600
    os.utime(old, (month_ago, month_ago))
    assert folder.claim("new", "k")
    assert not os.path.exists(old) and folder.claimed("new", "k")
    assert folder.read("missing") is None


def test_an_id_fits_as_a_name_only_without_separators_or_a_leading_dot() -> None:
    assert StateFolder.fits("5f0c-session")
    for bad in ("", "a/b", "..", ".hidden", "a\x00b"):
        assert not StateFolder.fits(bad), bad
