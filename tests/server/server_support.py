"""Helpers shared by the adapter server tests (a module name no other test folder uses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from signet_sdk.server import RuntimeAdapterServer


def make_client(server: RuntimeAdapterServer, **headers: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=server.asgi),
        base_url="http://127.0.0.1:3851",
        headers=headers,
        timeout=30,
    )


class StandInDaemon(ThreadingHTTPServer):
    """A daemon that answers every POST with ``status`` after ``delay`` seconds.

    ``received`` and ``answered`` count POSTs; ``paths`` lists what they asked
    for. A GET (the server's health probe) is answered at once, uncounted.
    """

    daemon_threads = True

    def __init__(self, delay: float = 0.0, status: int = 200) -> None:
        self.delay = delay
        self.status = status
        self.received = 0
        self.answered = 0
        self.paths: list[str] = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _StandInHandler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _StandInHandler(BaseHTTPRequestHandler):
    server: StandInDaemon

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = b'{"status":"healthy","version":"stand-in"}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        with self.server.lock:
            self.server.received += 1
            self.server.paths.append(self.path)
        time.sleep(self.server.delay)
        if self.server.status == 200:
            answer: dict[str, object] = {"inject": "slow but sure", "memoryCount": 1}
        else:
            answer = {"error": "the stand-in daemon failed"}
        body = json.dumps(answer).encode()
        try:
            self.send_response(self.server.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            return  # the caller gave up
        with self.server.lock:
            self.server.answered += 1


@contextmanager
def stand_in_daemon(delay: float = 0.0, status: int = 200) -> Iterator[StandInDaemon]:
    server = StandInDaemon(delay=delay, status=status)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve_process(
    daemon_url: str, state: Path, *extra: str, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``python -m signet_sdk.server --port 0 ...`` on 127.0.0.1; always stopped."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    full = {
        **base,
        "XDG_STATE_HOME": str(state),
        "SIGNET_DAEMON_URL": daemon_url,
        "SIGNET_OUTBOX_FLUSH_SECONDS": "0",  # a detached sender tries once, then exits
        **(env or {}),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "signet_sdk.server", "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://127.0.0.1:" in line, line + (
            proc.stderr.read() if proc.stderr else ""
        )
        yield proc, line.split("listening on ")[1].split(" ")[0]
    finally:
        if proc.poll() is None:
            proc.kill()
        with suppress(ValueError):  # the test already read the pipes to the end
            proc.communicate(timeout=15)
