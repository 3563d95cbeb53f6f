"""Fixtures for the Qwen Code adapter tests.

Every test gets its own HOME (Qwen Code's ``.qwen`` folder lives there) and
XDG state directory (the hook writes its log, outbox, session notes and
summary claims there), and no SIGNET_* or QWEN_* variables from the
developer's shell. ``scripted_daemon`` (the SDK's pytest plugin) is a
recording fake daemon.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signet_sdk.testing import private_home

#: The SDK's fixtures (``scripted_daemon``, ``signet_vector``, ``real_daemon``): opt-in.
pytest_plugins = ["signet_sdk.testing.pytest_plugin"]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME; no SIGNET_* or QWEN_* from the outer shell; returns ~/.qwen."""
    qwen = private_home(monkeypatch, tmp_path, "QWEN_") / ".qwen"
    (qwen / "projects").mkdir(parents=True)
    return qwen
