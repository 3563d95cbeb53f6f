"""Fixtures for the pi adapter tests.

Every test gets its own HOME, XDG state directory and pi agent directory, and
no SIGNET_* or PI_* variables from the developer's shell.
"""

from __future__ import annotations

from signet_e2e.fixtures import isolated_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

#: Autouse; the fixture returns its HOME.
isolated = isolated_home("PI_", flush=5, PI_CODING_AGENT_DIR=".pi/agent")
