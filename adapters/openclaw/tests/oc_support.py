"""Helpers shared by the OpenClaw adapter tests (a module name no other test folder uses).

``ScriptedDaemon``: a stdlib HTTP server on 127.0.0.1 that answers each POST
with the next scripted reply and records it (with what a ``transcriptPath``
held when the request arrived). ``AdapterServer``: ``signet-sdk serve`` as a
process, the way the shim's transport finds one (its state file), stopped by
its PID. ``run_hook``: the fallback path, ``signet-sdk hook openclaw <hook>``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from signet_sdk.testing.serve_process import ServeProcess

SDK = str(Path(sys.executable).parent / "signet-sdk")
VECTORS = Path(__file__).resolve().parents[1] / "signet_adapter_openclaw" / "vectors"


def load_vectors() -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(VECTORS.glob("*.json"))]


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    json: Any
    #: What the file named by ``transcriptPath`` held when the request arrived.
    staged: bytes | None = None


@dataclass
class Reply:
    status: int = 200
    body: Any = field(default_factory=dict)


class ScriptedDaemon:
    """Answers each POST with the next scripted reply (or ``{}``) and records it.

    A GET (the adapter server's health probe) gets a healthy answer, unrecorded.
    """

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
                data = json.dumps(body).encode()
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
                try:
                    parsed = json.loads(raw) if raw else None
                except ValueError:
                    parsed = raw.decode("utf-8", "replace")
                staged = None
                if isinstance(parsed, dict) and isinstance(parsed.get("transcriptPath"), str):
                    try:
                        staged = Path(parsed["transcriptPath"]).read_bytes()
                    except OSError:
                        staged = None
                headers = {k.lower(): v for k, v in self.headers.items()}
                with daemon._lock:
                    daemon.requests.append(Recorded("POST", self.path, headers, parsed, staged))
                    reply = daemon.replies.pop(0) if daemon.replies else Reply()
                self._answer(reply.status, reply.body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

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


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    return Path((env or os.environ)["XDG_STATE_HOME"]) / "signet-sdk"


def outbox_entries(env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The entries waiting in the outbox, oldest first."""
    folder = state_dir(env) / "outbox"
    if not folder.exists():
        return []
    entries = []
    for path in sorted(p for p in folder.glob("*.json") if not p.name.startswith(".")):
        try:
            entries.append(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            continue  # delivered (and removed) between the listing and the read
    return entries


def wait_outbox_empty(env: Mapping[str, str] | None = None, timeout: float = 10.0) -> list[str]:
    """Wait for background deliveries to drain the outbox; returns the actions left."""
    end = time.monotonic() + timeout
    left = [e["action"] for e in outbox_entries(env)]
    while left and time.monotonic() < end:
        time.sleep(0.05)
        left = [e["action"] for e in outbox_entries(env)]
    return left


@dataclass
class HookRun:
    returncode: int
    stdout: bytes
    stderr: bytes


def run_hook(event: str, payload: Any, env: Mapping[str, str], timeout: float = 30.0) -> HookRun:
    """``signet-sdk hook openclaw <hook>`` once, the payload on stdin (the fallback path)."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    proc = subprocess.run(
        [SDK, "hook", "openclaw", event],
        input=data,
        capture_output=True,
        env=dict(env),
        timeout=timeout,
    )
    return HookRun(proc.returncode, proc.stdout, proc.stderr)


class AdapterServer(ServeProcess):
    """``signet-sdk serve --port 0`` as a process; :meth:`post` sends openclaw events."""

    harness = "openclaw"
