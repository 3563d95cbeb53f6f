"""Fixtures for the OpenCode adapter tests.

Every test gets its own HOME, XDG directories, and no SIGNET_* or OPENCODE_*
variables from the developer's shell.
"""

from __future__ import annotations

from signet_e2e.fixtures import isolated_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

#: Autouse; the fixture returns its HOME.
isolated = isolated_home("OPENCODE_", flush=5, XDG_CONFIG_HOME=".config")
