"""A fake Anthropic Messages API on 127.0.0.1 for running the real ``claude`` offline.

It answers ``HEAD /`` (Claude Code's connectivity preflight), ``POST
/v1/messages`` (streamed as SSE when asked, which Claude Code always does),
and ``POST /v1/messages/count_tokens``; anything else gets a JSON 404. Every
request is appended to a JSON-lines log (method, path, headers, parsed body),
which is what tests search for injected context. Compaction requests are
recognised by their instruction text and answered with ``SUMMARY`` so the
summary can be followed into the ``PostCompact`` hook. A user message holding
``USE_TOOL <name> <json input>`` is answered with that one ``tool_use``; the
follow-up (which ends with the tool result, not a user text) gets the plain
reply, so the harness does not loop. Each reply has its own
message id (Claude Code refuses to compact a conversation whose replies
share one).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from signet_sdk.testing import Answer, FakeServer, json_answer, sse_answer

REPLY = "FAKE-REPLY: noted."
SUMMARY = "SIGNET-E2E-SUMMARY-7f3a: the user is testing the Signet hooks."
_COMPACT_MARK = "create a detailed summary of the conversation"


_TOOL_MARK = "USE_TOOL "


def _scripted_tool(body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``(name, input)`` when the conversation's last message is a user text asking for a tool."""
    # Claude Code appends hook context as role "system" entries: look past them.
    messages = [
        m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") != "system"
    ]
    if not messages or messages[-1].get("role") != "user":
        return None
    content = messages[-1].get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
        return None
    for block in blocks:
        text = block.get("text") if isinstance(block, dict) else None
        if isinstance(text, str) and _TOOL_MARK in text:
            name, _, rest = text.split(_TOOL_MARK, 1)[1].partition(" ")
            return name, json.loads(rest.strip().splitlines()[0])
    return None


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return json.dumps(message.get("content"))
    return ""


_NOT_FOUND = {"type": "error", "error": {"type": "not_found_error"}}


class FakeAnthropic(FakeServer):
    """The server, its URL, and what it received."""

    def __init__(self, log_path: Path, input_tokens: int = 12) -> None:
        self.input_tokens = input_tokens
        self._count_lock = threading.Lock()
        self._count = 0
        super().__init__(log_path)

    def answer(self, method: str, path: str, body: Any) -> Answer:
        path = path.split("?", 1)[0]
        if method == "HEAD":
            return 200, b"", "application/json"
        if method != "POST":
            return json_answer(_NOT_FOUND, 404)
        body = body if isinstance(body, dict) else {}
        if path == "/v1/messages/count_tokens":
            return json_answer({"input_tokens": self.input_tokens})
        if path != "/v1/messages":
            return json_answer(_NOT_FOUND, 404)
        text = REPLY
        if _COMPACT_MARK in _last_user_text(body):
            text = f"<analysis>fake</analysis>\n<summary>{SUMMARY}</summary>"
        model = str(body.get("model") or "claude-fake")
        tool = _scripted_tool(body)
        if tool is not None:
            return sse_answer(self.tool_events(model, *tool))
        if body.get("stream"):
            return sse_answer(self.events(model, text))
        return json_answer(self.message(model, text))

    def message(self, model: str, text: str) -> dict[str, Any]:
        # Distinct ids matter: Claude Code groups a conversation by message id
        # and will not compact fewer than two groups.
        with self._count_lock:
            self._count += 1
            number = self._count
        return {
            "id": f"msg_fake_{number}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": self.input_tokens, "output_tokens": 4},
        }

    def events(self, model: str, text: str) -> list[tuple[str, dict[str, Any]]]:
        """One streamed answer ``text``."""
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": text}
        return _stream(self._start(model), block, delta, "end_turn", 4, ping=True)

    def tool_events(
        self, model: str, name: str, arguments: dict[str, Any]
    ) -> list[tuple[str, dict[str, Any]]]:
        """One streamed ``tool_use`` of ``name`` with ``arguments``."""
        start = self._start(model)
        block = {"type": "tool_use", "id": f"toolu_fake_{start['id']}", "name": name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
        return _stream(start, block, delta, "tool_use", 9)

    def _start(self, model: str) -> dict[str, Any]:
        """The message a stream starts with: no content yet, one output token."""
        start = dict(self.message(model, ""), content=[], stop_reason=None)
        start["usage"] = {"input_tokens": self.input_tokens, "output_tokens": 1}
        return start


def _stream(
    start: dict[str, Any],
    block: dict[str, Any],
    delta: dict[str, Any],
    stop_reason: str,
    output_tokens: int,
    *,
    ping: bool = False,
) -> list[tuple[str, dict[str, Any]]]:
    """The events of a message ``start`` with one content ``block`` (then a ``ping`` if asked)
    filled by one ``delta``, ended with ``stop_reason`` after ``output_tokens``."""
    return [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        *([("ping", {"type": "ping"})] if ping else []),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
