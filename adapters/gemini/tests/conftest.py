"""Fixtures for the Gemini CLI adapter tests.

Every test gets its own HOME (Gemini's ``.gemini`` folder lives there) and
XDG state directory (the hook writes its log and outbox there), and no
SIGNET_* or GEMINI_* variables from the developer's shell. ``scripted_daemon``
(the SDK's pytest plugin) is a recording fake daemon.
"""

from __future__ import annotations

from signet_e2e.fixtures import isolated_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]

#: Autouse; the fixture returns ``~/.gemini``.
isolated = isolated_home("GEMINI_", "GOOGLE_", root=".gemini", made="tmp")
