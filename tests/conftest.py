"""Shared fixtures: every test starts with no SIGNET_* variables set."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

#: The SDK's own fixtures (``scripted_daemon``, ``real_daemon``): the plugin is opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]


@pytest.fixture(autouse=True)
def clean_signet_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests must not see the developer's daemon settings (or leak their own)."""
    for key in list(os.environ):
        if key.startswith("SIGNET_"):
            monkeypatch.delenv(key, raising=False)
    yield


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def agent_env(tmp_path: Path) -> dict[str, str]:
    """The environment a runtime session runs with: its own HOME and state folder, no SIGNET_*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    home = tmp_path / "home"
    home.mkdir()
    env.update(
        HOME=str(home),
        XDG_STATE_HOME=str(tmp_path / "state"),
        # A detached outbox sender started by a test gives up quickly.
        SIGNET_OUTBOX_FLUSH_SECONDS="2",
    )
    return env


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """The whole environment of a ``signet-sdk`` process: PATH, and its HOME and XDG folders.

    The folders are under ``tmp_path``, so a command's state and config are the test's own.
    """
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


@pytest.fixture
def mock_daemon() -> Iterator[tuple[MockDaemon, str]]:
    """The mock daemon (0.145's answers) on a free 127.0.0.1 port: (daemon, url).

    One per test, so what a test asserts about the requests it sent sees no other test's.
    """
    daemon = MockDaemon()
    with daemon.serve() as handle:
        yield daemon, handle.url
    daemon.close()


@pytest.fixture
def stored_daemon(tmp_path: Path) -> Iterator[tuple[MockDaemon, str]]:
    """The mock daemon keeping its store in a file under ``tmp_path``: (daemon, url).

    For tests whose calls come from other threads or processes (tool servers, the CLI),
    which all have to see the one store.
    """
    daemon = MockDaemon(db_path=tmp_path / "daemon.sqlite3")
    with daemon.serve() as handle:
        yield daemon, handle.url


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Under ``coverage run`` (``dev.py check``): print the total and hold the floor.

    Runs before pytest's closing line, so that line stays the last one printed;
    a total below ``[tool.coverage.report] fail_under`` fails the run.
    """
    try:
        import coverage
    except ImportError:
        return
    cov = coverage.Coverage.current()
    if cov is None:
        return
    import io

    cov.stop()
    cov.save()
    total = cov.report(file=io.StringIO())
    floor = float(cov.config.fail_under)
    verdict = "ok" if total >= floor else "BELOW THE FLOOR"
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    line = f"coverage of signet_sdk: {total:.1f}% (floor {floor:.0f}%): {verdict}"
    if reporter is not None:
        reporter.write("\n")  # the progress line is still open
        reporter.write_line(line)
    if total < floor and session.exitstatus == 0:
        session.exitstatus = 1
