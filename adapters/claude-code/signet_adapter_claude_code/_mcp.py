"""The memory tools' MCP server entry in Claude Code's config files.

Claude Code reads MCP servers from ``mcpServers`` in the project's
``.mcp.json`` (and runs them in a project once approved, e.g. through
``enabledMcpjsonServers`` in that project's settings) or in the user-scope
``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json`` when set). These
functions add and remove only our entry and approval.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

__all__ = ["MCP_NAME", "approve_mcp", "mcp_entry", "mcp_path", "merge_mcp", "unmerge_mcp"]


#: The name our MCP server is registered under (tools appear as ``mcp__signet__<tool>``).
MCP_NAME = "signet"


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


def merge_mcp(config: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """``config`` with our server under ``mcpServers``; every other key and server kept."""
    out: dict[str, Any] = json.loads(json.dumps(config))
    servers = out.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError("'mcpServers' must be an object")
    servers[MCP_NAME] = entry
    return out


def approve_mcp(settings: dict[str, Any]) -> dict[str, Any]:
    """Project ``settings`` that approve our ``.mcp.json`` server (``enabledMcpjsonServers``)."""
    out: dict[str, Any] = json.loads(json.dumps(settings))
    enabled = out.setdefault("enabledMcpjsonServers", [])
    if not isinstance(enabled, list):
        raise ValueError("'enabledMcpjsonServers' must be a list")
    if MCP_NAME not in enabled:
        enabled.append(MCP_NAME)
    return out


def unmerge_mcp(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` without our server or approval, and without what only they filled."""
    out: dict[str, Any] = json.loads(json.dumps(config))
    servers = out.get("mcpServers")
    if isinstance(servers, dict) and MCP_NAME in servers:
        del servers[MCP_NAME]
        if not servers:
            del out["mcpServers"]
    enabled = out.get("enabledMcpjsonServers")
    if isinstance(enabled, list) and MCP_NAME in enabled:
        enabled.remove(MCP_NAME)
        if not enabled:
            del out["enabledMcpjsonServers"]
    return out


def mcp_path(project: str | None, env: dict[str, str]) -> Path:
    """Where Claude Code reads MCP servers: the project's ``.mcp.json`` or the user's file."""
    if project:
        return Path(project).expanduser().absolute() / ".mcp.json"
    config_dir = env.get("CLAUDE_CONFIG_DIR", "").strip()
    base = Path(config_dir).expanduser() if config_dir else Path.home()
    return base.absolute() / ".claude.json"
