"""The round trip every settings-file installer must survive, for the adapters' tests.

An installer that merges into a user's own settings file must keep the
user's text and file mode, change nothing when run again (and say so), and
on uninstall give the file back byte for byte. :func:`install_over` starts
the round trip, :func:`assert_round_trip` finishes it; what the installed
file must hold in between is the harness's own test. A file it cannot merge
safely it must refuse, name, and leave as it was: :func:`assert_refused`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

__all__ = ["assert_refused", "assert_round_trip", "install_over"]

#: An installer's entry point: ``["install" | "uninstall", *args]`` to an exit code.
Installer = Callable[[list[str]], int]


def install_over(main: Installer, path: Path, user_text: str) -> str:
    """The user's ``user_text`` at ``path`` (mode 0600), then an install: the file's new text."""
    path.write_text(user_text)
    path.chmod(0o600)
    assert main(["install"]) == 0
    return path.read_text()


def assert_round_trip(
    main: Installer,
    path: Path,
    user_text: str,
    installed: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``path`` kept its mode; a second install leaves ``installed`` as it is and says the file
    is up to date; uninstall gives back ``user_text`` byte for byte."""
    assert path.stat().st_mode & 0o777 == 0o600
    capsys.readouterr()
    assert main(["install"]) == 0
    assert path.read_text() == installed
    assert capsys.readouterr().out == f"{path}: already up to date, nothing changed\n"
    assert main(["uninstall"]) == 0
    assert path.read_text() == user_text


def assert_refused(
    main: Installer,
    path: Path,
    text: str,
    problem: str,
    capsys: pytest.CaptureFixture[str],
    verb: str = "install",
) -> str:
    """With ``text`` at ``path``, ``verb`` fails (exit 1), its error names ``path`` and
    ``problem`` and says no file was changed, and ``path`` still holds ``text``: the error."""
    path.write_text(text)
    assert main([verb]) == 1
    err = capsys.readouterr().err
    assert str(path) in err and problem in err and "No file was changed" in err
    assert path.read_text() == text
    return err
