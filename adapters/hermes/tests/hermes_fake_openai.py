"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, for the real Hermes.

Standard library only, one thread per request. ``POST /v1/chat/completions``
answers streamed (server-sent events) or whole, as asked; ``GET /v1/models``
lists one model; anything else is a JSON 404. Every request body is kept so
tests can search what reached the model. ``tool_script`` makes the next turn
requests (those ending with a user message) call the named tools, one each.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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


class FakeOpenAI:
    """The server, its base URL (``.../v1``) and the request bodies it received."""

    def __init__(self, prompt_tokens: int = 12) -> None:
        #: The input tokens each answer reports; a large count makes Hermes compress.
        self.prompt_tokens = prompt_tokens
        self.bodies: list[dict[str, Any]] = []
        self.tool_script: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, data: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.split("?", 1)[0].endswith("/models"):
                    listing = {"object": "list", "data": [{"id": MODEL, "object": "model"}]}
                    self._send(200, json.dumps(listing).encode())
                else:
                    self._send(404, b'{"error":{"message":"not found"}}')

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.loads(raw) if raw else {}
                if not self.path.split("?", 1)[0].endswith("/chat/completions"):
                    self._send(404, b'{"error":{"message":"not found"}}')
                    return
                with fake._lock:
                    fake.bodies.append(body)
                message = fake.answer(body)
                if body.get("stream"):
                    data = "".join(f"data: {json.dumps(c)}\n\n" for c in fake.chunks(message))
                    self._send(200, (data + "data: [DONE]\n\n").encode(), "text/event-stream")
                else:
                    self._send(200, json.dumps(fake.completion(message)).encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The assistant message for one request: a scripted tool call, else the reply."""
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if is_summary_request(body):
            return {"role": "assistant", "content": SUMMARY}
        with self._lock:
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

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
