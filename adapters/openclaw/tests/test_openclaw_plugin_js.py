"""The OpenClaw plugin's JavaScript tests (``tests/js``, ``node --test``), run by pytest."""

from __future__ import annotations

from pathlib import Path

from signet_e2e import node_tests


def test_plugin_node_tests_pass() -> None:
    node_tests(Path(__file__).parent / "js", "the OpenClaw plugin")
