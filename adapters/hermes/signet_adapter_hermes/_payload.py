"""Hermes payload access and transcripts, kept apart from the event mapping.

Payloads are the plain data the provider builds from one MemoryProvider
hook's arguments (parsed-JSON shapes: dicts, lists, strings), so a wrong
type is a :class:`~signet_sdk.PayloadError` naming the field.
"""

from __future__ import annotations

from signet_sdk.plugin import PayloadError, array, string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

#: Inline transcripts keep at most this many characters, cut on a message boundary.
TRANSCRIPT_LIMIT = 100_000
#: What Hermes's context compressor marks its summary message with, in-process
#: (agent/context_compressor.py ``COMPRESSED_SUMMARY_METADATA_KEY``).
SUMMARY_FLAG = "_compressed_summary"
#: The start of every summary Hermes 0.19 writes (``SUMMARY_PREFIX``, one line of
#: instructions to the model before the summary), and of older ones.
SUMMARY_PREFIXES = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")
#: Where a summary merged into a kept message starts (``_MERGED_SUMMARY_DELIMITER``).
MERGED_DELIMITER = "[END OF PRIOR CONTEXT \u2014 COMPACTION SUMMARY BELOW]"


def _need(obj: Mapping[str, Any], name: str) -> str:
    """A string field that must be present; blank is allowed (the hook decides what it means)."""
    value = string(obj, name)
    if value is None:
        raise PayloadError(name, "is required")
    return value


def _bool(obj: Mapping[str, Any], name: str) -> bool:
    value = obj.get(name)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise PayloadError(name, f"must be a boolean, got {type(value).__name__}")
    return value


def text_of(content: Any) -> str:
    """The text of an OpenAI-style message ``content``: a string or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p["text"]
            for p in content
            if isinstance(p, dict)
            and p.get("type") in ("text", "input_text", "output_text")
            and isinstance(p.get("text"), str)
        ]
        return "\n".join(parts)
    return ""


def _messages(obj: Mapping[str, Any], name: str = "messages") -> list[Mapping[str, Any]]:
    items = array(obj, name) or []
    for i, m in enumerate(items):
        if not isinstance(m, dict):
            raise PayloadError(f"{name}[{i}]", f"must be an object, got {type(m).__name__}")
    return items


def _summary_text(content: Any) -> str:
    text = text_of(content)
    if MERGED_DELIMITER in text:
        text = text.split(MERGED_DELIMITER, 1)[1]
    return text.lstrip()


def is_summary(message: Mapping[str, Any]) -> bool:
    """Whether ``message`` is the summary Hermes's compressor put in place of older turns."""
    if message.get(SUMMARY_FLAG):
        return True
    return _summary_text(message.get("content")).startswith(SUMMARY_PREFIXES)


def _clean_summary(text: str) -> str:
    """A summary without Hermes's note to the model (the one line before the summary)."""
    if MERGED_DELIMITER in text:
        text = text.split(MERGED_DELIMITER, 1)[1]
    text = text.lstrip()
    if text.startswith(SUMMARY_PREFIXES[0]):
        text = text.partition("\n")[2]
    elif text.startswith(SUMMARY_PREFIXES[1]):
        text = text[len(SUMMARY_PREFIXES[1]) :]
    return text.strip()


def summary_of(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The newest compaction summary in ``messages``, without Hermes's note to the model."""
    for message in reversed(messages):
        if is_summary(message):
            return _clean_summary(text_of(message.get("content"))) or None
    return None


def transcript_of(messages: Sequence[Mapping[str, Any]]) -> str:
    """User and assistant text as ``role: text`` blocks, newest kept within the limit.

    Tool calls, tool results and system messages carry no conversation the
    daemon extracts from; a compaction summary is kept as ``summary:``. The
    cut falls on a message boundary so no block starts mid-sentence.
    """
    blocks: list[str] = []
    for message in messages:
        role = message.get("role")
        if role not in ("user", "assistant"):
            continue
        summary = is_summary(message)
        text = text_of(message.get("content"))
        text = _clean_summary(text) if summary else text.strip()
        if text:
            blocks.append(f"{'summary' if summary else role}: {text}")
    kept: list[str] = []
    size = 0
    for block in reversed(blocks):
        size += len(block) + 2
        if size > TRANSCRIPT_LIMIT and kept:
            break
        kept.append(block[-TRANSCRIPT_LIMIT:])
    return "\n\n".join(reversed(kept))


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str | None:
    for message in reversed(messages):
        if message.get("role") == "user" and not is_summary(message):
            text = text_of(message.get("content")).strip()
            if text:
                return text
    return None
