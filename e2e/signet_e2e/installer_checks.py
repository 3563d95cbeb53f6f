"""The round trip every settings-file installer must survive, for the adapters' tests.

An installer that merges into a user's own settings file must keep the
user's text and file mode, change nothing when run again (and say so), and
on uninstall give the file back byte for byte. :func:`install_over` starts
the round trip, :func:`assert_round_trip` finishes it; what the installed
file must hold in between is the harness's own test. A file it cannot merge
safely it must refuse, name, and leave as it was: :func:`assert_refused`.
How the user keeps the file holds too: a config linked into place from a
dotfiles folder stays a link (:func:`assert_link_kept`), and a file with
CRLF line ends keeps them (:func:`assert_crlf_kept`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

__all__ = [
    "assert_blank_kept",
    "assert_crlf_kept",
    "assert_dangling_link_kept",
    "assert_given_back",
    "assert_link_kept",
    "assert_refused",
    "assert_round_trip",
    "install_over",
]

#: An installer's entry point: ``["install" | "uninstall", *args]`` to an exit code.
Installer = Callable[[list[str]], int]


def install_over(main: Installer, path: Path, user_text: str) -> str:
    """The user's ``user_text`` at ``path`` (mode 0600), then an install: the file's new text."""
    path.write_text(user_text)
    path.chmod(0o600)
    assert main(["install"]) == 0
    return path.read_text()


def assert_given_back(main: Installer, path: Path, user_text: str) -> None:
    """The user's ``user_text`` at ``path``, install, uninstall: ``user_text`` byte for byte
    (what the user wrote, an empty ``{}`` or ``[]`` of theirs included, was never ours)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(user_text)
    assert main(["install"]) == 0
    assert main(["uninstall"]) == 0
    assert path.read_text() == user_text


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


def assert_link_kept(
    main: Installer, path: Path, user_text: str, *, same_bytes: bool = True
) -> str:
    """``path`` a link to the user's file elsewhere: install and uninstall edit that file
    through the link and leave the link in place; uninstall gives back ``user_text`` byte
    for byte (unless not ``same_bytes``). The installed text."""
    target = path.parent.parent / "dotfiles" / path.name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(user_text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    assert main(["install"]) == 0
    installed = target.read_text()
    assert path.is_symlink() and path.resolve() == target.resolve()
    assert installed != user_text
    assert main(["uninstall"]) == 0
    assert path.is_symlink() and path.resolve() == target.resolve()
    if same_bytes:
        assert target.read_text() == user_text
    return installed


def assert_dangling_link_kept(main: Installer, path: Path) -> None:
    """``path`` a link to a file not made yet (a dotfiles link set up first): install
    creates the target through the link, and uninstall takes that target away again and
    leaves the link as the user made it, dangling."""
    target = path.parent.parent / "dotfiles" / path.name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    assert main(["install"]) == 0
    assert path.readlink() == target and "signet-sdk" in target.read_text()
    assert main(["uninstall"]) == 0
    assert path.readlink() == target and not target.exists()


def assert_crlf_kept(
    main: Installer, path: Path, user_text: str, *, same_bytes: bool = True
) -> str:
    """``user_text`` with CRLF line ends at ``path``: the installed file's line ends are all
    CRLF, and uninstall gives back the user's bytes (unless not ``same_bytes``: then its
    line ends are still CRLF). The installed text, with ``\\n`` line ends."""
    original = user_text.replace("\n", "\r\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(original)
    assert main(["install"]) == 0
    installed = path.read_bytes()
    assert installed.count(b"\n") == installed.count(b"\r\n") > original.count(b"\n")
    assert main(["uninstall"]) == 0
    after = path.read_bytes()
    if same_bytes:
        assert after == original
    else:
        assert after.count(b"\n") == after.count(b"\r\n")
    return installed.decode("utf-8").replace("\r\n", "\n")


def assert_blank_kept(main: Installer, path: Path) -> None:
    """An empty ``path``: install accepts it, uninstall gives it back empty, and a second
    uninstall finds nothing of ours (a blank file is no settings, not bad JSON)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    assert main(["install"]) == 0
    assert path.read_text() != ""
    assert main(["uninstall"]) == 0
    assert path.read_text() == ""
    assert main(["uninstall"]) == 0
