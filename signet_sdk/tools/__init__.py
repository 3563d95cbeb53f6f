"""The tools layer: the memory tool set an agent calls mid-turn, defined once.

``call_tool`` / ``call_tool_async`` run a tool call on a client;
``openai_tools`` and ``anthropic_tools`` render the definitions for model
APIs; ``signet-sdk mcp`` serves them over MCP. Every call goes through an
``AdapterClient`` with a :class:`ToolContext`, never a raw daemon URL.
"""

from __future__ import annotations

from signet_sdk.tools.definitions import TOOLS, Tool, ToolContext
from signet_sdk.tools.render import anthropic_tools, openai_tools, tool_definitions
from signet_sdk.tools.runner import (
    ToolDisabledError,
    ToolError,
    UnknownToolError,
    call_tool,
    call_tool_async,
    enabled_tools,
)

__all__ = [
    "TOOLS",
    "Tool",
    "ToolContext",
    "ToolDisabledError",
    "ToolError",
    "UnknownToolError",
    "anthropic_tools",
    "call_tool",
    "call_tool_async",
    "enabled_tools",
    "openai_tools",
    "tool_definitions",
]
