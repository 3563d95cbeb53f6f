"""What a Gemini CLI chat file says about compression.

Gemini CLI records each session as JSON lines (``session-*.jsonl`` under
``~/.gemini/tmp/<project>/chats/``): one metadata line, then a line per
message (``id``, ``timestamp``, ``type`` ``user``/``gemini``/..., ``content``
as parts); a message written again under the same ``id`` updates it in
place, ``{"$set": {"messages": [...]}}`` replaces the whole list and
``{"$rewindTo": id}`` drops that message and everything after it. (Older
releases wrote one JSON object with a ``messages`` array; that is read too.)

When Gemini compresses a chat it replaces the compressed part of the
history with two new messages: a ``user`` message holding the model's
summary and a ``gemini`` message acknowledging it (its text is
:data:`ACK`), followed by the history it kept (older timestamps). No hook
payload carries the summary, so it is read from here. A summary is *fresh*
for a turn when no message written after it belongs to an earlier turn:
nothing newer than the summary lies between it and the turn's prompt (a
compression at the start of the turn), or the prompt itself is older (a
compression between two model calls of the turn).

Gemini also decides by numbers found here whether to compress at all: the
prompt token count of the last model answer (``tokens.input``) against half
the model's context window (its default ``compressionThreshold``).

Standard library only: the hook process imports this.
"""

from __future__ import annotations

from signet_sdk.plugin import TranscriptRefused, json_loads, snapshot_transcript

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

__all__ = [
    "ACK",
    "compression_due",
    "fresh_summary",
    "latest_summary_id",
    "messages_from_lines",
    "read_messages",
]

#: The text of the model message Gemini puts right after a compression summary.
ACK = "Got it. Thanks for the additional context!"
#: Gemini's default ``compressionThreshold``: compress at half the context window.
THRESHOLD = 0.5
#: Context windows by model family (Gemini CLI's ``tokenLimit``).
_DEFAULT_WINDOW = 1_048_576
_GEMMA_4_WINDOW = 256_000


def read_messages(path: str, roots: Sequence[str]) -> list[dict[str, Any]] | None:
    """The messages of the chat file at ``path`` (read only inside ``roots``), or None."""
    try:
        snapshot = snapshot_transcript(path, roots)
    except (TranscriptRefused, OSError):
        return None
    text = snapshot.data.decode("utf-8", errors="replace")
    if not snapshot.truncated and text.lstrip().startswith("{") and '"messages"' in text[:4096]:
        try:
            whole = json_loads(text)
        except ValueError:
            whole = None
        if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
            return [m for m in whole["messages"] if _is_message(m)]
    return messages_from_lines(text.splitlines())


def _is_message(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("id"), str) and "type" in item


def messages_from_lines(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The chat's current messages, replaying the file's records in order."""
    current: dict[str, dict[str, Any]] = {}
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json_loads(line)
        except ValueError:
            continue  # a torn last line, or the cut at the front of a tail
        if not isinstance(record, dict):
            continue
        if "$rewindTo" in record:
            target = record["$rewindTo"]
            if target in current:
                keys = list(current)
                for key in keys[keys.index(target) :]:
                    del current[key]
            else:
                current.clear()
        elif isinstance(record.get("$set"), dict):
            replaced = record["$set"].get("messages")
            if isinstance(replaced, list):
                current = {m["id"]: m for m in replaced if _is_message(m)}
        elif _is_message(record):
            current[record["id"]] = record  # an update keeps the message's place
    return list(current.values())


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [p.get("text") for p in content if isinstance(p, dict)]
    return "".join(t for t in texts if isinstance(t, str))


def _stamp(message: dict[str, Any]) -> str:
    value = message.get("timestamp")
    return value if isinstance(value, str) else ""


def _last_summary(messages: Sequence[dict[str, Any]]) -> int | None:
    for i in range(len(messages) - 2, -1, -1):
        first, second = messages[i], messages[i + 1]
        pair = (first.get("type"), second.get("type")) == ("user", "gemini")
        if pair and _text(second).strip() == ACK and _text(first).strip():
            return i
    return None


def latest_summary_id(messages: Sequence[dict[str, Any]]) -> str | None:
    """The message id of the newest compression summary in the chat, if any."""
    index = _last_summary(messages)
    return None if index is None else str(messages[index]["id"])


def fresh_summary(
    messages: Sequence[dict[str, Any]], *, at_end: bool = False
) -> tuple[str, str] | None:
    """The message id and text of a compression summary made during the latest turn.

    ``at_end`` (SessionEnd): only a compression after the latest turn had
    ended counts (``/compress`` and then quitting), since each turn's own
    compressions were reported when it ended. None when there is none.
    """
    index = _last_summary(messages)
    if index is None:
        return None
    summary = messages[index]
    made = _stamp(summary)
    if not made:
        return None
    rest = [
        m
        for i, m in enumerate(messages)
        if i not in (index, index + 1) and m.get("type") in ("user", "gemini")
    ]
    newer = [m for m in rest if _stamp(m) > made]
    if at_end:
        return None if newer else _found(summary)
    prompts = [m for m in rest if m.get("type") == "user" and _text(m).strip()]
    if not prompts:
        return _found(summary)
    prompt = _stamp(prompts[-1])
    if prompt <= made:
        return _found(summary)  # compressed between two model calls of this turn
    if any(_stamp(m) < prompt for m in newer):
        return None  # an earlier turn went on after the summary: it was reported then
    return _found(summary)


def _found(summary: dict[str, Any]) -> tuple[str, str]:
    return str(summary["id"]), _text(summary)


def compression_due(messages: Sequence[dict[str, Any]]) -> bool:
    """Whether Gemini's next model call compresses, by its default rule.

    The prompt token count of the latest model answer reaches half the
    model's context window, counted after the latest compression (a
    count from before it is stale). (A ``compressionThreshold`` set lower in the
    settings, or by Gemini's remote experiments, is not seen here.)
    """
    index = _last_summary(messages)
    compressed = _stamp(messages[index]) if index is not None else ""
    for message in reversed(messages):
        if message.get("type") != "gemini":
            continue
        tokens = message.get("tokens")
        if not isinstance(tokens, dict):
            continue
        if compressed and _stamp(message) <= compressed:
            return False  # counted before the latest compression, which made it stale
        used = tokens.get("input")
        if isinstance(used, bool) or not isinstance(used, int):
            return False
        model = message.get("model")
        window = _DEFAULT_WINDOW
        if isinstance(model, str) and model.startswith("gemma-4"):
            window = _GEMMA_4_WINDOW
        return used >= THRESHOLD * window
    return False
