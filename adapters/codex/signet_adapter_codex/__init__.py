"""Codex CLI plugin for signet-sdk: translation, installer and vectors.

Codex runs a command for each hook event (JSON on stdin, JSON back, parsed
against a strict schema); the installer registers
``signet-sdk hook codex <Event>`` in ``hooks.json`` and records each hook's
trust hash in ``config.toml``, and the core's hook runner does the rest
through this package's translator. Per event:

* SessionStart and SubagentStart use the session-start budget, UserPromptSubmit
  the prompt budget, the rest ``SIGNET_FETCH_TIMEOUT``.
* SessionEnd only hands its call to the outbox and a detached sender: Codex
  clamps SessionEnd hooks to 3 s.
* SessionStart flushes earlier writes still pending (a daemon that was down
  last session).

Importing this package costs almost nothing: a hook process imports it on
every prompt.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, TRANSLATOR, CodexTranslator

__all__ = ["EVENTS", "PLUGIN", "TRANSLATOR", "CodexTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.command_hooks(
    CodexTranslator, description="Codex CLI command hooks (hooks.json, trusted in config.toml)"
)
