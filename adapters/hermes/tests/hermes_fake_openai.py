"""A fake OpenAI-compatible chat-completions API on 127.0.0.1, for the real Hermes.

The kit's :class:`~signet_sdk.testing.FakeServer` with Hermes's replies.
``POST /v1/chat/completions`` answers streamed (server-sent events) or
whole, as asked; ``GET /v1/models`` lists one model; anything else is a JSON
404. :attr:`FakeOpenAI.bodies` are the chat requests' bodies, so tests can
search what reached the model. ``tool_script`` makes the next turn requests
(those ending with a user message) call the named tools, one each.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from signet_sdk.testing import Answer, FakeServer, json_answer, sse_answer

REPLY = "FAKE-HERMES-REPLY: noted."
#: The answer to Hermes's compression request (recognised by its opening words).
SUMMARY = "SIGNET-HERMES-SUMMARY-5150: atlas deploys go through make ship."
_SUMMARY_REQUEST = "You are a summarization agent"
MODEL = "fake-model"


def is_summary_request(body: dict[str, Any]) -> bool:
    """Whether a request body is Hermes's compression (summary) request."""
    messages = body.get("messages") or []
    first = messages[0] if messages and isinstance(messages[0], dict) else {}
    content = first.get("content")
    return isinstance(content, str) and content.startswith(_SUMMARY_REQUEST)


class FakeOpenAI(FakeServer):
    """The server, its base URL (``.../v1``) and the request bodies it received."""

    def __init__(self, prompt_tokens: int = 12) -> None:
        #: The input tokens each answer reports; a large count makes Hermes compress.
        self.prompt_tokens = prompt_tokens
        self.tool_script: list[tuple[str, dict[str, Any]]] = []
        self._script_lock = threading.Lock()
        super().__init__()
        self.base_url = f"{self.url}/v1"

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The chat-completion request bodies so far, oldest first."""
        return [
            r["body"]
            for r in self.requests()
            if r["method"] == "POST"
            and r["path"].split("?", 1)[0].endswith("/chat/completions")
            and isinstance(r["body"], dict)
        ]

    def answer(self, method: str, path: str, body: Any) -> Answer:
        route = path.split("?", 1)[0]
        if method == "GET" and route.endswith("/models"):
            return json_answer({"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        if method != "POST" or not route.endswith("/chat/completions"):
            return super().answer(method, path, body)
        message = self.reply(body if isinstance(body, dict) else {})
        if not isinstance(body, dict) or not body.get("stream"):
            return json_answer(self.completion(message))
        status, data, content_type = sse_answer((None, c) for c in self.chunks(message))
        return status, data + b"data: [DONE]\n\n", content_type

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        """The assistant message for one request: a scripted tool call, else the reply."""
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if is_summary_request(body):
            return {"role": "assistant", "content": SUMMARY}
        with self._script_lock:
            if messages and messages[-1].get("role") == "user" and self.tool_script:
                name, arguments = self.tool_script.pop(0)
                call = {
                    "id": f"call_{name}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                return {"role": "assistant", "content": None, "tool_calls": [call]}
        return {"role": "assistant", "content": REPLY}

    def _usage(self) -> dict[str, int]:
        tokens = self.prompt_tokens
        return {"prompt_tokens": tokens, "completion_tokens": 5, "total_tokens": tokens + 5}

    def chunks(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000}
        base["model"] = MODEL
        calls = message.get("tool_calls")
        if calls:
            delta = {"role": "assistant", "content": None, "tool_calls": [{"index": 0, **calls[0]}]}
            finish = "tool_calls"
        else:
            delta = {"role": "assistant", "content": message["content"]}
            finish = "stop"
        return [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**base, "choices": [], "usage": self._usage()},
        ]

    def completion(self, message: dict[str, Any]) -> dict[str, Any]:
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1700000000,
            "model": MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": self._usage(),
        }
