"""Claude Code plugin for signet-sdk: translation, installer and vectors.

Claude Code runs a command for each hook event; the installer registers
``signet-sdk hook claude-code <Event>`` for every event below, and the core's
hook runner does the rest through this package's translator. Per event:

* SessionStart and SubagentStart use the session-start budget
  (``SIGNET_SESSION_START_TIMEOUT``, 15 s), UserPromptSubmit the prompt
  budget (``SIGNET_PROMPT_SUBMIT_TIMEOUT``, 5 s), the rest
  ``SIGNET_FETCH_TIMEOUT`` (10 s).
* SessionEnd only hands its call to the outbox and a detached sender:
  Claude Code kills SessionEnd hooks after 1.5 s (before 2.1.74) or after
  ``CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS``, and the daemon's session-end
  can take longer than that.
* SessionStart flushes earlier writes still pending (a daemon that was down
  last session).

Importing this package costs almost nothing: a hook process imports it on
every prompt, so it holds plain data and the standard-library translator.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, TRANSLATOR, ClaudeCodeTranslator

__all__ = ["EVENTS", "PLUGIN", "TRANSLATOR", "ClaudeCodeTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.command_hooks(
    ClaudeCodeTranslator, description="Claude Code command hooks (settings.json)"
)
