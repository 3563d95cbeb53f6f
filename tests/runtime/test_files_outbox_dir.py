"""``outbox_dir``: the one function that names and checks the outbox folder.

Its writers create and check it; ``check_only`` applies the same checks to
what is there, creating and changing nothing, for a command that only
reports on the outbox (``signet-sdk outbox status``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from signet_sdk.runtime.files import outbox_dir


def _env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path)}


def test_check_only_creates_nothing(tmp_path: Path) -> None:
    env = _env(tmp_path)
    root = outbox_dir(env, check_only=True)
    assert root == str(tmp_path / "state" / "signet-sdk" / "outbox")
    assert not (tmp_path / "state").exists()
    (tmp_path / "state" / "signet-sdk").mkdir(parents=True)
    assert outbox_dir(env, check_only=True) == root
    assert not os.path.lexists(root)


def test_check_only_finds_what_a_writer_finds(tmp_path: Path) -> None:
    """A file, or a link, where a folder should be: the writer's message, and nothing changed."""
    env = _env(tmp_path)
    state = tmp_path / "state" / "signet-sdk"
    state.parent.mkdir()
    state.write_text("x")
    with pytest.raises(OSError) as checked:
        outbox_dir(env, check_only=True)
    with pytest.raises(OSError) as written:
        outbox_dir(env)
    message = f"{state} is not a directory (a symlink or a file is in the way)"
    assert str(checked.value) == str(written.value) == message
    state.unlink()
    state.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (state / "outbox").symlink_to(elsewhere)
    with pytest.raises(OSError, match="outbox is not a directory"):
        outbox_dir(env, check_only=True)
    with pytest.raises(OSError, match="outbox is not a directory"):
        outbox_dir(env)


def test_check_only_changes_no_mode(tmp_path: Path) -> None:
    env = _env(tmp_path)
    state = tmp_path / "state" / "signet-sdk"
    (state / "outbox").mkdir(parents=True)
    os.chmod(state, 0o755)
    outbox_dir(env, check_only=True)
    assert stat.S_IMODE(state.stat().st_mode) == 0o755  # a report changes nothing
    outbox_dir(env)
    assert stat.S_IMODE(state.stat().st_mode) == 0o700  # a writer narrows it


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_check_only_refuses_a_folder_of_another_user(tmp_path: Path) -> None:
    env = _env(tmp_path)
    state = tmp_path / "state" / "signet-sdk"
    (state / "outbox").mkdir(parents=True, mode=0o700)
    os.chown(state / "outbox", 4321, 4321)
    with pytest.raises(OSError, match="outbox belongs to another user"):
        outbox_dir(env, check_only=True)
