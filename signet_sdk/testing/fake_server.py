"""A loopback HTTP server to stand in for a harness's model API: :class:`FakeServer`.

An end-to-end test runs the real harness offline by pointing it at a fake
model on 127.0.0.1. The protocols differ (Anthropic Messages, OpenAI
Responses, Gemini, ...) and each adapter's tests keep their own; what every
fake needs is the same and lives here: a threaded server on a free port,
each request's JSON body parsed and recorded (and logged as JSON lines, for
reading after a failed run), and one method to override, :meth:`FakeServer.answer`,
with :func:`json_answer` and :func:`sse_answer` for the usual replies.
Standard library only.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["Answer", "FakeServer", "json_answer", "sse_answer"]

#: A reply: status, body bytes, content type.
Answer = tuple[int, bytes, str]


def json_answer(body: Any, status: int = 200) -> Answer:
    """``body`` as a JSON reply."""
    return status, json.dumps(body).encode(), "application/json"


def sse_answer(events: Iterable[tuple[str | None, Any]]) -> Answer:
    """Server-sent events, each ``event: <name>`` (when named) and one ``data:`` line of JSON."""
    text = "".join(
        (f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
        for name, data in events
    )
    return 200, text.encode(), "text/event-stream"


class _Handler(BaseHTTPRequestHandler):
    """Parses and records each request, then writes what :meth:`FakeServer.answer` gives."""

    protocol_version = "HTTP/1.1"
    server: FakeServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _serve(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.server.record(
            {"method": self.command, "path": self.path, "headers": headers, "body": body}
        )
        status, data, content_type = self.server.answer(self.command, self.path, body)
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _serve


class FakeServer(ThreadingHTTPServer):
    """A server on ``url`` (``http://127.0.0.1:<port>``) from construction to :meth:`close`.

    Subclasses override :meth:`answer`; :meth:`requests` gives what was
    received, oldest first, each a dict of ``method``, ``path`` (with its
    query), ``headers`` (names lower-cased) and ``body`` (the parsed JSON,
    ``{"_raw": text}`` when it is not JSON, ``None`` when there is none).
    """

    daemon_threads = True

    def __init__(self, log_path: Path | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.log_path = log_path
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        self._requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def answer(self, method: str, path: str, body: Any) -> Answer:
        """The reply to one request (``path`` with its query): by default a JSON 404."""
        return json_answer({"error": {"message": f"no route {method} {path}"}}, 404)

    def record(self, entry: dict[str, Any]) -> None:
        """Keep one request (and append it to ``log_path`` when there is one)."""
        with self._lock:
            self._requests.append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry) + "\n")

    def requests(self) -> list[dict[str, Any]]:
        """Every request so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def close(self) -> None:
        """Stop serving and free the port."""
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)

    def __exit__(self, *exc: object) -> None:
        self.close()
