"""Fixtures for the Codex adapter tests.

Every test gets its own HOME, CODEX_HOME and XDG state directory (the hook
writes its log and outbox there) and no SIGNET_* or CODEX_* variables from
the developer's shell. ``scripted_daemon`` (the SDK's pytest plugin) is a recording fake daemon.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signet_sdk.testing import private_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME and CODEX_HOME; no SIGNET_* or CODEX_* from the outer shell."""
    home = private_home(monkeypatch, tmp_path, "CODEX_")
    codex_home = home / ".codex"
    (codex_home / "sessions").mkdir(parents=True)
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    return codex_home
