"""The memory tools' MCP server in Kimi Code's ``mcp.json``.

Kimi Code reads MCP servers from ``mcpServers`` in ``$KIMI_CODE_HOME/mcp.json``
(``~/.kimi-code/mcp.json``) and, for a folder the user trusted, in the
project's ``.kimi-code/mcp.json``; an entry with a ``command`` is a stdio
server, with optional ``args`` and ``env`` (MoonshotAI/kimi-code
``docs/en/customization/mcp.md``). Its tools reach the model as
``mcp__signet__<tool>``. Only our member is added, replaced or removed, as
text (:mod:`signet_sdk.installing.json5edit`), so every other byte of the
file stays. A server of the user's already called ``signet`` is left alone:
the install is refused, naming it.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from signet_sdk.installing import json5edit as j5
from signet_sdk.installing.command import runs_sdk
from signet_sdk.installing.files import InstallError, parse_config

__all__ = ["MCP_NAME", "add_server", "is_our_server", "mcp_entry", "mcp_normal", "remove_server"]

#: The name our MCP server is registered under.
MCP_NAME = "signet"
_PATH = ["mcpServers", MCP_NAME]


def mcp_entry(sdk_words: list[str]) -> dict[str, Any]:
    """Our ``mcpServers`` entry: ``signet-sdk mcp`` on stdio, labelled as Kimi Code's."""
    return {
        "command": sdk_words[0],
        "args": [*sdk_words[1:], "mcp"],
        "env": {"SIGNET_HARNESS": "kimi"},
    }


def is_our_server(entry: Any) -> bool:
    """Whether an ``mcpServers`` entry runs ``signet-sdk mcp`` (from any environment)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    args = entry.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return False
    return runs_sdk({"command": shlex.join([entry["command"], *args])}, ("mcp",))


def _servers(path: Path, text: str) -> dict[str, Any]:
    root = parse_config(path, text, "JSON", objects=("mcpServers",))
    servers = j5.find(root, ["mcpServers"])
    return {} if servers is None else dict(j5.plain(servers))


def add_server(path: Path, text: str | None, entry: dict[str, Any]) -> str:
    """The file's text with our server in it (a new file when ``text`` is None or blank)."""
    if text is None or not text.strip():
        return json.dumps({"mcpServers": {MCP_NAME: entry}}, indent=2) + "\n"
    current = _servers(path, text).get(MCP_NAME)
    if current is not None and not is_our_server(current):
        raise InstallError(
            f"{path}: mcpServers.{MCP_NAME} is another server; left untouched "
            "(rename it, or install with --no-mcp)"
        )
    if current == entry:
        return text
    try:
        new, _ = j5.set_member(text, _PATH, entry)
    except j5.Json5Error as exc:
        raise InstallError(f"{path}: {exc}; left untouched") from None
    return new


def remove_server(path: Path, text: str | None, *, drop_empty: bool) -> str | None:
    """The file's text without our server (and without ``mcpServers`` if ``drop_empty``
    and nothing else is left in it); ``text`` itself when ours is not there."""
    if text is None or not text.strip():
        return text
    servers = _servers(path, text)
    if not is_our_server(servers.get(MCP_NAME)):
        return text
    new = j5.remove_member(text, _PATH)
    if drop_empty and len(servers) == 1:
        new = j5.remove_member(new, ["mcpServers"])
    return new


def mcp_normal(text: str | None) -> dict[str, Any]:
    """An MCP file's content with an empty ``mcpServers`` left out: ``{}`` is no file."""
    if text is None or not text.strip():
        return {}
    try:
        data = j5.plain(j5.parse(text))
    except j5.Json5Error:
        return {"unreadable": text}
    if not isinstance(data, dict):
        return {"unreadable": text}
    return {k: v for k, v in data.items() if not (k == "mcpServers" and not v)}
