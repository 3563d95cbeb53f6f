"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, for running real harnesses.

Harnesses that speak the OpenAI chat API (OpenCode, OpenClaw, pi) can be
pointed at it with a base URL of ``server.base_url`` and run headless in a
test: no model, no network beyond loopback. Standard library only, one
thread per request.

* ``POST /v1/chat/completions`` is answered as server-sent events when the
  request streams (usage on the finishing chunk), else as one JSON object.
  The reply text comes from ``reply(body)``; a scripted tool call
  (:attr:`FakeOpenAI.tool_script`) answers the next request that offers
  that tool and ends with a user message or a tool result, so a script of
  several calls runs as one turn.
* ``GET /v1/models`` lists ``models``; anything else is a JSON 404.
* Every request is kept (method, path, headers, parsed body) for the test to
  assert on, and appended to ``log_path`` as JSON lines when one is given.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from signet_sdk.testing.loopback import LoopbackServer, QuietHandler

__all__ = ["FakeOpenAI", "has_tools", "system_text", "tool_results"]


def has_tools(body: Any) -> bool:
    """Whether a request offers tools (a harness's main turn, as opposed to a summary or title)."""
    return isinstance(body, dict) and bool(body.get("tools"))


def system_text(body: Any) -> str:
    """Every system message of a request, joined: where harnesses put their prompts."""
    if not isinstance(body, dict):
        return ""
    out: list[str] = []
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "system":
            content = message.get("content")
            if isinstance(content, str):
                out.append(content)
            elif isinstance(content, list):
                out.extend(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "\n".join(out)


def tool_results(body: Any) -> list[str]:
    """The tool results a request carries back to the model, in order (non-text ones as JSON)."""
    if not isinstance(body, dict):
        return []
    return [
        m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
        for m in body.get("messages") or []
        if isinstance(m, dict) and m.get("role") == "tool"
    ]


def _default_reply(body: dict[str, Any]) -> str:
    return "Hello from the fake model." if has_tools(body) else "A fake summary."


class FakeOpenAI(LoopbackServer):
    """The server: its ``base_url`` (``http://127.0.0.1:<port>/v1``) and what it received."""

    def __init__(
        self,
        reply: Callable[[dict[str, Any]], str] = _default_reply,
        *,
        log_path: Path | None = None,
        models: Sequence[str] = ("fake-model",),
        usage: dict[str, int] | None = None,
    ) -> None:
        self.reply = reply
        self.log_path = log_path
        self.models = list(models)
        self.usage = usage or {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
        #: Tool calls to make, in order, one per request that offers the tool and
        #: ends with a user message or a tool result: (tool name, arguments).
        self.tool_script: list[tuple[str, dict[str, Any]]] = []
        self._requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        super().__init__(self._handler())
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(QuietHandler):
            def _send(self, status: int, data: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                fake._record(self.command, self.path, dict(self.headers), None)
                if self.path.split("?", 1)[0] == "/v1/models":
                    data = [{"id": m, "object": "model"} for m in fake.models]
                    self._send(200, json.dumps({"object": "list", "data": data}).encode())
                else:
                    self._send(404, b'{"error":{"message":"not found"}}')

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                fake._record(self.command, self.path, dict(self.headers), body)
                if self.path.split("?", 1)[0] != "/v1/chat/completions" or not isinstance(
                    body, dict
                ):
                    self._send(404, b'{"error":{"message":"not found"}}')
                    return
                model = str(body.get("model") or fake.models[0])
                call = fake._next_tool_call(body)
                if call is not None:
                    chunks = fake._tool_chunks(model, *call)
                else:
                    chunks = fake._text_chunks(model, fake.reply(body))
                if body.get("stream"):
                    data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
                    self._send(200, (data + "data: [DONE]\n\n").encode(), "text/event-stream")
                else:
                    self._send(200, json.dumps(fake._completion(model, chunks)).encode())

        return Handler

    def _record(self, method: str, path: str, headers: dict[str, str], body: Any) -> None:
        line = {"method": method, "path": path, "headers": headers, "body": body}
        with self._lock:
            self._requests.append(line)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(line) + "\n")

    def _chunk(
        self, model: str, delta: dict[str, Any], finish: str | None, **extra: Any
    ) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }

    def _text_chunks(self, model: str, text: str) -> list[dict[str, Any]]:
        return [
            self._chunk(model, {"role": "assistant", "content": ""}, None),
            self._chunk(model, {"content": text}, None),
            self._chunk(model, {}, "stop", usage=self.usage),
        ]

    def _next_tool_call(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if not has_tools(body) or not messages or messages[-1].get("role") not in ("user", "tool"):
            return None
        offered = {
            str((t.get("function") or {}).get("name"))
            for t in body.get("tools") or []
            if isinstance(t, dict)
        }
        with self._lock:
            for n, (name, arguments) in enumerate(self.tool_script):
                if name in offered:
                    del self.tool_script[n]
                    return name, arguments
        return None

    def _tool_chunks(
        self, model: str, name: str, arguments: dict[str, Any]
    ) -> list[dict[str, Any]]:
        call = {
            "index": 0,
            "id": f"call_{name}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        delta = {"role": "assistant", "content": None, "tool_calls": [call]}
        return [
            self._chunk(model, delta, None),
            self._chunk(model, {}, "tool_calls", usage=self.usage),
        ]

    def _completion(self, model: str, chunks: list[dict[str, Any]]) -> dict[str, Any]:
        """The non-streaming form of the same reply."""
        text = "".join(str(c["choices"][0]["delta"].get("content") or "") for c in chunks)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        calls = chunks[0]["choices"][0]["delta"].get("tool_calls")
        if calls:
            message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
        finish = chunks[-1]["choices"][0]["finish_reason"]
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": self.usage,
        }

    def requests(self) -> list[dict[str, Any]]:
        """Every request so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def chat_bodies(self) -> list[dict[str, Any]]:
        """The bodies of the chat-completion requests so far (not of a harness's other probes)."""
        return [
            r["body"]
            for r in self.requests()
            if r["method"] == "POST"
            and r["path"].split("?", 1)[0] == "/v1/chat/completions"
            and isinstance(r["body"], dict)
        ]
