"""Fixtures for the Kimi Code adapter tests.

Every test gets its own HOME, KIMI_CODE_HOME (``~/.kimi-code`` under that
HOME) and XDG state directory (the hook writes its log, outbox, held start
context, process records, claims and conversation files there), and no
SIGNET_* or KIMI_* variables from the developer's shell. ``scripted_daemon``
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
    """A private HOME with ``.kimi-code/sessions``; returns KIMI_CODE_HOME."""
    home = private_home(monkeypatch, tmp_path, "KIMI_", KIMI_CODE_HOME=".kimi-code")
    kimi_home = home / ".kimi-code"
    (kimi_home / "sessions").mkdir(parents=True)
    return kimi_home
