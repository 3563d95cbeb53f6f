"""Gemini CLI plugin for signet-sdk: translation, installer and vectors.

Gemini CLI runs a command for each hook event (JSON on stdin, JSON back on
stdout); the installer registers ``signet-sdk hook gemini <Event>`` in its
``settings.json`` and the memory tools as the MCP server ``signet``, and
the core's hook runner does the rest through this package's translator.
Per event:

* SessionStart uses the session-start budget, BeforeAgent the prompt
  budget, the rest ``SIGNET_FETCH_TIMEOUT``.
* SessionEnd only hands its calls to the outbox and a detached sender:
  Gemini does not wait for SessionEnd hooks.
* SessionStart flushes earlier writes still pending (a daemon that was down
  last session).

Importing this package costs almost nothing: a hook process imports it on
every prompt.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, TRANSLATOR, GeminiTranslator

__all__ = ["EVENTS", "PLUGIN", "TRANSLATOR", "GeminiTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.command_hooks(
    GeminiTranslator,
    description="Gemini CLI command hooks (settings.json) and the memory tools over MCP",
)
