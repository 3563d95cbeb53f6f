"""Kimi Code plugin for signet-sdk: translation, installer and vectors.

Kimi Code (``@moonshot-ai/kimi-code``) runs a command for each ``[[hooks]]``
entry of its ``config.toml`` (JSON on stdin; only UserPromptSubmit's stdout
reaches the model); the installer registers ``signet-sdk hook kimi
<Event>`` there and the memory tools as the MCP server ``signet`` in
``mcp.json``, and the core's hook runner does the rest through this
package's translator. Per event:

* SessionStart uses the session-start budget, UserPromptSubmit the prompt
  budget, the rest ``SIGNET_FETCH_TIMEOUT``.
* SessionEnd only hands its calls to the outbox and a detached sender: it
  should not hold up the exit. (PostCompact sends its summary itself, the
  outbox first: Kimi does not wait for that hook anyway.)
* SessionStart flushes earlier writes still pending (a daemon that was down
  last session), and sends the late ends of sessions whose Kimi process has
  gone (``kimi -p`` fires no SessionEnd).

Importing this package costs almost nothing: a hook process imports it on
every prompt.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, TRANSLATOR, KimiTranslator

__all__ = ["EVENTS", "PLUGIN", "TRANSLATOR", "KimiTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.command_hooks(
    KimiTranslator,
    description="Kimi Code command hooks ([[hooks]] in config.toml) and the memory tools over MCP",
)
