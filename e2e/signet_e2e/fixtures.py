"""Fixtures the adapters' tests declare from one definition.

:func:`isolated_home` makes each adapter's ``isolated`` fixture;
:func:`served_mock_daemon` a test's own mock daemon, :func:`module_scripted_daemon`
a scripted daemon a module's tests share, and :func:`adapter_server_env` the
environment of an adapter server those tests share; :func:`installed_once` a
harness installed once for the whole run.

``isolated``: every adapter's tests run with a private HOME and XDG state directory, none
of the developer's SIGNET_* or harness variables, and the folder the harness
keeps its files in; what differs between harnesses is only which variables,
which folder, and what must exist in it. A ``conftest.py`` states that::

    isolated = isolated_home("KIMI_", root=".kimi-code", made="sessions",
                             KIMI_CODE_HOME=".kimi-code")
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from signet_e2e.real_harness import recording_daemon
from signet_sdk.testing import ScriptedDaemon, private_home

__all__ = [
    "adapter_server_env",
    "installed_once",
    "isolated_home",
    "module_scripted_daemon",
    "served_mock_daemon",
]


#: What a harness's installer gives: its program's path, or an install with a runtime.
InstallT = TypeVar("InstallT")


def installed_once(install: Callable[[], InstallT], name: str) -> Callable[[], InstallT]:
    """A session-scoped fixture called ``name`` whose value is ``install()``: the pinned
    harness, installed (from its cache when there) once for the whole run."""

    @pytest.fixture(scope="session", name=name)
    def installed() -> InstallT:
        """The harness, installed."""
        return install()

    return installed


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


def module_scripted_daemon() -> Callable[[], Iterator[ScriptedDaemon]]:
    """A module-scoped fixture: one :class:`~signet_sdk.testing.ScriptedDaemon` for the
    module's tests (each scripts its answers), as an adapter server they share needs."""

    @pytest.fixture(scope="module")
    def scripted() -> Iterator[ScriptedDaemon]:
        """The module's scripted daemon."""
        with ScriptedDaemon() as daemon:
            yield daemon

    return scripted


def adapter_server_env(root: Path, daemon_url: str, *prefixes: str, **homes: str) -> dict[str, str]:
    """The environment of an adapter server that outlives one test's private HOME.

    This process's environment without SIGNET_* or ``prefixes`` variables,
    with HOME and XDG_STATE_HOME under ``root``, each of ``homes`` set to
    that folder under the HOME (as ``PI_CODING_AGENT_DIR=".pi/agent"``),
    ``daemon_url`` as the daemon and a 5 s outbox flush.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIGNET_", *prefixes))}
    env.update(HOME=str(root / "home"), XDG_STATE_HOME=str(root / "state"))
    env.update((name, str(root / "home" / folder)) for name, folder in homes.items())
    env.update(SIGNET_DAEMON_URL=daemon_url, SIGNET_OUTBOX_FLUSH_SECONDS="5")
    return env
