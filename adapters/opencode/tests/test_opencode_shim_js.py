"""The OpenCode plugin shim's JavaScript tests (``tests/js``, ``node --test``), run by pytest."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

JS_TESTS = Path(__file__).parent / "js"


def test_shim_node_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("node is needed for the OpenCode plugin shim's tests")
        pytest.skip("node is not installed")
    files = sorted(str(p) for p in JS_TESTS.glob("*.test.mjs"))
    assert files
    proc = subprocess.run([node, "--test", *files], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout
