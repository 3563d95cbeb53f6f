"""A fake Gemini API on 127.0.0.1 for running the real ``gemini`` offline.

Gemini CLI 0.61 with ``GOOGLE_GEMINI_BASE_URL`` set (and any API key) sends
``POST {base}/v1beta/models/<model>:streamGenerateContent?alt=sse`` for the
agent's turns (answered as server-sent events, one ``data:`` line per
chunk), ``:generateContent`` for its utility calls (the compression summary
and its check, JSON answers) and ``:countTokens``. Every request is
appended to a JSON-lines log (method, path, parsed body): what tests search
for injected context.

What the fake answers:

* a request whose system instruction is Gemini's compression prompt (it
  asks for a ``<state_snapshot>``): :data:`SUMMARY`;
* a request asking for JSON (``responseMimeType``, the model router and
  the next-speaker check): one object that fits each of those schemas;
* a turn whose user text holds :data:`TOOLS_MARK`: a call of the
  ``memory_store`` tool, then (after its result) ``memory_search``, then
  :data:`REPLY`, the tool names taken from the request's declarations;
* anything else: :data:`REPLY`.

Each answer reports ``prompt_tokens`` as its prompt token count; a large
value makes Gemini compress before its next model request.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPLY = "FAKE-GEMINI-REPLY: noted."
SUMMARY = (
    "<state_snapshot>GM-E2E-SUMMARY-7d21: atlas deploys go through make ship.</state_snapshot>"
)
TOOLS_MARK = "USE-MEMORY-TOOLS"
STORED = "Atlas staging runs on pg-staging-2, marker GM-TOOL-5150"
_COMPRESS_MARK = "<state_snapshot>"


def _texts(content: Any) -> list[str]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [
        p["text"] for p in parts or [] if isinstance(p, dict) and isinstance(p.get("text"), str)
    ]


def _tool_names(body: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for tool in body.get("tools") or []:
        for decl in tool.get("functionDeclarations") or []:
            if isinstance(decl, dict) and isinstance(decl.get("name"), str):
                names.append(decl["name"])
    return names


class FakeGemini:
    """The server; ``start()`` binds a free port, ``stop()`` shuts it down."""

    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.prompt_tokens = 20
        #: The prompt token count reported with the next tool call (once), when set:
        #: a large one makes Gemini compress before the model call that follows.
        self.tool_call_prompt_tokens: int | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def requests(self) -> list[dict[str, Any]]:
        if not self.log_path.exists():
            return []
        lines = self.log_path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def _record(self, entry: dict[str, Any]) -> None:
        with self._lock, self.log_path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")

    def _usage(self, parts: list[dict[str, Any]]) -> dict[str, int]:
        used = self.prompt_tokens
        if self.tool_call_prompt_tokens is not None and any("functionCall" in p for p in parts):
            used, self.tool_call_prompt_tokens = self.tool_call_prompt_tokens, None
        return {"promptTokenCount": used, "candidatesTokenCount": 8, "totalTokenCount": used + 8}

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The ``GenerateContentResponse`` for one request."""
        system = " ".join(_texts(body.get("systemInstruction") or {}))
        config = body.get("generationConfig") or {}
        if _COMPRESS_MARK in system:
            parts: list[dict[str, Any]] = [{"text": SUMMARY}]
        elif config.get("responseMimeType") == "application/json":
            # One object that satisfies each utility schema Gemini asks with
            # (the model router's score, the next-speaker check).
            reply = {
                "complexity_reasoning": "a short question",
                "complexity_score": 10,
                "next_speaker": "user",
                "reasoning": "the answer is complete",
            }
            parts = [{"text": json.dumps(reply)}]
        else:
            parts = self._turn(body)
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": self._usage(parts),
            "modelVersion": "gemini-2.5-pro",
        }

    def _turn(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        contents = body.get("contents") or []
        user_texts = [t for c in contents if c.get("role") == "user" for t in _texts(c)]
        asked = any(TOOLS_MARK in t for t in user_texts[-3:])
        if not asked:
            return [{"text": REPLY}]
        done = [
            p["functionResponse"].get("name", "")
            for c in contents
            for p in c.get("parts") or []
            if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
        ]
        names = _tool_names(body)
        store = next((n for n in names if n.endswith("memory_store")), None)
        search = next((n for n in names if n.endswith("memory_search")), None)
        if store and not any(d.endswith("memory_store") for d in done):
            return [{"functionCall": {"name": store, "args": {"content": STORED}}}]
        if search and not any(d.endswith("memory_search") for d in done):
            return [{"functionCall": {"name": search, "args": {"query": "atlas staging"}}}]
        return [{"text": REPLY}]

    def start(self) -> FakeGemini:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, data: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {"raw": raw.decode("utf-8", "replace")}
                fake._record({"method": "POST", "path": self.path, "body": body})
                path = self.path.split("?", 1)[0]
                if path.endswith(":countTokens"):
                    self._send(200, json.dumps({"totalTokens": 20}).encode(), "application/json")
                elif path.endswith(":streamGenerateContent"):
                    chunk = json.dumps(fake.answer(body))
                    self._send(200, f"data: {chunk}\r\n\r\n".encode(), "text/event-stream")
                elif path.endswith(":generateContent"):
                    data = json.dumps(fake.answer(body)).encode()
                    self._send(200, data, "application/json")
                else:
                    error = {"error": {"code": 404, "message": "not here", "status": "NOT_FOUND"}}
                    self._send(404, json.dumps(error).encode(), "application/json")

            def do_GET(self) -> None:
                fake._record({"method": "GET", "path": self.path, "body": None})
                error = {"error": {"code": 404, "message": "not here", "status": "NOT_FOUND"}}
                self._send(404, json.dumps(error).encode(), "application/json")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
