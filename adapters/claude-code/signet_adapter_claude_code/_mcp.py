"""The memory tools' MCP server in Claude Code's config files: where, and what Claude Code adds.

Claude Code reads MCP servers from ``mcpServers`` in the project's
``.mcp.json`` (and runs them in a project once approved, e.g. through
``enabledMcpjsonServers`` in that project's settings) or in the user-scope
``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json`` when set). Our
``signet`` member is spliced in and out by :mod:`signet_sdk.installing.mcp`
(a ``signet`` server of the user's is refused on install and kept on
uninstall); what is Claude Code's own is here: the files, their strict JSON,
the entry's ``type`` and the project's approval.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from signet_sdk.installing.files import InstallError
from signet_sdk.installing.mcp import MCP_NAME, sdk_mcp_entry

__all__ = ["approve_mcp", "check_mcp", "mcp_entry", "mcp_path", "unapprove_mcp"]

_APPROVED = "enabledMcpjsonServers"


def mcp_entry(python: str | None = None) -> dict[str, Any]:
    """The ``mcpServers`` entry: ``signet-sdk mcp`` of ``python``'s environment on stdio.

    Labelled as Claude Code, with the ``type`` Claude Code writes first.
    """
    return {"type": "stdio", **sdk_mcp_entry("claude-code", python)}


def check_mcp(config: Any, path: Path) -> dict[str, Any]:
    """``config`` when it is an object whose ``mcpServers``, if any, is one; else refused."""
    if not isinstance(config, dict):
        raise InstallError(f"{path}: expected a JSON object at the top level")
    servers = config.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise InstallError(f"{path}: 'mcpServers' must be an object")
    return config


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
