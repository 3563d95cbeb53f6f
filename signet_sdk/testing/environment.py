"""A test's own HOME and state directory, :func:`private_home`, and files in it.

A hook command finds its log, outbox and settings through HOME, the XDG
directories and SIGNET_* variables, and a harness reads its own variables
(CLAUDE_*, CODEX_*, ...): a test that inherits the developer's would write
into the real state directory or talk to the real daemon. Every adapter's
``conftest.py`` makes its autouse fixture of this call, naming the folders
its harness reads under that HOME (and, if it likes, how long the hooks'
detached senders may keep flushing)::

    @pytest.fixture(autouse=True)
    def isolated(tmp_path, monkeypatch):
        return private_home(monkeypatch, tmp_path, "MYHARNESS_", MYHARNESS_HOME=".myharness")

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


def private_home(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    *prefixes: str,
    flush: float | None = None,
    **homes: str,
) -> Path:
    """``tmp_path/home`` as HOME and ``tmp_path/state`` as XDG_STATE_HOME; returns the home.

    Every variable named ``SIGNET_*`` or starting with one of ``prefixes``
    (the harness's own, such as ``"CLAUDE_"``) is removed for the test. Each
    of ``homes`` is then set to that folder under the home (not created), as
    ``HERMES_HOME=".hermes"``; ``flush`` sets SIGNET_OUTBOX_FLUSH_SECONDS, how
    long a hook's detached sender keeps trying (its default: 60 s).
    """
    for key in list(os.environ):
        if key.startswith(("SIGNET_", *prefixes)):
            monkeypatch.delenv(key, raising=False)
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    for name, folder in homes.items():
        monkeypatch.setenv(name, str(home / folder))
    if flush is not None:
        monkeypatch.setenv("SIGNET_OUTBOX_FLUSH_SECONDS", f"{flush:g}")
    return home


def write_jsonl(path: Path, records: Iterable[Any]) -> Path:
    """Write ``records`` to ``path`` as JSON lines (its folders made); return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
