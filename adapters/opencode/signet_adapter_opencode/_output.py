"""What the OpenCode translator renders: held system text and the daemon's guidance, as data."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Where the injected text is marked as memory for the model.
_TAG = "signet-memory"


def _slot(
    sid: str,
    text: str,
    source: str,
    model: str | None,
    *,
    uses: int | None = None,
    until: str | None = None,
) -> dict[str, Any]:
    slot: dict[str, Any] = {
        "session": sid,
        "text": f'<{_TAG} source="{source}">\n{text.strip()}\n</{_TAG}>',
    }
    if model is not None:
        slot["model"] = model
    if uses is not None:
        slot["uses"] = uses
    if until is not None:
        slot["until"] = until
    return slot


def _guidance(result: Any) -> str:
    """What the compaction prompt should keep: the daemon's guidelines, else its prompt."""
    if not isinstance(result, dict):
        return ""
    for key in ("guidelines", "summaryPrompt"):
        value = result.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""
