"""Fixtures for the Hermes adapter tests.

Every test gets its own HOME, XDG state directory and HERMES_HOME, and no
SIGNET_* or HERMES_* variables from the developer's shell.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private HOME, XDG state dir and HERMES_HOME; no SIGNET_* or HERMES_* from outside."""
    for key in list(os.environ):
        if key.startswith(("SIGNET_", "HERMES_")):
            monkeypatch.delenv(key, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("HERMES_HOME", str(home / ".hermes"))
    monkeypatch.setenv("SIGNET_OUTBOX_FLUSH_SECONDS", "5")
    yield home
