"""GitHub Copilot CLI plugin for signet-sdk: translation, installer and vectors.

Copilot CLI runs a command for each hook event listed in a hook file; the
installer writes our own hook file (``~/.copilot/hooks/signet.json``, or a
project's ``.github/hooks/signet.json``) with ``signet-sdk hook copilot
<event>`` per event, and registers the memory tools' MCP server in
``~/.copilot/mcp-config.json``. The core's hook runner does the rest
through this package's translator. Per event:

* sessionStart and subagentStart use the session-start budget,
  userPromptSubmitted the prompt budget, the rest ``SIGNET_FETCH_TIMEOUT``.
* sessionStart, userPromptSubmitted and sessionEnd hand their writes (a
  compaction summary found in ``events.jsonl``; the session end) to the
  outbox and a detached sender, so context is never held up by a write and
  an exit right after a ``/compact`` loses nothing.
* sessionStart flushes earlier writes still pending (a daemon that was down
  last session).

Importing this package costs almost nothing: a hook process imports it on
every prompt.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, TRANSLATOR, CopilotTranslator

__all__ = ["EVENTS", "PLUGIN", "TRANSLATOR", "CopilotTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.command_hooks(
    CopilotTranslator, description="GitHub Copilot CLI command hooks (hooks/*.json) and MCP tools"
)
