"""Where Gemini CLI keeps its files, and where a ``transcript_path`` may be read from.

Gemini CLI's home is ``$GEMINI_CLI_HOME`` when set, else the user's home
directory; its settings, chats and temporary files live in ``.gemini``
below it. Each session is recorded as JSON lines under
``.gemini/tmp/<project>/chats/`` (``~/.cache/.gemini/tmp`` under the macOS
``sandbox-exec`` sandbox), and every hook payload names that file as
``transcript_path``. Transcripts are read only below those two folders,
plus any directories listed in ``SIGNET_TRANSCRIPT_ROOTS``
(``os.pathsep`` separated, absolute paths only). A ``transcript_path``
elsewhere, or a symlink, is not read.
"""

from __future__ import annotations

import os

from signet_sdk.plugin import transcript_roots_with, user_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["gemini_dir", "gemini_home", "transcript_roots"]


def gemini_home(env: Mapping[str, str]) -> str:
    """``$GEMINI_CLI_HOME``, else ``$HOME`` (else the account's home directory)."""
    return env.get("GEMINI_CLI_HOME", "").strip() or user_home(env)


def gemini_dir(env: Mapping[str, str]) -> str:
    """The user's ``.gemini`` folder (user settings, chats, trusted folders)."""
    return os.path.join(gemini_home(env), ".gemini")


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a Gemini ``transcript_path`` may resolve into."""
    home = gemini_home(env)
    own = os.path.join(home, ".gemini", "tmp"), os.path.join(home, ".cache", ".gemini", "tmp")
    return transcript_roots_with(env, *own)
