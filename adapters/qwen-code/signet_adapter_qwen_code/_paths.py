"""Where Qwen Code keeps its files, and where a ``transcript_path`` may be read from.

Qwen Code's own folder is ``$QWEN_HOME`` when that is set, else ``~/.qwen``:
the user's ``settings.json`` lives there. Session records (one JSON-lines
file per session, ``projects/<project>/chats/<session id>.jsonl``) live
under its runtime folder: ``$QWEN_RUNTIME_DIR`` when set, else that same
folder. Every hook payload names the session's file as ``transcript_path``.

Transcripts are read only below ``<runtime folder>/projects`` and
directories listed in ``SIGNET_TRANSCRIPT_ROOTS`` (``os.pathsep``
separated, absolute paths only; list a folder there when the
``advanced.runtimeOutputDir`` setting moves the records elsewhere). A path
elsewhere, or a symlink, is not read.
"""

from __future__ import annotations

import os

from signet_sdk.plugin import transcript_roots_with, user_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["qwen_dir", "runtime_dir", "transcript_roots"]


def qwen_dir(env: Mapping[str, str]) -> str:
    """The user's Qwen Code folder: ``$QWEN_HOME``, else ``~/.qwen``."""
    explicit = env.get("QWEN_HOME", "").strip()
    if explicit:
        return os.path.expanduser(explicit)
    return os.path.join(user_home(env), ".qwen")


def runtime_dir(env: Mapping[str, str]) -> str:
    """Where Qwen Code records sessions: ``$QWEN_RUNTIME_DIR``, else :func:`qwen_dir`."""
    explicit = env.get("QWEN_RUNTIME_DIR", "").strip()
    return os.path.expanduser(explicit) if explicit else qwen_dir(env)


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a Qwen Code ``transcript_path`` may resolve into."""
    return transcript_roots_with(env, os.path.join(runtime_dir(env), "projects"))
