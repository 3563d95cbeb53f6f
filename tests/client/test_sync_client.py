"""The sync client is exactly what unasync makes of the async one (also under plain pytest).

``python3 dev.py check`` runs the same comparison as a step of its own; this
test makes a plain ``pytest`` run catch a hand edit of ``sync_client.py`` or
an async change nobody regenerated.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_sync_client_is_what_the_async_client_generates() -> None:
    pytest.importorskip("unasync", reason="unasync comes with the dev extra")
    spec = importlib.util.spec_from_file_location("signet_dev", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    generated = dev.generated_sync_client()
    committed = (ROOT / "signet_sdk" / "client" / "sync_client.py").read_text()
    assert committed == generated, "sync_client.py is stale: run python3 dev.py generate"
