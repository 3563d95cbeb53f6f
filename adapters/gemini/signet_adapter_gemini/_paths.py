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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["gemini_dir", "gemini_home", "transcript_roots"]


def gemini_home(env: Mapping[str, str]) -> str:
    """``$GEMINI_CLI_HOME``, else ``$HOME`` (else the account's home directory)."""
    for name in ("GEMINI_CLI_HOME", "HOME"):
        value = env.get(name, "").strip()
        if value:
            return value
    return os.path.expanduser("~")


def gemini_dir(env: Mapping[str, str]) -> str:
    """The user's ``.gemini`` folder (user settings, chats, trusted folders)."""
    return os.path.join(gemini_home(env), ".gemini")


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a Gemini ``transcript_path`` may resolve into."""
    home = gemini_home(env)
    roots = [os.path.join(home, ".gemini", "tmp"), os.path.join(home, ".cache", ".gemini", "tmp")]
    extra = env.get("SIGNET_TRANSCRIPT_ROOTS", "")
    roots += [p.strip() for p in extra.split(os.pathsep) if p.strip() and os.path.isabs(p.strip())]
    return roots
