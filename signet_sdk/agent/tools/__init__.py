"""Tools for :mod:`signet_sdk.agent`: the :class:`Tool` interface and the :class:`ToolRegistry`.

A session offers the tools of one registry: the memory tools of
:mod:`signet_sdk.tools` (read from their one definition), functions made
tools with :func:`tool`, and the tools of MCP servers (:class:`McpTools`).
The registry renders their specs for the model, runs the model's calls
(a failure is an error result the model reads, never an exception) and
runs the research tools before generation, together, within a deadline.
"""

from __future__ import annotations

from signet_sdk.agent.tools.base import CallContext, Tool, ToolFailure
from signet_sdk.agent.tools.functions import FunctionTool, tool
from signet_sdk.agent.tools.mcp import McpServerError, McpTool, McpTools
from signet_sdk.agent.tools.memory import MemoryTool
from signet_sdk.agent.tools.registry import ToolRegistry
from signet_sdk.agent.tools.results import ResearchResults, SkippedTool, render_content

__all__ = [
    "CallContext",
    "FunctionTool",
    "McpServerError",
    "McpTool",
    "McpTools",
    "MemoryTool",
    "ResearchResults",
    "SkippedTool",
    "Tool",
    "ToolFailure",
    "ToolRegistry",
    "render_content",
    "tool",
]
