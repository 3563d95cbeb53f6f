"""pi coding agent plugin for signet-sdk: translation, extension shim, installer, vectors.

pi loads extensions (JavaScript modules) from ``<agent dir>/extensions``.
``signet-sdk install pi`` puts ours there: ``shim/index.js`` beside the
core's shared transport. The shim forwards pi's lifecycle events to the
adapter server (or, while none runs, to ``signet-sdk hook pi <event>``) and
applies the structured output this package's translator renders; every
decision is made here, in Python. Per event:

* ``session_start`` uses the session-start budget
  (``SIGNET_SESSION_START_TIMEOUT``, 15 s) and flushes writes still pending
  from a session whose daemon was down; ``input`` the prompt budget
  (``SIGNET_PROMPT_SUBMIT_TIMEOUT``, 5 s); the rest ``SIGNET_FETCH_TIMEOUT``.
* ``agent_end``, ``session_compact``, ``session_before_fork`` and
  ``session_shutdown`` only write: they answer once the write is in the
  durable outbox, and delivery continues in the background, so pi's turn
  and its exit never wait on the daemon.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, SHIM_EVENTS, TRANSLATOR, PiTranslator

__all__ = ["EVENTS", "PLUGIN", "SHIM_EVENTS", "TRANSLATOR", "PiTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.in_harness(
    PiTranslator, description="pi coding agent extension (agent dir extensions/)"
)
