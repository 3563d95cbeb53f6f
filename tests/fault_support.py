"""A loopback proxy that puts one fault between a client and a (mock) daemon.

``FaultProxy`` listens on 127.0.0.1, reads each whole HTTP/1.1 request and
then, by its ``mode``:

* ``pass``: forwards it to the upstream daemon and returns the answer;
* ``slow``: forwards it at once (the daemon acts) but holds the answer back
  ``delay`` seconds, the way a daemon busy after applying a write answers late;
* ``slow_before``: holds the request ``delay`` seconds before the daemon sees it;
* ``trickle``: forwards it and sends the answer one byte every ``delay`` seconds;
* ``hang``: reads the request and never answers;
* ``status``: answers ``status`` with ``body`` and ``headers`` without forwarding;
* ``garbage``: a 200 whose body is not JSON;
* ``reset``: a 200 that announces more bytes than it sends, then closes;
* ``oversized``: a 200 whose JSON body is ``size`` bytes;
* ``lost``: forwards it (its ``Host`` naming the upstream, as a server that
  checks it wants), reads the whole answer (by its ``Content-Length``: the
  upstream may keep the connection open), calls ``on_answer`` and then resets
  the client's connection instead of answering: whatever the upstream did, the
  client never hears of it (a server killed after its work, before its answer).

Every request is recorded (method, path, JSON body); ``forwarded`` lists the
paths of faulted requests whose forward to the upstream has completed, ``lost``
the answers ``lost`` kept from the client. ``fail_first`` limits a
fault to the first N requests; later ones pass through. ``only`` limits it to
requests whose path starts with that prefix (others pass, and do not count). The proxy runs in
threads of this process and is stopped by ``close()``.

For the tests that run a real hook process: ``hook_env`` (its whole
environment, state under a temporary home), ``run_hook`` (one
``signet-sdk hook`` process) and ``sender_idle`` (no detached outbox sender
is running). For the tests that send through a JavaScript shim's transport:
``SEND_NATIVE``, the Node script that sends one native event.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SIGNET_SDK = str(Path(sys.executable).parent / "signet-sdk")
#: Node: send one native event through the transport module argv[1] (harness, event,
#: JSON payload, deadline in ms); writes ``{"data", "ms"}`` to stderr.
SEND_NATIVE = """
const t = await import(process.argv[1]);
const started = performance.now();
const data = await t.send(process.argv[2], process.argv[3], JSON.parse(process.argv[4]), {
  timeoutMs: Number(process.argv[5]),
});
process.stderr.write(JSON.stringify({ data: data ?? null, ms: performance.now() - started }));
"""
#: A Claude Code prompt, the event most fault tests send through a hook process.
PROMPT = b'{"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "hi"}'


def hook_env(home: Path, **extra: str) -> dict[str, str]:
    """A hook process's whole environment: PATH, ``home`` as HOME, its ``state`` as XDG state."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / "state"),
        **extra,
    }


def run_hook(
    env: dict[str, str],
    harness: str = "claude-code",
    event: str = "UserPromptSubmit",
    payload: bytes = PROMPT,
    timeout: float = 30,
) -> subprocess.CompletedProcess[bytes]:
    """One ``signet-sdk hook <harness> <event>`` process given ``payload`` on stdin."""
    return subprocess.run(
        [SIGNET_SDK, "hook", harness, event],
        input=payload,
        capture_output=True,
        env=env,
        timeout=timeout,
    )


def session_end_keys(daemon: Any, seconds: float = 20.0) -> list[str]:
    """The session keys of the session-ends ``daemon`` (a mock) got, once one arrived
    (or ``seconds`` passed): a detached sender delivers them after the hook exits."""
    deadline = time.monotonic() + seconds
    while True:
        keys = [r.json["sessionKey"] for r in daemon.requests_to("/api/hooks/session-end")]
        if keys or time.monotonic() > deadline:
            return keys
        time.sleep(0.05)


def sender_idle(outbox: Path) -> bool:
    """No detached sender holds the sender lock of the ``outbox`` folder (it has exited)."""
    try:
        fd = os.open(outbox / ".sender.lock", os.O_RDWR)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def _read_request(conn: socket.socket) -> bytes | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        rest += chunk
    return head + b"\r\n\r\n" + rest


def _forward(upstream: tuple[str, int], request: bytes) -> bytes:
    with socket.create_connection(upstream, timeout=30) as up:
        up.sendall(request)
        chunks = []
        while chunk := up.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _response(status: int, body: bytes, headers: dict[str, str] | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status} X", "Content-Type: application/json"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    lines += [f"Content-Length: {len(body)}", "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@dataclass
class Seen:
    method: str
    path: str
    json: Any


@dataclass
class FaultProxy:
    upstream: tuple[str, int] | None = None
    mode: str = "pass"
    delay: float = 0.0
    status: int = 500
    body: Any = field(default_factory=lambda: {"error": "Hook execution failed"})
    headers: dict[str, str] = field(default_factory=dict)
    size: int = 20 * 1024 * 1024
    fail_first: int | None = None
    only: str | None = None
    on_answer: Callable[[], None] | None = None
    seen: list[Seen] = field(default_factory=list)
    forwarded: list[str] = field(default_factory=list)
    lost: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                request = _read_request(conn)
                if request is None:
                    return
                head, _, raw = request.partition(b"\r\n\r\n")
                method, path = head.split(b" ", 2)[:2]
                try:
                    parsed = json.loads(raw) if raw else None
                except ValueError:
                    parsed = raw
                targeted = self.only is None or path.decode().startswith(self.only)
                with self._lock:
                    self.seen.append(Seen(method.decode(), path.decode(), parsed))
                    n = sum(
                        1 for s in self.seen if self.only is None or s.path.startswith(self.only)
                    )
                mode = self.mode if targeted else "pass"
                if self.fail_first is not None and n > self.fail_first:
                    mode = "pass"
                self._answer(conn, mode, request)
        except OSError:
            pass

    def _answer(self, conn: socket.socket, mode: str, request: bytes) -> None:
        if mode == "status":
            body = json.dumps(self.body).encode()
            conn.sendall(_response(self.status, body, self.headers))
        elif mode == "hang":
            while not self._closed:  # accepts, reads, never answers
                time.sleep(0.05)
        elif mode == "garbage":
            conn.sendall(_response(200, b"<html>not json"))
        elif mode == "reset":
            head = (
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 99\r\n\r\n"
            )
            conn.sendall(head + b'{"partial":')
            # Linger 0: the close is a TCP reset, not an orderly end of stream.
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif mode == "lost":
            assert self.upstream is not None, "lost needs an upstream"
            host = f"{self.upstream[0]}:{self.upstream[1]}".encode()
            head, _, rest = request.partition(b"\r\n\r\n")
            lines = [
                b"Host: " + host if line.lower().startswith(b"host:") else line
                for line in head.split(b"\r\n")
            ]
            with socket.create_connection(self.upstream, timeout=30) as up:
                up.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + rest)
                answer = _read_request(up)  # the whole answer, which the client never gets
            with self._lock:
                self.lost.append(answer or b"")
            if self.on_answer is not None:
                self.on_answer()
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif mode == "oversized":
            body = b'{"context":"' + b"x" * self.size + b'"}'
            conn.sendall(_response(200, body))
        else:
            assert self.upstream is not None, "pass/slow/trickle need an upstream"
            if mode == "slow_before":
                time.sleep(self.delay)
            answer = _forward(self.upstream, request)
            if mode != "pass":
                with self._lock:
                    self.forwarded.append(request.split(b" ", 2)[1].decode())
            if mode == "slow":
                time.sleep(self.delay)
                conn.sendall(answer)
            elif mode == "trickle":
                for i in range(len(answer)):
                    conn.sendall(answer[i : i + 1])
                    time.sleep(self.delay)
                    if self._closed:
                        return
            else:
                conn.sendall(answer)

    def requests_to_prefix(self, prefix: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.path.startswith(prefix)]

    def requests_to(self, path: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.path.split("?")[0] == path]

    def close(self) -> None:
        self._closed = True
        self._sock.close()

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- a state directory that cannot be written, in this process ---------------------------


def break_disk(monkeypatch: Any, under: Path, how: str) -> None:
    """Make the disk fail for everything under ``under`` in this process, as the kernel would.

    ``how``: ``full`` (``ENOSPC`` on every ``os.write`` to a file opened there and on
    ``os.mkdir``: creating an empty file still works, as on a real full disk) or
    ``read-only`` (``EROFS`` on opening a file there for writing, and on every call
    that changes the folder). Calls on other paths are untouched (the mock daemon in
    its thread, the test's own files). ``monkeypatch`` undoes it.
    """
    import errno

    code = {"full": errno.ENOSPC, "read-only": errno.EROFS}[how]
    root = os.path.abspath(under)
    real_open, real_write, real_close = os.open, os.write, os.close
    ours: set[int] = set()

    def inside(path: Any) -> bool:
        if isinstance(path, int):
            return path in ours
        where = os.path.abspath(os.fspath(path))
        return where == root or where.startswith(root + os.sep)

    def refuse(path: Any) -> OSError:
        return OSError(code, os.strerror(code), str(path))

    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def fake_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: Any = None) -> int:
        if how == "read-only" and flags & writing and inside(path):
            raise refuse(path)
        fd = real_open(path, flags, mode, dir_fd=dir_fd)
        if inside(path):
            ours.add(fd)
        return fd

    def fake_write(fd: int, data: Any) -> int:
        if fd in ours:
            raise refuse(fd)
        return real_write(fd, data)

    def fake_close(fd: int) -> None:
        ours.discard(fd)
        real_close(fd)

    def changing(real: Callable[..., Any], always: bool = False) -> Callable[..., Any]:
        def call(path: Any, *args: Any, **kwargs: Any) -> Any:
            if (always or how == "read-only") and inside(path):
                raise refuse(path)
            return real(path, *args, **kwargs)

        return call

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "write", fake_write)
    monkeypatch.setattr(os, "close", fake_close)
    monkeypatch.setattr(os, "mkdir", changing(os.mkdir, always=True))
    for name in ("replace", "rename", "unlink", "chmod", "utime"):
        monkeypatch.setattr(os, name, changing(getattr(os, name)))
