"""``signet-sdk serve`` as a real process: socket, state file, idle exit, SIGTERM drain."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from signet_sdk.server.discovery import discover


class SlowDaemon(ThreadingHTTPServer):
    """Answers every hook after ``delay`` seconds, and counts what it answered."""

    daemon_threads = True

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.received = 0
        self.answered = 0
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _SlowHandler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _SlowHandler(BaseHTTPRequestHandler):
    server: SlowDaemon

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        with self.server.lock:
            self.server.received += 1
        time.sleep(self.server.delay)
        body = json.dumps({"inject": "slow but sure", "memoryCount": 1}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        with self.server.lock:
            self.server.answered += 1


@pytest.fixture
def slow_daemon() -> Iterator[SlowDaemon]:
    server = SlowDaemon(delay=1.0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _start(daemon_url: str, state: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "XDG_STATE_HOME": str(state), "SIGNET_DAEMON_URL": daemon_url}
    proc = subprocess.Popen(
        [sys.executable, "-m", "signet_sdk", "serve", "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "listening on http://127.0.0.1:" in line, line + (
        proc.stderr.read() if proc.stderr else ""
    )
    url = line.split("listening on ")[1].split(" ")[0]
    return proc, url


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=10)


def test_state_file_for_shims_while_running(tmp_path: Path, slow_daemon: SlowDaemon) -> None:
    proc, url = _start(slow_daemon.url, tmp_path)
    try:
        path = tmp_path / "signet-sdk" / "adapter-server.json"
        record = json.loads(path.read_text())
        assert record == {
            "url": url,
            "port": int(url.rsplit(":", 1)[1]),
            "pid": proc.pid,
            "token": None,
        }
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert discover({"XDG_STATE_HOME": str(tmp_path)}) == (url, None)
        assert discover(
            {"SIGNET_ADAPTER_URL": "http://127.0.0.1:1/", "SIGNET_ADAPTER_TOKEN": "t"}
        ) == (
            "http://127.0.0.1:1",
            "t",
        )
        assert httpx.get(f"{url}/health", timeout=10).json()["status"] == "ok"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert not path.exists()  # removed on exit
        assert discover({"XDG_STATE_HOME": str(tmp_path)}) is None
    finally:
        _stop(proc)


def test_sigterm_with_requests_in_flight_loses_none(
    tmp_path: Path, slow_daemon: SlowDaemon
) -> None:
    proc, url = _start(slow_daemon.url, tmp_path)
    results: list[int] = []

    def one(n: int) -> None:
        answer = httpx.post(
            f"{url}/v1/x/lifecycle/user-prompt-submit",
            json={"sessionKey": f"s{n}", "userMessage": "hello"},
            timeout=20,
        )
        results.append(answer.status_code)

    try:
        threads = [threading.Thread(target=one, args=(n,)) for n in range(6)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 10
        while slow_daemon.received < 6 and time.monotonic() < deadline:
            time.sleep(0.01)
        # Every request is now waiting on the daemon (it answers after 1 s): stop the server.
        assert slow_daemon.received == 6 and slow_daemon.answered == 0
        proc.send_signal(signal.SIGTERM)
        for t in threads:
            t.join(timeout=20)
        assert proc.wait(timeout=20) == 0
    finally:
        _stop(proc)
    assert results == [200] * 6
    assert slow_daemon.answered == 6


def test_idle_exit(tmp_path: Path, slow_daemon: SlowDaemon) -> None:
    proc, _ = _start(slow_daemon.url, tmp_path, "--idle-exit", "1")
    try:
        assert proc.wait(timeout=15) == 0
    finally:
        _stop(proc)
    assert not (tmp_path / "signet-sdk" / "adapter-server.json").exists()
