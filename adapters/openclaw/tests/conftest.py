"""Fixtures for the OpenClaw adapter tests.

Every test gets its own HOME, XDG state directory and OpenClaw state
directory, and no SIGNET_* or OPENCLAW_* variables from the developer's shell.
``scripted_daemon`` (the SDK's pytest plugin) is a recording fake daemon.
"""

from __future__ import annotations

from signet_e2e.fixtures import isolated_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

#: Autouse; the fixture returns its HOME.
isolated = isolated_home("OPENCLAW_", flush=5, OPENCLAW_STATE_DIR=".openclaw")
