"""Hermes Agent plugin for signet-sdk: an in-process MemoryProvider, its translator and vectors.

Hermes (PyPI ``hermes-agent``) is a Python harness with a memory-provider
plugin API, so the adapter runs inside it: no hook process and no adapter
server. ``signet-sdk install hermes-agent`` writes the small plugin folder
Hermes loads from ``$HERMES_HOME/plugins/signet/`` and selects it with
``memory.provider: signet`` in ``$HERMES_HOME/config.yaml``; the folder's
``register(ctx)`` builds :class:`~signet_adapter_hermes.provider.SignetMemoryProvider`.
Each MemoryProvider hook is one event below, translated by this package's
pure translator and run through the core's ``dispatch``:

* ``initialize`` uses the session-start budget; ``prefetch`` the prompt
  budget (capped under Hermes's own 8 s prefetch limit); the rest
  ``SIGNET_FETCH_TIMEOUT``.
* Writes (``sync_turn``, ``on_session_end``, ``on_session_switch``,
  ``on_memory_write``, ``on_delegation``) return once the write is in the
  durable outbox; delivery runs on a background thread.
"""

from __future__ import annotations

from signet_sdk.plugin import HarnessPlugin

from ._translate import EVENTS, TRANSLATOR, HermesTranslator

__all__ = ["EVENTS", "PLUGIN", "TRANSLATOR", "HermesTranslator"]

#: What this package registers in the ``signet_sdk.adapters`` entry-point group.
PLUGIN = HarnessPlugin.in_harness(
    HermesTranslator, description="Hermes Agent memory provider ($HERMES_HOME/plugins/signet)"
)
