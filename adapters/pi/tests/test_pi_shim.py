"""The shim's JavaScript tests (``tests/js``, ``node --test``), run as part of the suite."""

from __future__ import annotations

from pathlib import Path

from signet_e2e import node_tests


def test_shim_node_tests_pass() -> None:
    node_tests(Path(__file__).parent / "js", "the pi shim")
