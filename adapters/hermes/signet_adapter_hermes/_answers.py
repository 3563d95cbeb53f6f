"""Reading the daemon's answers into the text Hermes is given.

Newest response fields first (``stableSystemPrompt`` / ``dynamicContext``),
then the older ``inject``; a skipped or bypassed answer gives nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["context_text", "fence", "guidance"]


def fence(text: str, source: str) -> str:
    return f'<signet-memory source="{source}">\n{text.strip()}\n</signet-memory>'


def context_text(result: Any, *, prompt: bool) -> str:
    """The context text in a daemon answer, newest response fields first."""
    if not isinstance(result, dict) or result.get("skipped") or result.get("bypassed"):
        return ""
    if prompt:
        dynamic = result.get("dynamicContext")
        if isinstance(dynamic, str) and dynamic.strip():
            return dynamic.strip()
    else:
        parts = [result.get("stableSystemPrompt"), result.get("dynamicContext")]
        joined = "\n\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
        if joined:
            return joined
    inject = result.get("inject")
    return inject.strip() if isinstance(inject, str) and inject.strip() else ""


def guidance(result: Any) -> str:
    """The pre-compaction answer as text for Hermes's compression prompt.

    The summary prompt, then the guidelines unless the prompt already holds
    them (the daemon's prompt often embeds its guidelines).
    """
    if not isinstance(result, dict) or result.get("skipped") or result.get("bypassed"):
        return ""
    prompt, guidelines = (result.get(k) for k in ("summaryPrompt", "guidelines"))
    parts = [p.strip() for p in (prompt, guidelines) if isinstance(p, str) and p.strip()]
    if len(parts) == 2 and parts[1] in parts[0]:
        parts.pop()
    return "\n\n".join(parts)
