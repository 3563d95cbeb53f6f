"""A fake OpenAI-compatible chat-completions API on 127.0.0.1, for the real ``pi``.

The kit's :class:`~signet_sdk.testing.FakeServer` with pi's replies. It
answers ``POST /v1/chat/completions`` (streamed as server-sent events when
asked, which pi always does, else one JSON object) and ``GET /v1/models``;
anything else gets a JSON 404. Every request is kept and appended to a
JSON-lines log (method, path, headers, parsed body): tests search it for
injected context.

Replies are fixed: ``REPLY`` for a turn, ``SUMMARY`` for pi's compaction
request (recognised by its system prompt). ``prompt_tokens`` is the input
token count reported in the usage chunk; a large one makes pi compact on its
own. ``compaction_delay`` holds each compaction answer back that long. The
server does not validate roles or message order: pi sends an extension's
message as a second consecutive user message.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from signet_sdk.testing import Answer, FakeServer, json_answer, sse_answer

REPLY = "FAKE-PI-REPLY: noted."
SUMMARY = "SIGNET-PI-SUMMARY-41c9: the user is testing the pi extension."
_COMPACTION_MARK = "context summarization assistant"


def _system_text(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") in ("system", "developer"):
            content = message.get("content")
            parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


def is_compaction(body: dict[str, Any]) -> bool:
    """Whether a logged request body is pi's compaction (summary) request."""
    return _COMPACTION_MARK in _system_text(body)


class FakeOpenAI(FakeServer):
    """The server, its base URL (``.../v1``) and the path of its request log."""

    def __init__(
        self, log_path: Path, prompt_tokens: int = 12, compaction_delay: float = 0.0
    ) -> None:
        self.prompt_tokens = prompt_tokens
        self.compaction_delay = compaction_delay
        #: Tool calls to make, one per turn request that ends with a user message:
        #: (tool name, arguments). Empty: every turn gets the fixed reply.
        self.tool_script: list[tuple[str, dict[str, Any]]] = []
        self._script_lock = threading.Lock()
        super().__init__(log_path)
        self.base_url = f"{self.url}/v1"

    def answer(self, method: str, path: str, body: Any) -> Answer:
        route = path.split("?", 1)[0]
        if method == "GET" and route == "/v1/models":
            return json_answer(
                {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}
            )
        if method != "POST" or route != "/v1/chat/completions" or not isinstance(body, dict):
            return super().answer(method, path, body)
        model = str(body.get("model") or "fake-model")
        text = REPLY
        if is_compaction(body):
            text = SUMMARY
            time.sleep(self.compaction_delay)
        if not body.get("stream"):
            return json_answer(self.completion(model, text))
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        call = self.next_tool_call(body)
        if call is not None:
            chunks = self.tool_chunks(model, *call, usage=usage)
        else:
            chunks = self.chunks(model, text, usage=usage)
        status, data, content_type = sse_answer((None, c) for c in chunks)
        return status, data + b"data: [DONE]\n\n", content_type

    def _usage(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": 5,
            "total_tokens": self.prompt_tokens + 5,
        }

    def chunks(self, model: str, text: str, *, usage: bool = True) -> list[dict[str, Any]]:
        """The streamed reply: role, content, finish, then (if asked for) a usage chunk."""
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000}
        base["model"] = model

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return {**base, "choices": [choice]}

        out = [
            chunk({"role": "assistant", "content": ""}, None),
            chunk({"content": text}, None),
            chunk({}, "stop"),
        ]
        if usage:
            out.append({**base, "choices": [], "usage": self._usage()})
        return out

    def next_tool_call(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """The scripted tool call for a turn that ends with the user's message, if any."""
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if is_compaction(body) or not messages or messages[-1].get("role") != "user":
            return None
        with self._script_lock:
            return self.tool_script.pop(0) if self.tool_script else None

    def tool_chunks(
        self, model: str, name: str, arguments: dict[str, Any], *, usage: bool = True
    ) -> list[dict[str, Any]]:
        """A streamed reply that calls one tool, as OpenAI streams it."""
        base: dict[str, Any] = {"id": "chatcmpl-fake-tool", "object": "chat.completion.chunk"}
        base.update({"created": 1700000000, "model": model})
        call: dict[str, Any] = {
            "index": 0,
            "id": f"call_{name}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        out = [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
        if usage:
            out.append({**base, "choices": [], "usage": self._usage()})
        return out

    def completion(self, model: str, text: str) -> dict[str, Any]:
        message = {"role": "assistant", "content": text}
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": self._usage(),
        }

    def turns(self) -> list[dict[str, Any]]:
        """The bodies of the model requests that are turns (not compaction)."""
        return [
            r["body"]
            for r in self.requests()
            if r["path"].startswith("/v1/chat/completions")
            and isinstance(r["body"], dict)
            and not is_compaction(r["body"])
        ]
