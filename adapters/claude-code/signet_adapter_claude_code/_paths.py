"""Where a Claude Code ``transcript_path`` may be read from.

Transcripts are read only under Claude Code's own directory:
``$CLAUDE_CONFIG_DIR/projects`` when set, else ``~/.claude/projects``, plus
any directories listed in ``SIGNET_TRANSCRIPT_ROOTS`` (``os.pathsep``
separated, absolute paths only). A ``transcript_path`` elsewhere, or a
symlink, is not read.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["transcript_roots"]


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a Claude Code ``transcript_path`` may resolve into."""
    config_dir = env.get("CLAUDE_CONFIG_DIR", "").strip()
    if not config_dir:
        home = env.get("HOME", "").strip() or os.path.expanduser("~")
        config_dir = os.path.join(home, ".claude")
    roots = [os.path.join(config_dir, "projects")]
    extra = env.get("SIGNET_TRANSCRIPT_ROOTS", "")
    roots += [p.strip() for p in extra.split(os.pathsep) if p.strip() and os.path.isabs(p.strip())]
    return roots
