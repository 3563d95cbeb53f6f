"""Fixtures for the Gemini CLI adapter tests.

Every test gets its own HOME (Gemini's ``.gemini`` folder lives there) and
XDG state directory (the hook writes its log and outbox there), and no
SIGNET_* or GEMINI_* variables from the developer's shell. ``scripted_daemon``
(the SDK's pytest plugin) is a recording fake daemon.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private HOME; no SIGNET_*, GEMINI_* or GOOGLE_* from the outer shell. Yields ~/.gemini."""
    for key in list(os.environ):
        if key.startswith(("SIGNET_", "GEMINI_", "GOOGLE_")):
            monkeypatch.delenv(key, raising=False)
    home = tmp_path / "home"
    gemini = home / ".gemini"
    (gemini / "tmp").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    yield gemini
