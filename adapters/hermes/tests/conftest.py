"""Fixtures for the Hermes adapter tests.

Every test gets its own HOME, XDG state directory and HERMES_HOME, and no
SIGNET_* or HERMES_* variables from the developer's shell.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signet_sdk.testing import private_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME, XDG state dir and HERMES_HOME; no SIGNET_* or HERMES_* from outside."""
    return private_home(monkeypatch, tmp_path, "HERMES_", flush=5, HERMES_HOME=".hermes")
