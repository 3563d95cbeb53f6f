"""pi's directories, as pi 0.73.1 resolves them, and where a session file may be read.

The agent directory is ``$PI_CODING_AGENT_DIR`` (a leading ``~`` expanded),
else ``~/.pi/agent``. Sessions live under ``<agent dir>/sessions`` unless
``$PI_CODING_AGENT_SESSION_DIR`` or the ``sessionDir`` of the agent
directory's ``settings.json`` moves them; all three are transcript roots,
plus any absolute directories in ``SIGNET_TRANSCRIPT_ROOTS``
(``os.pathsep`` separated). A session file elsewhere (``--session-dir``, a
project's own ``sessionDir``) is not read; its session-end goes without a
transcript.
"""

from __future__ import annotations

import os

from signet_sdk.plugin import transcript_roots_with, user_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["agent_dir", "extensions_dir", "transcript_roots"]


def _expand(path: str, env: Mapping[str, str]) -> str:
    if path == "~":
        return user_home(env)
    if path.startswith("~/"):
        return os.path.join(user_home(env), path[2:])
    return path


def agent_dir(env: Mapping[str, str]) -> str:
    """pi's agent directory: ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``."""
    explicit = env.get("PI_CODING_AGENT_DIR", "").strip()
    if explicit:
        return os.path.abspath(_expand(explicit, env))
    return os.path.join(user_home(env), ".pi", "agent")


def extensions_dir(env: Mapping[str, str]) -> str:
    """Where pi discovers global extensions: ``<agent dir>/extensions``."""
    return os.path.join(agent_dir(env), "extensions")


def _settings_session_dir(root: str, env: Mapping[str, str]) -> str | None:
    from signet_sdk.plugin import json_loads

    try:
        with open(os.path.join(root, "settings.json"), "rb") as fh:
            settings = json_loads(fh.read())
    except (OSError, ValueError):
        return None
    value = settings.get("sessionDir") if isinstance(settings, dict) else None
    if not isinstance(value, str) or not value.strip():
        return None
    path = _expand(value.strip(), env)
    return path if os.path.isabs(path) else None


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a pi session file may resolve into."""
    root = agent_dir(env)
    roots = [os.path.join(root, "sessions")]
    session_dir = env.get("PI_CODING_AGENT_SESSION_DIR", "").strip()
    if session_dir:
        expanded = _expand(session_dir, env)
        if os.path.isabs(expanded):
            roots.append(expanded)
    configured = _settings_session_dir(root, env)
    if configured:
        roots.append(configured)
    return transcript_roots_with(env, *roots)
