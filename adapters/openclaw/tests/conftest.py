"""Fixtures for the OpenClaw adapter tests.

Every test gets its own HOME, XDG state directory and OpenClaw state
directory, and no SIGNET_* or OPENCLAW_* variables from the developer's shell.
``scripted_daemon`` (the SDK's pytest plugin) is a recording fake daemon.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signet_sdk.testing import private_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME, XDG state dir and OpenClaw state dir; no SIGNET_*/OPENCLAW_* from outside."""
    return private_home(monkeypatch, tmp_path, "OPENCLAW_", flush=5, OPENCLAW_STATE_DIR=".openclaw")
