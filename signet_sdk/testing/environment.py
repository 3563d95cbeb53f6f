"""A test's own HOME and state directory, :func:`private_home`, and files in it.

A hook command finds its log, outbox and settings through HOME, the XDG
directories and SIGNET_* variables, and a harness reads its own variables
(CLAUDE_*, CODEX_*, ...): a test that inherits the developer's would write
into the real state directory or talk to the real daemon. Every adapter's
``conftest.py`` starts its autouse fixture with this call and adds what its
harness needs on top::

    @pytest.fixture(autouse=True)
    def isolated(tmp_path, monkeypatch):
        home = private_home(monkeypatch, tmp_path, "MYHARNESS_")
        monkeypatch.setenv("MYHARNESS_HOME", str(home / ".myharness"))
        return home

Harnesses keep their sessions as JSON-lines files under that HOME (Claude
Code's transcripts, Codex's rollouts, Gemini's chats); :func:`write_jsonl`
writes one where the harness would.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

__all__ = ["private_home", "write_jsonl"]


def private_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *prefixes: str) -> Path:
    """``tmp_path/home`` as HOME and ``tmp_path/state`` as XDG_STATE_HOME; returns the home.

    Every variable named ``SIGNET_*`` or starting with one of ``prefixes``
    (the harness's own, such as ``"CLAUDE_"``) is removed for the test.
    """
    for key in list(os.environ):
        if key.startswith(("SIGNET_", *prefixes)):
            monkeypatch.delenv(key, raising=False)
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return home


def write_jsonl(path: Path, records: Iterable[Any]) -> Path:
    """Write ``records`` to ``path`` as JSON lines (its folders made); return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
