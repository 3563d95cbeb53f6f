"""Fixtures for the Copilot CLI adapter tests.

Every test gets its own HOME, COPILOT_HOME (``~/.copilot`` under that HOME)
and XDG state directory (the hook writes its log, outbox, claims and
conversation files there) and no SIGNET_* or COPILOT_* variables from the
developer's shell. ``scripted_daemon`` (the SDK's pytest plugin) is a
recording fake daemon.
"""

from __future__ import annotations

from signet_e2e.fixtures import isolated_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

#: Autouse; the fixture returns COPILOT_HOME.
isolated = isolated_home("COPILOT_", root=".copilot", made="session-state", COPILOT_HOME=".copilot")
