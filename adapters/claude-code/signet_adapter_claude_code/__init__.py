"""Claude Code adapter for signet-sdk.

Three ways in, one translation:

* ``signet-claude-code-hook <Event>`` (or ``signet-sdk hook claude-code
  <Event>``): the command Claude Code runs for each hook event;
* ``signet-sdk install claude-code`` / ``uninstall``: merge those hooks into
  Claude Code's ``settings.json`` and take them out again;
* :class:`ClaudeCodeAdapter`: the typed library adapter (``handle(event,
  payload)``), registered as ``claude-code`` in ``signet_sdk.adapters``.

Importing this package costs almost nothing: the hook process imports it on
every prompt, so the library adapter (which needs httpx and pydantic) loads
only when ``ClaudeCodeAdapter`` is first touched.
"""

from __future__ import annotations

from ._translate import EVENTS, TRANSLATOR, ClaudeCodeTranslator

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._adapter import ClaudeCodeAdapter

__all__ = ["EVENTS", "TRANSLATOR", "ClaudeCodeAdapter", "ClaudeCodeTranslator"]


def __getattr__(name: str) -> Any:
    if name == "ClaudeCodeAdapter":
        from ._adapter import ClaudeCodeAdapter

        return ClaudeCodeAdapter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
