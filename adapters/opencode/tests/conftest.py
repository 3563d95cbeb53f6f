"""Fixtures for the OpenCode adapter tests.

Every test gets its own HOME, XDG directories, and no SIGNET_* or OPENCODE_*
variables from the developer's shell.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private HOME and XDG directories; no SIGNET_* or OPENCODE_* from outside."""
    for key in list(os.environ):
        if key.startswith(("SIGNET_", "OPENCODE_")):
            monkeypatch.delenv(key, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("SIGNET_OUTBOX_FLUSH_SECONDS", "5")
    yield home
