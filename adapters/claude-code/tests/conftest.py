"""Fixtures for the Claude Code adapter tests.

Every test gets its own HOME and XDG state directory (the hook writes its
log and outbox there) and no SIGNET_* or CLAUDE_* variables from the
developer's shell. ``scripted_daemon`` (the SDK's pytest plugin) is a recording fake daemon.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private HOME and XDG state dir; no SIGNET_* or CLAUDE_* from the outer shell."""
    for key in list(os.environ):
        if key.startswith(("SIGNET_", "CLAUDE_")):
            monkeypatch.delenv(key, raising=False)
    home = tmp_path / "home"
    (home / ".claude" / "projects").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    yield home
