"""The context text in a daemon answer: what a harness shows its model.

Every adapter hands the model the same text for the same answer: the newest
response fields first (``dynamicContext`` for a prompt; ``stableSystemPrompt``
and ``dynamicContext`` for a session start), then the older ``inject``; an
answer that did nothing (skipped, bypassed) gives nothing. Standard library
only: every command hook imports this.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["context_text"]


def context_text(result: Any, *, prompt: bool) -> str:
    """The text to show the model for ``result`` (``prompt``: a per-turn answer), or ``""``."""
    if not isinstance(result, dict) or result.get("skipped") or result.get("bypassed"):
        return ""
    if prompt:
        dynamic = result.get("dynamicContext")
        if isinstance(dynamic, str) and dynamic.strip():
            return dynamic
    else:
        parts = [result.get("stableSystemPrompt"), result.get("dynamicContext")]
        joined = "\n\n".join(p for p in parts if isinstance(p, str) and p.strip())
        if joined:
            return joined
    inject = result.get("inject")
    return inject if isinstance(inject, str) and inject.strip() else ""
