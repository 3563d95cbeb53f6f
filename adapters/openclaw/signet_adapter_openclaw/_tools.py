"""The memory tools the OpenClaw plugin registers, as the installer writes them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["TOOL_PREFIX", "plugin_manifest", "shim_tools"]

#: How long a model's memory tool call may take before OpenClaw gets an error back.
_TOOL_TIMEOUT_MS = 30_000
#: Before each tool's name in OpenClaw, whose own memory tools use the plain names.
TOOL_PREFIX = "signet_"


def shim_tools(env: Mapping[str, str]) -> list[dict[str, Any]]:
    """The memory tools the plugin registers with OpenClaw (``api.registerTool``).

    From the SDK's one tool set: description and parameters (JSON Schema) as
    they are; the name OpenClaw shows carries a ``signet_`` prefix, because
    OpenClaw's own memory tools already hold ``memory_search`` and
    ``memory_get`` (a clash drops ours), and ``tool`` keeps the tool set's
    name for the call. Calls go back through the shared transport.
    ``secrets_exec`` is listed only when ``SIGNET_TOOLS_ALLOW_EXEC=1`` at
    install time.
    """
    from signet_sdk.tools import tool_definitions

    allow = env.get("SIGNET_TOOLS_ALLOW_EXEC") == "1"
    return [
        {
            "name": TOOL_PREFIX + tool["name"],
            "tool": tool["name"],
            "description": tool["description"],
            "parameters": tool["inputSchema"],
            "timeoutMs": _TOOL_TIMEOUT_MS,
        }
        for tool in tool_definitions(allow_commands=allow)
    ]


def plugin_manifest(text: str, tools: Sequence[Mapping[str, Any]]) -> str:
    """The packaged manifest with ``contracts.tools`` naming every tool the plugin registers.

    OpenClaw rejects a registered tool its plugin's manifest does not declare,
    and the list depends on the install (``secrets_exec``), so it is written here.
    """
    manifest = json.loads(text)
    manifest["contracts"] = {"tools": [tool["name"] for tool in tools]}
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
