"""The standard-library client used by hook processes: real sockets on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from signet_sdk.testing import free_port
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.wire import errors as ex
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.lean import LeanClient


@pytest.fixture(scope="module")
def daemon() -> Iterator[tuple[MockDaemon, str]]:
    mock = MockDaemon()
    with mock.serve() as handle:
        yield mock, handle.url


def lean(url: str, **kw: object) -> LeanClient:
    return LeanClient(resolve_config(url, env={}, **kw))  # type: ignore[arg-type]


def test_hook_call_reaches_the_daemon_with_the_contract_headers(
    daemon: tuple[MockDaemon, str],
) -> None:
    mock, url = daemon
    client = lean(url, harness="claude-code", runtime_path="legacy", agent_id="a1", token="t")
    answer = client.call("session_start", {"sessionKey": "lean-1", "project": "/srv/p"})
    assert isinstance(answer, dict) and "inject" in answer
    got = mock.requests_to("/api/hooks/session-start")[-1]
    assert got.json == {
        "sessionKey": "lean-1",
        "project": "/srv/p",
        "harness": "claude-code",
        "runtimePath": "legacy",
        "agentId": "a1",
    }
    assert got.headers["x-signet-runtime-path"] == "legacy"
    assert got.headers["x-signet-agent-id"] == "a1"
    assert got.headers["authorization"] == "Bearer t"
    assert got.headers["content-type"] == "application/json"


def test_status_errors_map_to_the_error_tree(daemon: tuple[MockDaemon, str]) -> None:
    _, url = daemon
    with pytest.raises(ex.BadRequestError) as info:
        lean(url).call("session_start", {})
    assert info.value.error == "harness is required"
    with pytest.raises(ex.NotFoundError):
        lean(url).call("get_memory", path_params={"id": "missing"})


def test_refused_connection_is_not_sent_and_retried(unused_port: int) -> None:
    client = lean(f"http://127.0.0.1:{unused_port}", max_retries=2)
    started = time.monotonic()
    with pytest.raises(ex.NotSentError):
        client.call("health")
    assert time.monotonic() - started < 5


class RawServer:
    """A one-shot socket server that answers with exactly the bytes a test gives."""

    def __init__(self, reply: Callable[[socket.socket], None]) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.requests: list[bytes] = []
        self.reply = reply
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(5)
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = next(
                (
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                ),
                0,
            )
            while len(body) < length:
                body += conn.recv(65536)
            self.requests.append(head + b"\r\n\r\n" + body)
            self.reply(conn)

    def close(self) -> None:
        self.sock.close()
        self.thread.join(timeout=5)


@pytest.fixture
def raw() -> Iterator[Callable[[Callable[[socket.socket], None]], RawServer]]:
    servers: list[RawServer] = []

    def make(reply: Callable[[socket.socket], None]) -> RawServer:
        servers.append(RawServer(reply))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


@pytest.fixture
def unused_port() -> int:
    return free_port()


def test_request_bytes_on_the_wire(raw: Callable[..., RawServer]) -> None:
    server = raw(lambda c: c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
    lean(server.url, harness="pi", runtime_path="plugin").call(
        "user_prompt_submit", {"sessionKey": "k", "userMessage": "é"}
    )
    request = server.requests[0]
    head, _, body = request.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /api/hooks/user-prompt-submit HTTP/1.1"
    assert f"Host: {server.url.removeprefix('http://')}" in lines
    assert "Connection: close" in lines
    assert f"Content-Length: {len(body)}" in lines
    assert body == (
        '{"sessionKey":"k","userMessage":"é","harness":"pi","runtimePath":"plugin"}'.encode()
    )


def test_chunked_answer_is_decoded(raw: Callable[..., RawServer]) -> None:
    reply = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
        b'7\r\n{"ok":1\r\n1;ext=1\r\n}\r\n0\r\n\r\n'
    )
    server = raw(lambda c: c.sendall(reply))
    assert lean(server.url).call("health") == {"ok": 1}


def test_answer_without_length_reads_to_close(raw: Callable[..., RawServer]) -> None:
    server = raw(lambda c: c.sendall(b'HTTP/1.1 200 OK\r\n\r\n{"status":"healthy"}'))
    assert lean(server.url).call("health") == {"status": "healthy"}


def test_plain_text_error_body_kept(raw: Callable[..., RawServer]) -> None:
    reply = (
        b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n"
        b"Content-Length: 13\r\n\r\n404 Not Found"
    )
    server = raw(lambda c: c.sendall(reply))
    with pytest.raises(ex.NotFoundError) as info:
        lean(server.url).call("health")
    assert info.value.body == "404 Not Found"


def test_garbage_answer_is_a_connection_error(raw: Callable[..., RawServer]) -> None:
    server = raw(lambda c: c.sendall(b"SSH-2.0-OpenSSH\r\n\r\n"))
    with pytest.raises(ex.APIConnectionError, match="bad status line"):
        lean(server.url, max_retries=0).call("session_end", {"sessionKey": "k"})


def test_truncated_body_is_a_connection_error(raw: Callable[..., RawServer]) -> None:
    server = raw(lambda c: c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"a"'))
    with pytest.raises(ex.APIConnectionError, match="closed mid-body"):
        lean(server.url, max_retries=0).call("session_end", {"sessionKey": "k"})


def test_slow_daemon_times_out_within_the_deadline(raw: Callable[..., RawServer]) -> None:
    release = threading.Event()
    server = raw(lambda c: release.wait(5))
    started = time.monotonic()
    try:
        with pytest.raises(ex.APITimeoutError):
            lean(server.url, max_retries=0).call("session_end", {"sessionKey": "k"}, timeout=0.3)
        assert time.monotonic() - started < 1.5
    finally:
        release.set()


def test_write_is_not_retried_after_a_timeout(raw: Callable[..., RawServer]) -> None:
    release = threading.Event()
    server = raw(lambda c: release.wait(5))
    try:
        with pytest.raises(ex.APITimeoutError):
            lean(server.url, max_retries=3).call("remember", {"content": "x"}, timeout=0.3)
        assert len(server.requests) == 1
    finally:
        release.set()


def _json_answer(size: int, chunked: bool = False) -> bytes:
    body = b'{"inject":"' + b"x" * (size - 13) + b'"}'
    if not chunked:
        return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    pieces = [body[i : i + 70000] for i in range(0, len(body), 70000)]
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces)
    return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"


@pytest.mark.parametrize("chunked", [False, True])
def test_a_large_answer_arrives_whole(raw: Callable[..., RawServer], chunked: bool) -> None:
    size = 12 * 1024 * 1024
    server = raw(lambda c: c.sendall(_json_answer(size, chunked)))
    answer = lean(server.url).call("user_prompt_submit", {"sessionKey": "k", "userMessage": "m"})
    assert len(answer["inject"]) == size - 13


@pytest.mark.parametrize("chunked", [False, True])
def test_an_answer_over_16_mib_is_refused_not_buffered(
    raw: Callable[..., RawServer], chunked: bool
) -> None:
    data = _json_answer(20 * 1024 * 1024, chunked)

    def reply(conn: socket.socket) -> None:
        with contextlib.suppress(OSError):  # the client stops reading at the cap
            conn.sendall(data)

    server = raw(reply)
    with pytest.raises(ex.APIError, match="too large"):
        lean(server.url, max_retries=0).call(
            "user_prompt_submit", {"sessionKey": "k", "userMessage": "m"}
        )
