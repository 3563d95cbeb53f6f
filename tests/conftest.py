"""Shared fixtures: every test starts with no SIGNET_* variables set."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def clean_signet_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests must not see the developer's daemon settings (or leak their own)."""
    for key in list(os.environ):
        if key.startswith("SIGNET_"):
            monkeypatch.delenv(key, raising=False)
    yield


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
