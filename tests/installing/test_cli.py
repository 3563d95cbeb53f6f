"""Writing an installer's planned changes: all of them, or none left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from signet_sdk.installing.cli import Change, apply


def test_a_write_that_fails_puts_back_the_files_written_before_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings, made, servers = tmp_path / "settings.json", tmp_path / "hooks.json", tmp_path / "mcp"
    settings.write_text('{"theme": "dark"}\n')
    changes = [
        Change(settings, '{"theme": "dark"}\n', '{"theme": "dark", "hooks": {}}\n'),
        Change(made, None, '{"hooks": {}}\n'),
        Change(servers, None, '{"mcpServers": {}}\n'),
    ]

    def write(change: Change) -> str:
        if change.path == servers:
            raise PermissionError(13, "Permission denied")
        assert change.after is not None
        change.path.write_text(change.after)
        return f"wrote {change.path}\n"

    assert apply("h", "install", changes, False, write) is None
    assert settings.read_text() == '{"theme": "dark"}\n'
    assert not made.exists()
    out, err = capsys.readouterr()
    assert out == f"wrote {settings}\nwrote {made}\n"
    assert err == (
        f"signet-sdk install h: cannot write {servers}: [Errno 13] Permission denied\n"
        f"signet-sdk install h: {made} put back as it was\n"
        f"signet-sdk install h: {settings} put back as it was\n"
    )


def test_every_write_done_is_a_run_that_wrote(tmp_path: Path) -> None:
    path = tmp_path / "a"
    change = Change(path, None, "x\n")
    assert apply("h", "install", [change], False, lambda c: path.write_text("x\n") and "") is True
    assert apply("h", "install", [Change(path, "x\n", "x\n")], False, lambda c: "") is False
