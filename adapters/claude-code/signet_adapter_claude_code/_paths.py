"""Where a Claude Code ``transcript_path`` may be read from.

Transcripts are read only under Claude Code's own directory:
``$CLAUDE_CONFIG_DIR/projects`` when set, else ``~/.claude/projects``, plus
any directories listed in ``SIGNET_TRANSCRIPT_ROOTS`` (``os.pathsep``
separated, absolute paths only). A ``transcript_path`` elsewhere, or a
symlink, is not read.
"""

from __future__ import annotations

import os

from signet_sdk.plugin import harness_home, transcript_roots_with

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["transcript_roots"]


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a Claude Code ``transcript_path`` may resolve into."""
    config_dir = harness_home(env, "CLAUDE_CONFIG_DIR", ".claude")
    return transcript_roots_with(env, os.path.join(config_dir, "projects"))
