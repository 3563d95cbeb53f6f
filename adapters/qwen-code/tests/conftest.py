"""Fixtures for the Qwen Code adapter tests.

Every test gets its own HOME (Qwen Code's ``.qwen`` folder lives there) and
XDG state directory (the hook writes its log, outbox, session notes and
summary claims there), and no SIGNET_* or QWEN_* variables from the
developer's shell. ``scripted_daemon`` (the SDK's pytest plugin) is a
recording fake daemon.
"""

from __future__ import annotations

from signet_e2e.fixtures import isolated_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

#: Autouse; the fixture returns ``~/.qwen``.
isolated = isolated_home("QWEN_", root=".qwen", made="projects")
