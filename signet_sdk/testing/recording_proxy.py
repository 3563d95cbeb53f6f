"""A loopback HTTP proxy in front of a daemon that records every exchange.

An end-to-end test against the real daemon asserts the exact request the
daemon received and what it answered, as it does against the mock daemon:
this proxy forwards each request unchanged to the daemon and keeps a
:class:`~signet_sdk.testing.mock_daemon.RecordedRequest` of it, so a test
written for ``MockDaemon.requests`` reads the real daemon's traffic the same
way. Streams (``text/event-stream``) are relayed as they come and recorded
without a body.
"""

from __future__ import annotations

import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from signet_sdk.testing.loopback import LoopbackServer, QuietHandler
from signet_sdk.testing.mock_daemon import RecordedRequest

__all__ = ["RecordingProxy"]

_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host"}


def _loads(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except ValueError:
        return None


class RecordingProxy(LoopbackServer):
    """Forwards 127.0.0.1:<port> to ``upstream`` and records each exchange; stop it with close."""

    def __init__(self, upstream: str, *, timeout: float = 120.0) -> None:
        parts = urlsplit(upstream)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._timeout = timeout
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        proxy = self

        class Handler(QuietHandler):
            def _relay(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                conn = http.client.HTTPConnection(*proxy._target, timeout=proxy._timeout)
                try:
                    conn.request(self.command, self.path, body=body or None, headers=headers)
                    answer = conn.getresponse()
                    streaming = "event-stream" in (answer.getheader("content-type") or "")
                    content = b"" if streaming else answer.read()
                    self.send_response(answer.status)
                    for key, value in answer.getheaders():
                        if key.lower() not in _HOP and key.lower() != "content-length":
                            self.send_header(key, value)
                    if streaming:
                        self.send_header("connection", "close")
                        self.end_headers()
                    else:
                        self.send_header("content-length", str(len(content)))
                        self.end_headers()
                        self.wfile.write(content)
                    proxy._record(self, body, answer.status, content)
                    if streaming:
                        while chunk := answer.read1(65536):
                            self.wfile.write(chunk)
                            self.wfile.flush()
                        self.close_connection = True
                finally:
                    conn.close()

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = do_HEAD = _relay

        super().__init__(Handler)
        self.url = f"http://127.0.0.1:{self.port}"

    def _record(
        self, handler: BaseHTTPRequestHandler, body: bytes, status: int, content: bytes
    ) -> None:
        split = urlsplit(handler.path)
        entry = RecordedRequest(
            method=handler.command,
            path=split.path,
            query=dict(parse_qsl(split.query)),
            headers={k.lower(): v for k, v in handler.headers.items()},
            body=body,
            json=_loads(body),
            status=status,
            response_json=_loads(content),
        )
        with self._lock:
            self._requests.append(entry)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str, method: str | None = None) -> list[RecordedRequest]:
        return [
            r for r in self.requests if r.path == path and (method is None or r.method == method)
        ]
