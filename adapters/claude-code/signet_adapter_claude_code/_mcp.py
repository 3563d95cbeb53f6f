"""The memory tools' MCP server entry in Claude Code's config files, as data.

Claude Code reads MCP servers from ``mcpServers`` in the project's
``.mcp.json`` (and runs them in a project once approved, e.g. through
``enabledMcpjsonServers`` in that project's settings) or in the user-scope
``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json`` when set). These
functions say what such a file should hold with or without our entry and
approval; :mod:`.install` then edits only those members of the text.

The ``signet`` member is ours only while it runs ``signet-sdk mcp`` (from
whatever environment): a server of the user's under that name is refused on
install and kept on uninstall, never replaced or removed.
"""

from __future__ import annotations

import copy
import shlex
from pathlib import Path
from typing import Any

from signet_sdk.installing.files import InstallError
from signet_sdk.installing.mcp import is_sdk_server

__all__ = [
    "MCP_NAME",
    "approve_mcp",
    "check_mcp",
    "mcp_entry",
    "mcp_path",
    "merge_mcp",
    "unapprove_mcp",
    "unmerge_mcp",
]


#: The name our MCP server is registered under (tools appear as ``mcp__signet__<tool>``).
MCP_NAME = "signet"
_APPROVED = "enabledMcpjsonServers"


def mcp_entry(hook_command: str, hook_args: int) -> dict[str, Any]:
    """The ``mcpServers`` entry: ``signet-sdk mcp`` on stdio, labelled as Claude Code.

    ``hook_command`` is the registered hook command; its program (and
    ``-m signet_sdk`` when there is no script) runs the ``mcp`` subcommand.
    """
    words = shlex.split(hook_command)[:-hook_args]
    return {
        "type": "stdio",
        "command": words[0],
        "args": [*words[1:], "mcp"],
        "env": {"SIGNET_HARNESS": "claude-code"},
    }


def check_mcp(config: Any, path: Path) -> dict[str, Any]:
    """``config`` when it is an object whose ``mcpServers``, if any, is one; else refused."""
    if not isinstance(config, dict):
        raise InstallError(f"{path}: expected a JSON object at the top level")
    servers = config.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise InstallError(f"{path}: 'mcpServers' must be an object")
    return config


def merge_mcp(config: dict[str, Any], entry: dict[str, Any], path: Path) -> dict[str, Any]:
    """Checked ``config`` with our server under ``mcpServers``; every other key and server kept.

    A ``signet`` server that does not run ``signet-sdk mcp`` is the user's:
    refused, naming the file, rather than replaced.
    """
    current = (config.get("mcpServers") or {}).get(MCP_NAME)
    if current is not None and not is_sdk_server(current):
        raise InstallError(
            f"{path}: mcpServers.{MCP_NAME} is another server; left untouched "
            "(rename it, or install with --no-mcp)"
        )
    out = copy.deepcopy(config)
    out.setdefault("mcpServers", {})[MCP_NAME] = entry
    return out


def unmerge_mcp(config: dict[str, Any], drop_empty: bool) -> dict[str, Any]:
    """Checked ``config`` without our server (a user's ``signet`` stays).

    ``drop_empty``: ``mcpServers`` goes too when ours was all it held (the
    install created it, or there is no record of whether it did).
    """
    out = copy.deepcopy(config)
    servers = out.get("mcpServers")
    if not isinstance(servers, dict) or not is_sdk_server(servers.get(MCP_NAME)):
        return out
    del servers[MCP_NAME]
    if drop_empty and not servers:
        del out["mcpServers"]
    return out


def approve_mcp(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    """Project ``settings`` that approve our ``.mcp.json`` server (``enabledMcpjsonServers``)."""
    out = copy.deepcopy(settings)
    enabled = out.setdefault(_APPROVED, [])
    if not isinstance(enabled, list):
        raise InstallError(f"{path}: '{_APPROVED}' must be a list")
    if MCP_NAME not in enabled:
        enabled.append(MCP_NAME)
    return out


def unapprove_mcp(settings: dict[str, Any]) -> dict[str, Any]:
    """Project ``settings`` without our approval, and without the list when only it filled it."""
    out = copy.deepcopy(settings)
    enabled = out.get(_APPROVED)
    if isinstance(enabled, list) and MCP_NAME in enabled:
        enabled.remove(MCP_NAME)
        if not enabled:
            del out[_APPROVED]
    return out


def mcp_path(project: str | None, env: dict[str, str]) -> Path:
    """Where Claude Code reads MCP servers: the project's ``.mcp.json`` or the user's file."""
    if project:
        return Path(project).expanduser().absolute() / ".mcp.json"
    config_dir = env.get("CLAUDE_CONFIG_DIR", "").strip()
    base = Path(config_dir).expanduser() if config_dir else Path.home()
    return base.absolute() / ".claude.json"
