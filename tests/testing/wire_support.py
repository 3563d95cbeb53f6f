"""Reading a fake model server's answers over a raw socket, as a client sees them.

The fake Anthropic and OpenAI servers are tested on the wire: one request on
its own connection, read to the server's close, and split into status,
headers and body, with a chunked body kept as its chunks (and whether it
ended with its final empty chunk, which a cut stream does not).
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest


class Answer:
    """One answer as it came off the socket: status, headers, and the body (chunks if chunked)."""

    def __init__(self, raw: bytes) -> None:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        self.chunks: list[bytes] = []
        #: Whether a chunked body ended with its final empty chunk.
        self.complete = False
        if self.headers.get("transfer-encoding") == "chunked":
            while rest:
                size_line, _, rest = rest.partition(b"\r\n")
                size = int(size_line, 16)
                if size == 0:
                    self.complete = rest == b"\r\n"
                    break
                self.chunks.append(rest[:size])
                assert rest[size : size + 2] == b"\r\n"
                rest = rest[size + 2 :]
            self.body = b"".join(self.chunks)
        else:
            assert len(rest) == int(self.headers["content-length"])
            self.body = rest

    def json(self) -> Any:
        return json.loads(self.body)


def exchange_raw(port: int, method: str, path: str, headers: dict[str, str], payload: Any) -> bytes:
    """One request on its own connection to 127.0.0.1, read to the server's close.

    ``payload`` is sent as it is when it is bytes (a body that is not JSON), else as JSON.
    """
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    lines = [f"{method} {path} HTTP/1.1", "host: 127.0.0.1", "connection: close"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    lines += ["content-type: application/json", f"content-length: {len(data)}"]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall("\r\n".join(lines).encode() + b"\r\n\r\n" + data)
        raw = b""
        while part := sock.recv(65536):
            raw += part
    return raw


def assert_no_answer_yet(port: int, path: str, headers: dict[str, str], payload: Any) -> None:
    """Send one request and see no byte of the answer within 0.2 s (a fake's ``delay``)."""
    data = json.dumps(payload).encode()
    lines = [f"POST {path} HTTP/1.1", "host: x", *(f"{k}: {v}" for k, v in headers.items())]
    lines.append(f"content-length: {len(data)}")
    with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
        sock.sendall("\r\n".join(lines).encode() + b"\r\n\r\n" + data)
        with pytest.raises(TimeoutError):
            sock.recv(1)
