"""Fixtures for the pi adapter tests.

Every test gets its own HOME, XDG state directory and pi agent directory, and
no SIGNET_* or PI_* variables from the developer's shell.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signet_sdk.testing import private_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME, XDG state dir and pi agent dir; no SIGNET_* or PI_* from outside."""
    return private_home(monkeypatch, tmp_path, "PI_", flush=5, PI_CODING_AGENT_DIR=".pi/agent")
