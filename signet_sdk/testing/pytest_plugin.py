"""Pytest fixtures for harness adapters and for the real Signet daemons.

Opt-in: installing the SDK changes no project's pytest run. An adapter
package's tests enable it with one line in their top ``conftest.py``::

    pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

and then get:

* ``signet_vector``: every contract vector of the module's ``SIGNET_PLUGIN``,
  one test each::

      from signet_sdk.testing import assert_parity, check_vector
      from my_adapter import PLUGIN as SIGNET_PLUGIN

      def test_vector(signet_vector):
          check_vector(SIGNET_PLUGIN, signet_vector)

      def test_parity():
          assert_parity(SIGNET_PLUGIN.name)

* ``scripted_daemon``: a :class:`~signet_sdk.testing.ScriptedDaemon` on
  127.0.0.1, closed after the test;
* ``real_daemon``: a real Signet daemon of each supported version (one per
  version for the whole session, on a free loopback port, stopped by its
  PID), and ``real_daemon_kit`` for a test that needs one of its own
  (``real_daemon_kit.running(version)``). Without a kit the tests skip with
  one line; under ``CI=true`` they fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from signet_sdk.testing.real_daemon import SUPPORTED_VERSIONS, DaemonKit, RealDaemon, require_kit

__all__ = ["real_daemon", "real_daemon_kit", "scripted_daemon"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "signet_vector" not in metafunc.fixturenames:
        return
    from signet_sdk.testing.vectors import load_vectors, vector_id

    plugin: Any = getattr(metafunc.module, "SIGNET_PLUGIN", None)
    if plugin is None:
        raise pytest.UsageError(
            f"{metafunc.module.__name__}: signet_vector needs SIGNET_PLUGIN = <your HarnessPlugin> "
            "in the test module"
        )
    vectors = load_vectors(plugin)
    if not vectors:
        raise pytest.UsageError(f"{plugin.name}: the plugin ships no vectors")
    metafunc.parametrize("signet_vector", vectors, ids=[vector_id(v) for v in vectors])


@pytest.fixture
def scripted_daemon() -> Iterator[Any]:
    """A daemon on 127.0.0.1 answering from ``.replies`` and recording ``.requests``."""
    from signet_sdk.testing.scripted import ScriptedDaemon

    with ScriptedDaemon() as daemon:
        yield daemon


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
