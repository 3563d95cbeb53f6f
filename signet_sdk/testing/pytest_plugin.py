"""Pytest fixtures for the real Signet daemons: ``real_daemon`` runs a test on every version.

Load it with ``pytest_plugins = ("signet_sdk.testing.pytest_plugin",)`` in a
root ``conftest.py``. ``real_daemon`` is parametrised over
:data:`~signet_sdk.testing.real_daemon.SUPPORTED_VERSIONS`: one daemon per
version for the whole session (tests use their own session keys and
memories), started on a free loopback port and stopped by its PID at the
end. Without a kit the tests skip with one line; under ``CI=true`` they fail.
A test that needs a daemon of its own (state it must not share) uses
``real_daemon_kit.running(version)``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from signet_sdk.testing.real_daemon import SUPPORTED_VERSIONS, DaemonKit, RealDaemon, require_kit

__all__ = ["real_daemon", "real_daemon_kit"]


@pytest.fixture(scope="session")
def real_daemon_kit() -> DaemonKit:
    """The kit (``SIGNET_DAEMON_KIT`` or ``../shared/signet-daemon``), else skip (fail on CI)."""
    return DaemonKit(require_kit())


@pytest.fixture(scope="session", params=SUPPORTED_VERSIONS)
def real_daemon(request: pytest.FixtureRequest, real_daemon_kit: DaemonKit) -> Iterator[RealDaemon]:
    """A real daemon of each supported version, shared by the session's tests."""
    version: str = request.param
    if version not in real_daemon_kit.versions():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the kit has no daemon {version}", pytrace=False)
        pytest.skip(f"the real-daemon kit has no {version}")
    daemon = real_daemon_kit.start(version)
    try:
        yield daemon
    finally:
        daemon.stop()
