"""Fixtures for the Gemini CLI adapter tests.

Every test gets its own HOME (Gemini's ``.gemini`` folder lives there) and
XDG state directory (the hook writes its log and outbox there), and no
SIGNET_* or GEMINI_* variables from the developer's shell. ``scripted_daemon``
(the SDK's pytest plugin) is a recording fake daemon.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signet_sdk.testing import private_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME; no SIGNET_*, GEMINI_* or GOOGLE_* from the outer shell; returns ~/.gemini."""
    gemini = private_home(monkeypatch, tmp_path, "GEMINI_", "GOOGLE_") / ".gemini"
    (gemini / "tmp").mkdir(parents=True)
    return gemini
