"""Where a Codex ``transcript_path`` may be read from.

Codex writes each session's rollout as JSON lines under
``$CODEX_HOME/sessions`` (``~/.codex/sessions`` by default) and names it in
every hook payload. Transcripts are read only there, plus any directories
listed in ``SIGNET_TRANSCRIPT_ROOTS`` (``os.pathsep`` separated, absolute
paths only). A ``transcript_path`` elsewhere, or a symlink, is not read.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["codex_home", "transcript_roots"]


def codex_home(env: Mapping[str, str]) -> str:
    """``$CODEX_HOME``, else ``~/.codex`` (``HOME`` from ``env`` when set)."""
    home_dir = env.get("CODEX_HOME", "").strip()
    if home_dir:
        return home_dir
    home = env.get("HOME", "").strip() or os.path.expanduser("~")
    return os.path.join(home, ".codex")


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a Codex ``transcript_path`` may resolve into."""
    roots = [os.path.join(codex_home(env), "sessions")]
    extra = env.get("SIGNET_TRANSCRIPT_ROOTS", "")
    roots += [p.strip() for p in extra.split(os.pathsep) if p.strip() and os.path.isabs(p.strip())]
    return roots
