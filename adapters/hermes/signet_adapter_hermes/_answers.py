"""Reading the daemon's answers into the text Hermes is given.

The context text is the core's (:func:`signet_sdk.plugin.context_text`),
read from the answer's text fields each stripped: Hermes puts the text into
its prompt as it is. A skipped or bypassed answer gives nothing.
"""

from __future__ import annotations

from signet_sdk.plugin import context_text as _core_context_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["context_text", "fence", "guidance"]

#: The answer fields the context text is read from.
_TEXT_FIELDS = ("stableSystemPrompt", "dynamicContext", "inject")


def fence(text: str, source: str) -> str:
    return f'<signet-memory source="{source}">\n{text.strip()}\n</signet-memory>'


def context_text(result: Any, *, prompt: bool) -> str:
    """The context text in a daemon answer, without the whitespace around each part."""
    if isinstance(result, dict):
        stripped = {
            k: v.strip() for k, v in result.items() if k in _TEXT_FIELDS and isinstance(v, str)
        }
        result = {**result, **stripped}
    return _core_context_text(result, prompt=prompt)


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
