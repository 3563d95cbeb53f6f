"""Helpers shared by the Hermes adapter tests (a module name no other test folder uses).

``ScriptedDaemon``: a stdlib HTTP server on 127.0.0.1 that answers each POST
with the next scripted reply (optionally after a delay) and records it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

VECTORS = Path(__file__).resolve().parents[1] / "signet_adapter_hermes" / "vectors"


def load_vectors() -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(VECTORS.glob("*.json"))]


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    json: Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    delay: float = 0.0
    #: Answer only a request to this path (writes reach the daemon after the reads).
    path: str | None = None


class ScriptedDaemon:
    """Answers each POST with the next scripted reply (or ``{}``) and records it."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.replies: list[Reply] = []
        self._lock = threading.Lock()
        daemon = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _answer(self, status: int, body: Any) -> None:
                data = json.dumps({} if body is None else body).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

            def do_GET(self) -> None:
                self._answer(200, {"status": "healthy", "version": "0.109.15"})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                with daemon._lock:
                    daemon.requests.append(Recorded(self.path, headers, json.loads(raw or b"null")))
                    reply = daemon._take(self.path)
                if reply.delay:
                    time.sleep(reply.delay)
                self._answer(reply.status, reply.body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def _take(self, path: str) -> Reply:
        for i, reply in enumerate(self.replies):
            if reply.path in (None, path):
                return self.replies.pop(i)
        return Reply()

    def reset(self, replies: list[Reply]) -> None:
        with self._lock:
            self.requests.clear()
            self.replies = list(replies)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Recorded]:
        end = time.monotonic() + timeout
        while time.monotonic() < end and len(self.requests) < count:
            time.sleep(0.02)
        return list(self.requests)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)


def outbox_entries(env: Mapping[str, str]) -> list[str]:
    """The ids of the writes still queued in the outbox under ``env``'s state dir."""
    from signet_sdk.hooks.outbox import Outbox, state_dir

    return Outbox(Path(state_dir(env)) / "outbox").pending()
