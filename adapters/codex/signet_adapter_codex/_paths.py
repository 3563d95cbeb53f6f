"""Where a Codex ``transcript_path`` may be read from.

Codex writes each session's rollout as JSON lines under
``$CODEX_HOME/sessions`` (``~/.codex/sessions`` by default) and names it in
every hook payload. Transcripts are read only there, plus any directories
listed in ``SIGNET_TRANSCRIPT_ROOTS`` (``os.pathsep`` separated, absolute
paths only). A ``transcript_path`` elsewhere, or a symlink, is not read.
"""

from __future__ import annotations

import os

from signet_sdk.plugin import harness_home, transcript_roots_with

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["codex_home", "transcript_roots"]


def codex_home(env: Mapping[str, str]) -> str:
    """``$CODEX_HOME``, else ``~/.codex`` (``HOME`` from ``env`` when set)."""
    return harness_home(env, "CODEX_HOME", ".codex")


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a Codex ``transcript_path`` may resolve into."""
    return transcript_roots_with(env, os.path.join(codex_home(env), "sessions"))
