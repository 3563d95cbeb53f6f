"""Fixtures the adapters' tests declare from one definition.

:func:`isolated_home` makes each adapter's ``isolated`` fixture;
:func:`served_mock_daemon` a test's own mock daemon.

Every adapter's tests run with a private HOME and XDG state directory, none
of the developer's SIGNET_* or harness variables, and the folder the harness
keeps its files in; what differs between harnesses is only which variables,
which folder, and what must exist in it. A ``conftest.py`` states that::

    isolated = isolated_home("KIMI_", root=".kimi-code", made="sessions",
                             KIMI_CODE_HOME=".kimi-code")
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from signet_e2e.real_harness import recording_daemon
from signet_sdk.testing import private_home

__all__ = ["isolated_home", "served_mock_daemon"]


def isolated_home(
    *prefixes: str, root: str = "", made: str = "", flush: float | None = None, **homes: str
) -> Callable[[Path, pytest.MonkeyPatch], Path]:
    """An autouse ``isolated`` fixture: :func:`~signet_sdk.testing.private_home` for each test.

    ``prefixes``, ``flush`` and ``homes`` are passed on to ``private_home``
    (the variables removed, the outbox flush, the harness's home variables).
    The fixture returns ``root`` under the private HOME (the HOME itself when
    empty), with the folder ``made`` under it created first.
    """

    @pytest.fixture(autouse=True)
    def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
        """A private HOME and XDG state dir, without the outer shell's SIGNET_* or harness
        variables; returns the harness's folder under it."""
        folder = private_home(monkeypatch, tmp_path, *prefixes, flush=flush, **homes) / root
        if made:
            (folder / made).mkdir(parents=True)
        return folder

    return isolated


def served_mock_daemon(version: str) -> Callable[[Path], Iterator[tuple[Any, str]]]:
    """A fixture: the SDK's mock daemon answering as ``version``, its store in the test's
    ``tmp_path``, and its URL; it records every request it answers."""

    @pytest.fixture
    def mock_daemon(tmp_path: Path) -> Iterator[tuple[Any, str]]:
        """The mock daemon and its URL, served for the test."""
        with recording_daemon("mock", None, tmp_path / "daemon.sqlite3", version=version) as got:
            yield got

    return mock_daemon
