"""A fake OpenAI Responses API on 127.0.0.1 for running the real ``codex`` offline.

Codex 0.169 talks to a custom model provider (``wire_api = "responses"``)
with ``POST {base_url}/responses`` and reads a server-sent event stream. This
server answers every such request with one assistant message (``REPLY``, or
``SUMMARY`` when the request is Codex's compaction prompt) as
``response.created``, ``response.output_item.done`` and
``response.completed`` events; ``GET .../models`` gets an empty model list
and anything else a JSON 404. Every request is appended to a JSON-lines log
(method, path, parsed body), which is what tests search for injected context.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPLY = "FAKE-REPLY: noted."
SUMMARY = "CX-E2E-SUMMARY-31c9: the user asked how atlas deploys work."
#: What Codex asks the model when it compacts (its compaction prompt's first words).
_COMPACT_MARK = "CONTEXT CHECKPOINT COMPACTION"


def _sse(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


class FakeResponses:
    """The server; ``start()`` binds a free port, ``stop()`` shuts it down."""

    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._count = 0
        self._lock = threading.Lock()
        #: The usage reported per answer; above ``model_auto_compact_token_limit``
        #: it makes Codex compact before its next turn.
        self.total_tokens = 15

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def requests(self) -> list[dict[str, Any]]:
        if not self.log_path.exists():
            return []
        lines = self.log_path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def _record(self, entry: dict[str, Any]) -> int:
        with self._lock:
            self._count += 1
            with self.log_path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry) + "\n")
            return self._count

    def start(self) -> FakeResponses:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _json(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                fake._record({"method": "GET", "path": self.path, "body": None})
                if self.path.split("?")[0].endswith("/models"):
                    self._json(200, {"object": "list", "data": [], "models": []})
                else:
                    self._json(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                n = fake._record({"method": "POST", "path": self.path, "body": body})
                if not self.path.split("?")[0].endswith("/responses"):
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                rid = f"resp_fake_{n}"
                text = SUMMARY if _COMPACT_MARK in json.dumps(body) else REPLY
                item = {
                    "type": "message",
                    "id": f"msg_fake_{n}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
                usage = {
                    "input_tokens": fake.total_tokens - 5,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens": 5,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": fake.total_tokens,
                }
                events: list[dict[str, Any]] = [
                    {"type": "response.created", "response": {"id": rid}},
                    {"type": "response.output_item.added", "output_index": 0, "item": item},
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                    {
                        "type": "response.completed",
                        "response": {"id": rid, "output": [item], "usage": usage},
                    },
                ]
                data = b"".join(_sse(e) for e in events)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
