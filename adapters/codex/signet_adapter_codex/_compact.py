"""The compaction summary Codex wrote into its rollout transcript.

Codex's PostCompact payload names the rollout file but carries no summary;
the summary is the rollout's newest ``{"type":"compacted","payload":
{"message": ...}}`` line, without the handoff line Codex writes before it
(when ``message`` is empty, the text of the last message in its
``replacement_history``), as the real Codex 0.169.0 writes it. The file is
read through the core's bounded, root-checked transcript reader, never
through a symlink.
"""

from __future__ import annotations

from signet_sdk.plugin import TranscriptRefused, json_loads, snapshot_transcript

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["summary_from_lines", "summary_from_rollout"]

_PREAMBLE = "Another language model started to solve this problem"


def summary_from_rollout(path: str, roots: Sequence[str]) -> str | None:
    """The newest compaction summary in the rollout at ``path``, or None."""
    try:
        snapshot = snapshot_transcript(path, roots)
    except (TranscriptRefused, OSError):
        return None
    return summary_from_lines(snapshot.data.decode("utf-8", errors="replace").splitlines())


def summary_from_lines(lines: Sequence[str]) -> str | None:
    for line in reversed(lines):
        if '"compacted"' not in line:
            continue
        try:
            item = json_loads(line)
        except ValueError:
            continue
        if not isinstance(item, dict) or item.get("type") != "compacted":
            continue
        payload = item.get("payload")
        if not isinstance(payload, dict):
            continue
        message = payload.get("message")
        if isinstance(message, str) and message.strip():
            return _without_preamble(message)
        text = _last_text(payload.get("replacement_history"))
        if text:
            return text
    return None


def _without_preamble(message: str) -> str:
    """The summary without the handoff line Codex puts in front of it.

    Codex 0.169 stores ``"Another language model started to solve this
    problem and produced a summary ... assist with your own analysis:\n"``
    followed by the model's summary.
    """
    first, sep, rest = message.partition("\n")
    if sep and first.startswith(_PREAMBLE) and rest.strip():
        return rest
    return message


def _last_text(history: Any) -> str | None:
    if not isinstance(history, list):
        return None
    for entry in reversed(history):
        if not isinstance(entry, dict) or entry.get("type") != "message":
            continue
        content = entry.get("content")
        if not isinstance(content, list):
            continue
        texts = [b.get("text") for b in content if isinstance(b, dict)]
        joined = "\n".join(t for t in texts if isinstance(t, str) and t.strip())
        if joined:
            return joined
    return None
