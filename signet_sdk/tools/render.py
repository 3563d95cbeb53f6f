"""The tool set in the shapes model APIs take: OpenAI (chat and responses), Anthropic, neutral.

All renderings read the same :data:`~signet_sdk.tools.definitions.TOOLS`:
name, description and the input model's JSON Schema. MCP reads them too
(:mod:`signet_sdk.tools.mcp`).
"""

from __future__ import annotations

from typing import Any, Literal

from signet_sdk.tools.runner import enabled_tools

__all__ = ["anthropic_tools", "openai_tools", "tool_definitions"]


def tool_definitions(*, allow_commands: bool = False) -> list[dict[str, Any]]:
    """The neutral rendering: ``name``, ``description``, ``inputSchema`` (MCP's field names).

    What the adapter server lists at ``GET /v1/tools`` and what installers
    write for JavaScript shims that register the tools natively.
    """
    return [
        {"name": t.name, "description": t.description, "inputSchema": t.input_schema()}
        for t in enabled_tools(allow_commands=allow_commands)
    ]


def openai_tools(
    api: Literal["chat", "responses"] = "chat", *, allow_commands: bool = False
) -> list[dict[str, Any]]:
    """Tool definitions for OpenAI: chat completions (nested ``function``) or responses (flat)."""
    out = []
    for tool in enabled_tools(allow_commands=allow_commands):
        spec = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.input_schema(),
        }
        if api == "chat":
            out.append({"type": "function", "function": spec})
        else:
            out.append({"type": "function", **spec})
    return out


def anthropic_tools(*, allow_commands: bool = False) -> list[dict[str, Any]]:
    """Tool definitions for Anthropic's Messages API (``input_schema``)."""
    return [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema()}
        for t in enabled_tools(allow_commands=allow_commands)
    ]
