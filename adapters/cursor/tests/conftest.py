"""Fixtures for the Cursor adapter tests.

Every test gets its own HOME (with the ``~/.cursor/projects`` folder Cursor
writes transcripts under) and XDG state directory (the hook writes its log
and outbox there), and no SIGNET_* or CURSOR_* variables from the
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
    """A private HOME; returns its ``.cursor`` folder."""
    home = private_home(monkeypatch, tmp_path, "CURSOR_")
    cursor = home / ".cursor"
    (cursor / "projects").mkdir(parents=True)
    return cursor
