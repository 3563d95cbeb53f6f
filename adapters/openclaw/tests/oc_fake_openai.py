"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, for the real ``openclaw``.

Standard library only, one thread per request. ``POST /v1/chat/completions``
is answered as server-sent events when streaming is asked for (OpenClaw
always asks), else as one JSON object; ``GET /v1/models`` lists the one
model; anything else is a JSON 404. Every request is appended to a
JSON-lines log (method, path, headers, parsed body).

A request offering tools is a turn and gets ``REPLY``; one without tools is
OpenClaw's compaction summary request and gets ``SUMMARY``. The usage rides
on the finishing chunk, as OpenClaw reads it.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPLY = "FAKE-OPENCLAW-REPLY: noted."
SUMMARY = "SIGNET-OPENCLAW-SUMMARY-7d21: the user asked how atlas deploys work."


def is_turn(body: Any) -> bool:
    return isinstance(body, dict) and bool(body.get("tools"))


class FakeOpenAI:
    """The server, its base URL (``.../v1``) and its request log."""

    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        #: Tool calls to make, one per turn request that ends with a user message:
        #: (tool name, arguments). Empty: every turn gets the fixed reply.
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

            def _record(self, body: Any) -> None:
                line = {"method": self.command, "path": self.path, "body": body}
                with fake._lock, fake.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(line) + "\n")

            def do_GET(self) -> None:
                self._record(None)
                if self.path.split("?", 1)[0] == "/v1/models":
                    models = {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}
                    self._send(200, json.dumps(models).encode())
                else:
                    self._send(404, b'{"error":{"message":"not found"}}')

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                self._record(body)
                if self.path.split("?", 1)[0] != "/v1/chat/completions":
                    self._send(404, b'{"error":{"message":"not found"}}')
                    return
                model = str(body.get("model") or "fake-model")
                text = REPLY if is_turn(body) else SUMMARY
                call = fake.next_tool_call(body)
                if call is not None and body.get("stream"):
                    chunks = fake.tool_chunks(model, *call)
                    data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
                    self._send(200, (data + "data: [DONE]\n\n").encode(), "text/event-stream")
                elif body.get("stream"):
                    data = "".join(f"data: {json.dumps(c)}\n\n" for c in fake.chunks(model, text))
                    self._send(200, (data + "data: [DONE]\n\n").encode(), "text/event-stream")
                else:
                    self._send(200, json.dumps(fake.completion(model, text)).encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @staticmethod
    def _usage() -> dict[str, int]:
        return {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}

    def chunks(self, model: str, text: str) -> list[dict[str, Any]]:
        base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000}
        base["model"] = model

        def chunk(delta: dict[str, Any], finish: str | None, **extra: Any) -> dict[str, Any]:
            return {
                **base,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **extra,
            }

        return [
            chunk({"role": "assistant", "content": ""}, None),
            chunk({"content": text}, None),
            chunk({}, "stop", usage=self._usage()),
        ]

    def next_tool_call(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """The scripted tool call for a turn that ends with the user's message, if any."""
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if not is_turn(body) or not messages or messages[-1].get("role") != "user":
            return None
        with self._lock:
            return self.tool_script.pop(0) if self.tool_script else None

    def tool_chunks(self, model: str, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
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
        finish = {"index": 0, "delta": {}, "finish_reason": "tool_calls"}
        return [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [finish], "usage": self._usage()},
        ]

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

    def requests(self) -> list[dict[str, Any]]:
        if not self.log_path.exists():
            return []
        with self._lock:
            lines = self.log_path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def turns(self) -> list[dict[str, Any]]:
        """The bodies of the model requests that are turns (not compaction summaries)."""
        return [r["body"] for r in self.requests() if is_turn(r["body"])]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
