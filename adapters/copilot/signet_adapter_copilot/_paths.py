"""Where Copilot CLI keeps a session's events, and where the hook may read from.

Copilot CLI writes every session as JSON lines to
``$COPILOT_HOME/session-state/<sessionId>/events.jsonl`` (``COPILOT_HOME``
defaults to ``~/.copilot``) and names that file in the ``transcriptPath`` of
its agentStop, preCompact and subagent payloads. The hook reads it there;
the conversation it derives from it for the daemon is written under the
SDK's own state folder (``copilot-transcripts``). Transcripts are read only
from those two places plus the directories listed in
``SIGNET_TRANSCRIPT_ROOTS`` (``os.pathsep`` separated, absolute paths only);
a path elsewhere, or a symlink, is not read.

Standard library only: the hook process imports this for every write.
"""

from __future__ import annotations

import os

from signet_sdk.plugin import StateFolder, harness_home, state_dir, transcript_roots_with

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "CONVERSATIONS",
    "conversations_dir",
    "copilot_home",
    "events_path",
    "safe_name",
    "transcript_roots",
]

#: The folder, under the SDK's state directory, holding the derived conversations.
CONVERSATIONS = "copilot-transcripts"


def copilot_home(env: Mapping[str, str]) -> str:
    """``$COPILOT_HOME``, else ``~/.copilot`` (``HOME`` from ``env`` when set)."""
    return harness_home(env, "COPILOT_HOME", ".copilot")


#: Whether ``session`` can name a folder: no separator, no ``..``, nothing hidden.
safe_name = StateFolder.fits


def events_path(env: Mapping[str, str], session: str) -> str | None:
    """The session's ``events.jsonl`` as Copilot lays it out, or None for an unusable id."""
    if not safe_name(session):
        return None
    return os.path.join(copilot_home(env), "session-state", session, "events.jsonl")


def conversations_dir(env: Mapping[str, str]) -> str:
    """Where the conversations derived from ``events.jsonl`` are kept (not created here)."""
    return os.path.join(state_dir(env), CONVERSATIONS)


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a transcript path may resolve into."""
    own = os.path.join(copilot_home(env), "session-state")
    return transcript_roots_with(env, own, conversations_dir(env))
