"""Where Kimi Code keeps a session, and where the hook may read from and write to.

Kimi Code's data root is ``$KIMI_CODE_HOME``, else ``~/.kimi-code``
(MoonshotAI/kimi-code ``docs/en/configuration/data-locations.md``). Each
session lives in ``sessions/<workDirKey>/<sessionId>/``: ``state.json``
(written when the session is created, before SessionStart fires) and the
main agent's append-only event log ``agents/main/wire.jsonl``.
``workDirKey`` is ``wd_<slug of the folder name>_<first 12 hex digits of the
SHA-256 of the working directory>``; the hook looks for the session in
every bucket (no hash on the hook path: ``hashlib`` alone costs a hook
process more than all the buckets' ``stat`` calls).

Kimi's hook payloads name no file. The conversation the hook derives from
``wire.jsonl`` for the daemon is written under the SDK's own state folder
(``kimi/transcripts``); transcripts are read only from there, from Kimi's
``sessions`` folder, and from the directories listed in
``SIGNET_TRANSCRIPT_ROOTS`` (``os.pathsep`` separated, absolute paths
only). A path elsewhere, or a symlink, is not read.

Standard library only: the hook process imports this.
"""

from __future__ import annotations

import os

from signet_sdk.plugin import StateFolder, harness_home, state_dir, transcript_roots_with

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "KIMI_STATE",
    "kimi_home",
    "safe_name",
    "session_dir",
    "transcript_roots",
    "transcripts_dir",
    "wire_path",
]

#: The folder, under the SDK's state directory, holding what the Kimi hooks keep.
KIMI_STATE = "kimi"


def kimi_home(env: Mapping[str, str]) -> str:
    """``$KIMI_CODE_HOME``, else ``~/.kimi-code`` (``HOME`` from ``env`` when set)."""
    return harness_home(env, "KIMI_CODE_HOME", ".kimi-code")


#: Whether ``session`` can name a folder: no separator, no ``..``, nothing hidden.
safe_name = StateFolder.fits


def session_dir(env: Mapping[str, str], session: str, cwd: str | None) -> str | None:
    """The folder Kimi keeps ``session`` in (one holding its ``state.json``), or None.

    A session's id is unique across buckets, so every bucket is looked in
    (one ``stat`` each); the bucket named after ``cwd``'s folder first.
    """
    if not safe_name(session):
        return None
    sessions = os.path.join(kimi_home(env), "sessions")
    try:
        buckets = [b for b in os.listdir(sessions) if b.startswith("wd_")]
    except OSError:
        return None
    if cwd:
        named = f"wd_{os.path.basename(cwd.rstrip(os.sep))}_".lower()
        buckets.sort(key=lambda b: not b.lower().startswith(named))
    for bucket in buckets:
        folder = os.path.join(sessions, bucket, session)
        if os.path.isfile(os.path.join(folder, "state.json")):
            return folder
    return None


def wire_path(folder: str) -> str:
    """The main agent's event log in a session folder."""
    return os.path.join(folder, "agents", "main", "wire.jsonl")


def transcripts_dir(env: Mapping[str, str]) -> str:
    """Where the conversations derived from ``wire.jsonl`` are kept (not created here)."""
    return os.path.join(state_dir(env), KIMI_STATE, "transcripts")


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a transcript path may resolve into."""
    own = os.path.join(kimi_home(env), "sessions")
    return transcript_roots_with(env, own, transcripts_dir(env))
