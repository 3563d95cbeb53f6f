"""OpenClaw plugin for signet-sdk: translation, OpenClaw plugin, installer, vectors.

OpenClaw loads plugins from ``<state dir>/extensions/<name>`` (a folder with
``package.json``, ``openclaw.plugin.json`` and the module they name).
``signet-sdk install openclaw`` puts ours there (``plugin/`` of this
package, beside the core's shared transport) and enables it in OpenClaw's
config. The plugin forwards OpenClaw's lifecycle hooks to the adapter server
(or, while none runs, to ``signet-sdk hook openclaw <hook>``) and applies
the structured output this package's translator renders; every decision is
made here, in Python. Per hook:

* ``session_start`` uses the session-start budget
  (``SIGNET_SESSION_START_TIMEOUT``, 15 s) and flushes writes still pending
  from a session whose daemon was down; the prompt hooks the prompt budget
  (``SIGNET_PROMPT_SUBMIT_TIMEOUT``, 5 s); the rest ``SIGNET_FETCH_TIMEOUT``.
* ``agent_end``, ``after_compaction`` and ``session_end`` only write: they
  answer once the write is in the durable outbox, and delivery continues in
  the background, so OpenClaw's turn and its shutdown never wait on the
  daemon.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, SHIM_EVENTS, TRANSLATOR, OpenClawTranslator

__all__ = ["EVENTS", "PLUGIN", "SHIM_EVENTS", "TRANSLATOR", "OpenClawTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.in_harness(
    OpenClawTranslator,
    description="OpenClaw plugin (state dir extensions/, enabled in openclaw.json)",
    shims="signet_adapter_openclaw.plugin",
)
