"""Cursor plugin for signet-sdk: translation, installer and vectors.

Cursor runs a command for each hook event listed in ``hooks.json``
(``~/.cursor/hooks.json``, or a project's ``.cursor/hooks.json``); the
installer registers ``signet-sdk hook cursor <event>`` for the five events
below and the memory tools' MCP server in ``mcp.json``, and the core's hook
runner does the rest through this package's translator. Per event:

* ``sessionStart`` uses the session-start budget and puts the daemon's
  context into Cursor's ``additional_context``; it also flushes earlier
  writes still pending (a daemon that was down last session).
* ``beforeSubmitPrompt`` uses the prompt budget; Cursor takes no context
  there, so it only records the prompt and lets it go.
* ``stop`` and ``preCompact`` use ``SIGNET_FETCH_TIMEOUT``.
* ``sessionEnd`` only hands its call to the outbox and a detached sender:
  Cursor does not wait for it.

Importing this package costs almost nothing: a hook process imports it on
every prompt.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, TRANSLATOR, CursorTranslator

__all__ = ["EVENTS", "PLUGIN", "TRANSLATOR", "CursorTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.command_hooks(
    CursorTranslator, description="Cursor command hooks (hooks.json) and MCP tools (mcp.json)"
)
