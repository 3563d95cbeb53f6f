"""Fixtures for the Kimi Code adapter tests.

Every test gets its own HOME, KIMI_CODE_HOME (``~/.kimi-code`` under that
HOME) and XDG state directory (the hook writes its log, outbox, held start
context, process records, claims and conversation files there), and no
SIGNET_* or KIMI_* variables from the developer's shell. ``scripted_daemon``
(the SDK's pytest plugin) is a recording fake daemon.
"""

from __future__ import annotations

from signet_e2e.fixtures import isolated_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

#: Autouse; the fixture returns KIMI_CODE_HOME.
isolated = isolated_home("KIMI_", root=".kimi-code", made="sessions", KIMI_CODE_HOME=".kimi-code")
