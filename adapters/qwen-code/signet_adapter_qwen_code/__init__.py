"""Qwen Code plugin for signet-sdk: translation, installer and vectors.

Qwen Code (``@qwen-code/qwen-code``) runs a command for each hook event,
in Claude Code's shape (JSON on stdin, JSON back on stdout); the installer
registers ``signet-sdk hook qwen-code <Event>`` in its ``settings.json`` and
the memory tools as the MCP server ``signet``, and the core's hook runner
does the rest through this package's translator. Per event:

* SessionStart and SubagentStart use the session-start budget
  (``SIGNET_SESSION_START_TIMEOUT``, 15 s), UserPromptSubmit the prompt
  budget (``SIGNET_PROMPT_SUBMIT_TIMEOUT``, 5 s), the rest
  ``SIGNET_FETCH_TIMEOUT`` (10 s).
* SessionStart flushes earlier writes still pending (a daemon that was down),
  and hands the session-ends it finds owed (sessions whose Qwen Code process
  ended without a SessionEnd, as every headless run does) to the outbox and
  a detached sender.
* SessionEnd only hands its call to the outbox and a detached sender: Qwen
  Code is closing and need not wait for the daemon.

Importing this package costs almost nothing: a hook process imports it on
every prompt, so it holds plain data and the standard-library translator.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, TRANSLATOR, QwenCodeTranslator

__all__ = ["EVENTS", "PLUGIN", "TRANSLATOR", "QwenCodeTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.command_hooks(
    QwenCodeTranslator,
    description="Qwen Code command hooks (settings.json) and the memory tools over MCP",
)
