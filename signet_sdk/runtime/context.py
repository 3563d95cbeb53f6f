"""The context text in a daemon answer: what a harness shows its model.

Every adapter hands the model the same text for the same answer: the newest
response fields first (``dynamicContext`` for a prompt; ``stableSystemPrompt``
and ``dynamicContext`` for a session start), then the older ``inject``; an
answer that did nothing (skipped, bypassed) gives nothing. Standard library
only: every command hook imports this.

Daemons that answer with the split fields fence their context in ``inject``
(``<signet-memory-context>`` ... ``</signet-memory-context>``) and append
what else the model must see after the fence: unread cross-agent
notifications, in the daemon's own words. That tail is shown after the
split fields, so a harness that reads them loses nothing ``inject`` holds.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["after_fence", "context_text"]

_FENCE_OPEN = "<signet-memory-context>"
_FENCE_CLOSE = "</signet-memory-context>"


def context_text(result: Any, *, prompt: bool) -> str:
    """The text to show the model for ``result`` (``prompt``: a per-turn answer), or ``""``."""
    if not isinstance(result, dict) or result.get("skipped") or result.get("bypassed"):
        return ""
    inject = result.get("inject")
    if prompt:
        parts = [result.get("dynamicContext")]
    else:
        parts = [result.get("stableSystemPrompt"), result.get("dynamicContext")]
    shown = [p for p in parts if isinstance(p, str) and p.strip()]
    if shown:
        tail = after_fence(inject)
        return "\n\n".join([*shown, tail] if tail else shown)
    return inject if isinstance(inject, str) and inject.strip() else ""


def after_fence(inject: Any) -> str:
    """What a daemon appended to ``inject`` after its context fence, stripped, or ``""``.

    ``""`` for an ``inject`` that does not open with the fence (older daemons,
    which send no split fields either) or has nothing after it.
    """
    if not isinstance(inject, str):
        return ""
    body = inject.lstrip()
    if not body.startswith(_FENCE_OPEN):
        return ""
    end = body.find(_FENCE_CLOSE)
    return body[end + len(_FENCE_CLOSE) :].strip() if end >= 0 else ""
