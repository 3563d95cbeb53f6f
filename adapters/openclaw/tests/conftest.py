"""Fixtures for the OpenClaw adapter tests.

Every test gets its own HOME, XDG state directory and OpenClaw state
directory, and no SIGNET_* or OPENCLAW_* variables from the developer's shell.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private HOME, XDG state dir and OpenClaw state dir; no SIGNET_*/OPENCLAW_* from outside."""
    for key in list(os.environ):
        if key.startswith(("SIGNET_", "OPENCLAW_")):
            monkeypatch.delenv(key, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(home / ".openclaw"))
    monkeypatch.setenv("SIGNET_OUTBOX_FLUSH_SECONDS", "5")
    yield home
