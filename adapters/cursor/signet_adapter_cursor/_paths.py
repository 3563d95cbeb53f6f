"""Where Cursor keeps its files, and where a transcript may be read from.

Cursor's folder is ``~/.cursor`` (``hooks.json``, ``mcp.json``); the agent
writes each conversation as JSON lines under
``~/.cursor/projects/<workspace slug>/agent-transcripts/``, nested
(``<id>/<id>.jsonl``, the editor) or flat (``<id>.jsonl``, the ``agent``
CLI). Hook payloads name that file in ``transcript_path``, which is null
when transcripts are off and in the CLI, so :func:`find_transcript` looks
for it where Cursor writes it.

Transcripts are read only under ``~/.cursor/projects`` plus the directories
in ``SIGNET_TRANSCRIPT_ROOTS`` (``os.pathsep`` separated, absolute paths
only); a path elsewhere, or a symlink, is not read. Standard library
``os`` only: the hook process imports this for every write.
"""

from __future__ import annotations

import os

from signet_sdk.plugin import harness_home, transcript_roots_with

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["cursor_dir", "find_transcript", "project_slugs", "transcript_roots"]


def cursor_dir(env: Mapping[str, str]) -> str:
    """``~/.cursor`` (``HOME`` from ``env`` when set)."""
    return harness_home(env, None, ".cursor")


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a Cursor transcript path may resolve into."""
    return transcript_roots_with(env, os.path.join(cursor_dir(env), "projects"))


def project_slugs(workspace: str) -> list[str]:
    """The folder names Cursor may give ``workspace`` under ``~/.cursor/projects``.

    Published readers of those folders differ in one detail: one turns
    every character that is not an ASCII letter or digit into ``-``, the
    other only ``/`` and ``.``. They agree for ordinary paths; both are
    tried, the stricter first.
    """
    rest = workspace.lstrip("/")
    strict = "".join(c if c.isascii() and c.isalnum() else "-" for c in rest)
    loose = rest.replace("/", "-").replace(".", "-")
    return [strict] if loose == strict else [strict, loose]


def _safe_id(conversation: str) -> bool:
    """Whether ``conversation`` can be a file name as is (no separators, no ``..``)."""
    return bool(conversation) and all(
        c.isascii() and (c.isalnum() or c in "-_") for c in conversation
    )


def find_transcript(env: Mapping[str, str], workspace: str, conversation: str) -> str | None:
    """The transcript Cursor wrote for ``conversation`` in ``workspace``, if it is there."""
    if not workspace or not _safe_id(conversation):
        return None
    base = os.path.join(cursor_dir(env), "projects")
    for slug in project_slugs(workspace):
        folder = os.path.join(base, slug, "agent-transcripts")
        for path in (
            os.path.join(folder, conversation, conversation + ".jsonl"),
            os.path.join(folder, conversation + ".jsonl"),
        ):
            if os.path.isfile(path):
                return path
    return None
