"""Helpers shared by the pi adapter tests (a module name no other test folder uses).

``ScriptedDaemon``: a stdlib HTTP server on 127.0.0.1 that answers each POST
with the next scripted reply and records it (with what a ``transcriptPath``
held when the request arrived). ``AdapterServer``: ``signet-sdk serve`` as a
process, the way the shim's transport finds one (its state file), stopped by
its PID. ``run_hook``: the fallback path, ``signet-sdk hook pi <event>``.
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
VECTORS = Path(__file__).resolve().parents[1] / "signet_adapter_pi" / "vectors"


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
    """``signet-sdk hook pi <event>`` once, with the payload on stdin (the transport's fallback)."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    proc = subprocess.run(
        [SDK, "hook", "pi", event], input=data, capture_output=True, env=dict(env), timeout=timeout
    )
    return HookRun(proc.returncode, proc.stdout, proc.stderr)


class AdapterServer(ServeProcess):
    """``signet-sdk serve --port 0`` as a process; :meth:`post` sends pi events."""

    harness = "pi"


class PiRpc:
    """``pi --mode rpc`` as a process: JSON lines in on stdin, out on stdout (split on LF only)."""

    def __init__(self, argv: list[str], cwd: Path, env: Mapping[str, str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: list[dict[str, Any]] = []
        # Waiters wake on every line (not on a polling tick): a turn is timed to the line.
        self._lock = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._ids = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buffer = b""
        while chunk := os.read(fd, 65536):
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    parsed = json.loads(line)
                except ValueError:
                    continue
                with self._lock:
                    self.lines.append(parsed)
                    self._lock.notify_all()
        with self._lock:
            self._lock.notify_all()  # pi's stdout closed: waiters stop waiting

    def _wait(self, found: Any, what: str, timeout: float) -> dict[str, Any]:
        end = time.monotonic() + timeout
        with self._lock:
            seen = 0
            while True:
                for line in self.lines[seen:]:
                    if found(line):
                        return line
                seen = len(self.lines)
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    break
                self._lock.wait(min(left, 0.5))
            kinds = [line.get("type") for line in self.lines[-20:]]
        raise AssertionError(f"pi rpc: no {what} within {timeout}s; last events {kinds}")

    def command(self, command: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
        """Send one command and return its response."""
        self._ids += 1
        ident = f"c{self._ids}"
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps({**command, "id": ident}) + "\n").encode())
        self.proc.stdin.flush()
        return self._wait(lambda line: line.get("id") == ident, f"response to {command}", timeout)

    def count(self, kind: str) -> int:
        with self._lock:
            return sum(1 for line in self.lines if line.get("type") == kind)

    def prompt(self, text: str, timeout: float = 60.0) -> None:
        """One prompt, until its agent_end."""
        ended = self.count("agent_end")
        response = self.command({"type": "prompt", "message": text}, timeout)
        assert response.get("success") is True, response
        end = time.monotonic() + timeout
        with self._lock:
            while sum(1 for line in self.lines if line.get("type") == "agent_end") <= ended:
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"pi rpc: no agent_end for {text!r}")
                self._lock.wait(min(left, 0.5))

    def close(self, timeout: float = 30.0) -> int:
        """Close stdin (pi shuts down) and wait; kill it if it does not exit."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        finally:
            self._reader.join(timeout=5)
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()
        return self.proc.returncode
