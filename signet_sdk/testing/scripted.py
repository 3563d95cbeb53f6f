"""A daemon that answers from a script: for testing what an adapter sends and does with answers.

``ScriptedDaemon`` is a standard-library HTTP server on 127.0.0.1 that
answers each POST (or PATCH, DELETE) with the next scripted :class:`Reply`
(status, body, delay, optionally only for one path) and records every
request, with what the file named by a body's ``transcriptPath`` held when
the request arrived. A GET (an adapter server's health probe) is answered
healthy and not recorded. Use it as a context manager, or close it.
:func:`assert_received` compares what it received with a vector's calls.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from signet_sdk.testing.loopback import LoopbackServer, QuietHandler

__all__ = ["Recorded", "Reply", "ScriptedDaemon", "assert_received"]


@dataclass
class Recorded:
    """One request as the daemon received it (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    json: Any
    #: What the file named by ``transcriptPath`` held when the request arrived.
    staged: bytes | None = None


@dataclass
class Reply:
    """One scripted answer; ``path`` makes it wait for a request to that path."""

    status: int = 200
    body: Any = field(default_factory=dict)
    delay: float = 0.0
    path: str | None = None


class ScriptedDaemon(LoopbackServer):
    """Answers each write with the next scripted reply (else ``default``) and records it."""

    #: What ``GET`` answers: a daemon in good health, of the oldest supported release.
    HEALTH = {"status": "healthy", "version": "0.109.15"}

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.replies: list[Reply] = []
        self.default = Reply()
        self._lock = threading.Lock()
        daemon = self

        class Handler(QuietHandler):
            def _answer(self, status: int, body: Any) -> None:
                data = json.dumps({} if body is None else body).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (a hook past its deadline): nothing to tell

            def do_GET(self) -> None:
                self._answer(200, daemon.HEALTH)

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
                record = Recorded(self.command, self.path, headers, parsed, staged)
                with daemon._lock:
                    daemon.requests.append(record)
                    reply = daemon._take(self.path)
                if reply.delay:
                    time.sleep(reply.delay)
                self._answer(reply.status, reply.body)

            do_PATCH = do_DELETE = do_POST

        super().__init__(Handler)
        self.url = f"http://127.0.0.1:{self.port}"

    def _take(self, path: str) -> Reply:
        for i, reply in enumerate(self.replies):
            if reply.path in (None, path):
                return self.replies.pop(i)
        return self.default

    def script(self, replies: list[Reply]) -> None:
        """Forget what was received and answer the next requests with ``replies``."""
        with self._lock:
            self.requests.clear()
            self.replies = list(replies)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Recorded]:
        """The requests so far, once there are ``count`` (or ``timeout`` passed)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and len(self.requests) < count:
            time.sleep(0.02)
        with self._lock:
            return list(self.requests)


def assert_received(
    received: Sequence[Recorded],
    calls: Sequence[Mapping[str, Any]],
    *,
    staged: bytes | None = None,
    runtime_path: str | None = None,
) -> None:
    """Raise ``AssertionError`` unless ``received`` are a vector's ``calls``, path and body.

    A ``transcriptPath`` in a call's body stands for the copy the core staged
    under /tmp/signet: the request's must be there and (``staged``) have held
    those bytes when it arrived. A write sent through the outbox carries its
    entry id as ``idempotencyKey`` (and ``sourceId`` ``signet-sdk:<id>``)
    where the call has none. ``runtime_path``: the ``x-signet-runtime-path``
    header every request must carry.
    """
    assert [r.path for r in received] == [c["path"] for c in calls]
    for request, call in zip(received, calls, strict=True):
        expected, body = dict(call["body"]), dict(request.json)
        if "transcriptPath" in expected:
            del expected["transcriptPath"]
            assert body.pop("transcriptPath").startswith("/tmp/signet/")
            if staged is not None:
                assert request.staged == staged  # the daemon could read the whole file
        if "idempotencyKey" in body and "idempotencyKey" not in expected:
            key = body.pop("idempotencyKey")
            assert body.pop("sourceId") == f"signet-sdk:{key}"
        assert body == expected
        if runtime_path is not None:
            assert request.headers["x-signet-runtime-path"] == runtime_path
