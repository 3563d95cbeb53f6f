"""Fixtures for the Claude Code adapter tests.

Every test gets its own HOME and XDG state directory (the hook writes its
log and outbox there) and no SIGNET_* or CLAUDE_* variables from the
developer's shell. ``scripted_daemon`` (the SDK's pytest plugin) is a recording fake daemon.
"""

from __future__ import annotations

from signet_e2e.fixtures import isolated_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

#: Autouse; the fixture returns its HOME.
isolated = isolated_home("CLAUDE_", made=".claude/projects")
