"""OpenCode plugin for signet-sdk: translation, plugin shim, installer, vectors.

OpenCode loads every ``plugins/*.js`` of its config directory
(``~/.config/opencode``) and of a project's ``.opencode`` directory.
``signet-sdk install opencode`` puts ours there: ``signet-sdk.js`` and, in
``signet-sdk/`` beside it, the core's shared transport and the event table.
The shim forwards OpenCode's hooks and bus events to the adapter server (or,
while none runs, to ``signet-sdk hook opencode <event>``) and applies the
structured output this package's translator renders; every decision is made
here, in Python. Per event:

* ``chat.message`` uses the prompt budget (``SIGNET_PROMPT_SUBMIT_TIMEOUT``,
  5 s): it starts the session on its first prompt and asks for the recall,
  both before OpenCode builds the model request;
* ``session.idle``, ``session.compacted`` and the held ``session.end`` only
  write: they answer once the write is in the durable outbox, and delivery
  continues in the background;
* the rest use ``SIGNET_FETCH_TIMEOUT``.

The memory tools reach OpenCode's model over MCP: the installer registers
``signet-sdk mcp`` as OpenCode's local MCP server ``signet``.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, SHIM_EVENTS, TRANSLATOR, OpenCodeTranslator

__all__ = ["EVENTS", "PLUGIN", "SHIM_EVENTS", "TRANSLATOR", "OpenCodeTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.in_harness(
    OpenCodeTranslator,
    description="OpenCode plugin (plugins/signet-sdk.js) and MCP server",
    tools="mcp",
)
