"""Fixtures for the pi adapter tests.

Every test gets its own HOME, XDG state directory and pi agent directory, and
no SIGNET_* or PI_* variables from the developer's shell.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private HOME, XDG state dir and pi agent dir; no SIGNET_* or PI_* from outside."""
    for key in list(os.environ):
        if key.startswith(("SIGNET_", "PI_")):
            monkeypatch.delenv(key, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(home / ".pi" / "agent"))
    monkeypatch.setenv("SIGNET_OUTBOX_FLUSH_SECONDS", "5")
    yield home
