"""Fixtures for the OpenCode adapter tests.

Every test gets its own HOME, XDG directories, and no SIGNET_* or OPENCODE_*
variables from the developer's shell.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signet_sdk.testing import private_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME and XDG directories; no SIGNET_* or OPENCODE_* from outside."""
    return private_home(monkeypatch, tmp_path, "OPENCODE_", flush=5, XDG_CONFIG_HOME=".config")
