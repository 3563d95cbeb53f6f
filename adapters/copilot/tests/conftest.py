"""Fixtures for the Copilot CLI adapter tests.

Every test gets its own HOME, COPILOT_HOME (``~/.copilot`` under that HOME)
and XDG state directory (the hook writes its log, outbox, claims and
conversation files there) and no SIGNET_* or COPILOT_* variables from the
developer's shell. ``scripted_daemon`` (the SDK's pytest plugin) is a
recording fake daemon.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signet_sdk.testing import private_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME with ``.copilot/session-state``; returns COPILOT_HOME."""
    home = private_home(monkeypatch, tmp_path, "COPILOT_", COPILOT_HOME=".copilot")
    copilot_home = home / ".copilot"
    (copilot_home / "session-state").mkdir(parents=True)
    return copilot_home
