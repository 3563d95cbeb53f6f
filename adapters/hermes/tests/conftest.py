"""Fixtures for the Hermes adapter tests.

Every test gets its own HOME, XDG state directory and HERMES_HOME, and no
SIGNET_* or HERMES_* variables from the developer's shell.
"""

from __future__ import annotations

from signet_e2e.fixtures import isolated_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

#: Autouse; the fixture returns its HOME.
isolated = isolated_home("HERMES_", flush=5, HERMES_HOME=".hermes")
