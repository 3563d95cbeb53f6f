"""Helpers shared by the Gemini CLI adapter tests (imported by conftest and tests).

``ScriptedDaemon`` is a stdlib HTTP server on 127.0.0.1 that answers from a
script (status, body, delay) and records every request; ``run_hook`` runs the
installed hook command the way Gemini CLI does.
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

#: The command the installer registers: the core's hook runner with this plugin.
HOOK = [str(Path(sys.executable).parent / "signet-sdk"), "hook", "gemini"]
VECTORS = Path(__file__).resolve().parents[1] / "signet_adapter_gemini" / "vectors"


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
    delay: float = 0.0


class ScriptedDaemon:
    """Answers each POST with the next scripted reply (or the default) and records it."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.replies: list[Reply] = []
        self.default = Reply()
        self._lock = threading.Lock()
        daemon = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
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
                    reply = daemon.replies.pop(0) if daemon.replies else daemon.default
                if reply.delay:
                    time.sleep(reply.delay)
                data = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

            do_GET = do_POST

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Recorded]:
        end = time.monotonic() + timeout
        while time.monotonic() < end and len(self.requests) < count:
            time.sleep(0.02)
        return list(self.requests)


def state_dir() -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "signet-sdk"


def hook_log_lines() -> list[str]:
    path = state_dir() / "hooks.log"
    return path.read_text().splitlines() if path.exists() else []


def wait_outbox_empty(timeout: float = 10.0) -> list[str]:
    """Wait for detached flushers to drain the outbox; returns what is left."""
    outbox = state_dir() / "outbox"
    end = time.monotonic() + timeout
    left: list[str] = []
    while time.monotonic() < end:
        left = sorted(p.name for p in outbox.glob("*.json")) if outbox.exists() else []
        if not left:
            return left
        time.sleep(0.05)
    return left


@dataclass
class HookRun:
    returncode: int
    stdout: bytes
    stderr: bytes
    seconds: float


def run_hook(
    event: str | None,
    payload: Any,
    *,
    daemon_url: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> HookRun:
    """Run the installed hook command once, as Gemini CLI does."""
    full = dict(os.environ)
    if daemon_url:
        full["SIGNET_DAEMON_URL"] = daemon_url
    full.update(env or {})
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    argv = [*HOOK, *([event] if event else [])]
    start = time.monotonic()
    proc = subprocess.run(argv, input=data, capture_output=True, env=full, timeout=timeout)
    return HookRun(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)


def load_vectors() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(VECTORS.glob("*.json"))]


def chat_file(gemini_dir: Path, records: list[dict[str, Any]], name: str = "session-1") -> Path:
    """A chat file where Gemini keeps one: ``<.gemini>/tmp/atlas/chats/<name>.jsonl``."""
    folder = gemini_dir / "tmp" / "atlas" / "chats"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def message(n: int, kind: str, text: str, second: int, tokens: int | None = None) -> dict[str, Any]:
    """One chat message record as Gemini CLI writes it."""
    record: dict[str, Any] = {
        "id": f"m{n}",
        "timestamp": f"2026-11-24T09:12:{second:02d}.000Z",
        "type": kind,
        "content": [{"text": text}] if kind == "user" else text,
    }
    if tokens is not None:
        record["tokens"] = {"input": tokens, "output": 8, "total": tokens + 8}
        record["model"] = "gemini-2.5-pro"
    return record
