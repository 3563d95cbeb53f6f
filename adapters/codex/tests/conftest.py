"""Fixtures for the Codex adapter tests.

Every test gets its own HOME, CODEX_HOME and XDG state directory (the hook
writes its log and outbox there) and no SIGNET_* or CODEX_* variables from
the developer's shell. ``scripted_daemon`` (the SDK's pytest plugin) is a recording fake daemon.
"""

from __future__ import annotations

from signet_e2e.fixtures import isolated_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

#: Autouse; the fixture returns CODEX_HOME.
isolated = isolated_home("CODEX_", root=".codex", made="sessions", CODEX_HOME=".codex")
