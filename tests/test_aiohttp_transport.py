"""AiohttpTransport against a real local HTTP server.

The transport's promise is that nothing above httpx can tell it apart from
httpx's own: the daemon receives the same bytes, the SDK sees the same
answers and the same failures. So these tests use a real socket on
127.0.0.1 rather than a mock, and compare with the default transport where
they can.
"""

from __future__ import annotations

import gzip
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
import pytest

import signet_sdk as s
from signet_sdk import AsyncAdapterClient
from signet_sdk._version import __version__
from signet_sdk.client.aiohttp_transport import AiohttpTransport

pytestmark = pytest.mark.anyio

PROMPT_ANSWER = {
    "inject": "[signet] 2 memories: staging runs on pg-staging-2; deploys go through CI",
    "memoryCount": 2,
    "engine": "hybrid",
    "sessionKnown": True,
}


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: list[tuple[str, str]]
    body: bytes
    client_port: int

    def header(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k == name]


class LocalDaemon(ThreadingHTTPServer):
    """Records every request; answers by path (see ``_Handler``)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[Received] = []
        self.release = threading.Event()  # lets a /slow handler finish at teardown

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (the timeout tests) is expected, not a failure.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # head and body are separate writes
    server: LocalDaemon

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, headers: list[tuple[str, str]]) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: object, *extra: tuple[str, str]) -> None:
        body = json.dumps(data).encode()
        self._send(status, body, [("Content-Type", "application/json"), *extra])

    def _handle(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = [(k.lower(), v) for k, v in self.headers.items()]
        port = self.client_address[1]
        self.server.requests.append(Received(self.command, self.path, headers, body, port))
        path = urlsplit(self.path).path
        if path == "/api/hooks/user-prompt-submit":
            self._json(200, PROMPT_ANSWER, ("X-Signet-Trace", "a"), ("X-Signet-Trace", "b"))
        elif path == "/api/hooks/recall":
            self._json(400, {"error": "query is required"})
        elif path == "/api/hooks/session-start":
            self._json(409, {"error": "session claimed by legacy path"})
        elif path == "/health":
            raw = gzip.compress(json.dumps({"status": "healthy", "uptime": 12.5}).encode())
            self._send(
                200, raw, [("Content-Type", "application/json"), ("Content-Encoding", "gzip")]
            )
        elif path == "/api/logs/stream":
            self._stream_logs()
        elif path == "/api/hooks/pre-compaction":  # stands in for a slow daemon
            self.server.release.wait(5)
            self._json(200, {"summaryPrompt": "late"})
        elif path == "/api/hooks/session-end":  # the daemon dies mid-request
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        else:
            self._send(404, b"404 Not Found", [("Content-Type", "text/plain")])

    def _stream_logs(self) -> None:
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        frames = [
            {"type": "connected"},
            {"timestamp": "2025-01-01T00:00:00Z", "level": "info", "message": "one"},
            {"timestamp": "2025-01-01T00:00:01Z", "level": "warn", "message": "two"},
        ]
        for frame in frames:
            self.wfile.write(f"data: {json.dumps(frame)}\n\n".encode())
            self.wfile.flush()
            time.sleep(0.01)

    do_GET = do_POST = do_PATCH = do_DELETE = _handle


@pytest.fixture
def daemon() -> Iterator[LocalDaemon]:
    server = LocalDaemon()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
async def transport() -> AsyncIterator[AiohttpTransport]:
    t = AiohttpTransport(limit=4)
    try:
        yield t
    finally:
        await t.aclose()


def sdk(url: str, transport: httpx.AsyncBaseTransport | None, **options: Any) -> AsyncAdapterClient:
    http = httpx.AsyncClient(transport=transport) if transport else httpx.AsyncClient()
    options = {"token": "t0k", "agent_id": "agent-7", "runtime_path": "plugin", **options}
    return AsyncAdapterClient("bench-harness", url, http_client=http, **options)


PROMPT = s.UserPromptSubmitParams(session_key="sess:1/a", user_message="how do we déploy?")


async def test_the_daemon_receives_exactly_the_request_httpx_built(
    daemon: LocalDaemon, transport: AiohttpTransport
) -> None:
    client = sdk(daemon.url, transport)
    await client.on_user_prompt_submit(PROMPT)
    got = daemon.requests[-1]

    assert (got.method, got.path) == ("POST", "/api/hooks/user-prompt-submit")
    assert got.header("content-type") == ["application/json"]
    assert got.header("accept") == ["application/json"]
    assert got.header("user-agent") == [f"signet-sdk/{__version__}"]
    assert got.header("authorization") == ["Bearer t0k"]
    assert got.header("x-signet-agent-id") == ["agent-7"]
    assert got.header("x-signet-runtime-path") == ["plugin"]
    assert got.header("content-length") == [str(len(got.body))]
    assert json.loads(got.body) == {
        "sessionKey": "sess:1/a",
        "userMessage": "how do we déploy?",
        "harness": "bench-harness",
        "runtimePath": "plugin",
        "agentId": "agent-7",
    }
    await client._io.client.aclose()


async def test_same_bytes_as_the_default_httpx_transport(
    daemon: LocalDaemon, transport: AiohttpTransport
) -> None:
    via_aiohttp, via_httpcore = sdk(daemon.url, transport), sdk(daemon.url, None)
    await via_aiohttp.on_user_prompt_submit(PROMPT)
    await via_httpcore.on_user_prompt_submit(PROMPT)
    a, h = daemon.requests
    assert (a.method, a.path, a.body) == (h.method, h.path, h.body)
    assert sorted(a.headers) == sorted(h.headers)  # aiohttp added nothing, dropped nothing
    await via_aiohttp._io.client.aclose()
    await via_httpcore._io.client.aclose()


async def test_aiohttp_adds_no_headers_httpx_left_out(
    daemon: LocalDaemon, transport: AiohttpTransport
) -> None:
    async with httpx.AsyncClient(transport=transport) as http:
        for name in ("user-agent", "accept", "accept-encoding"):
            del http.headers[name]
        await http.post(f"{daemon.url}/api/hooks/user-prompt-submit", content=b"{}")
    names = sorted(name for name, _ in daemon.requests[-1].headers)
    assert names == ["connection", "content-length", "host"]


async def test_query_strings_and_escaped_path_segments_arrive_unchanged(
    daemon: LocalDaemon, transport: AiohttpTransport
) -> None:
    client = sdk(daemon.url, transport, max_retries=0)
    with pytest.raises(s.NotFoundError):
        await client.get_session("a:b/c d", agent_id="x y")
    assert daemon.requests[-1].path == "/api/sessions/a%3Ab%2Fc%20d?agent_id=x+y"
    assert daemon.requests[-1].body == b""
    await client._io.client.aclose()


async def test_the_answer_is_mapped_status_headers_and_body(
    daemon: LocalDaemon, transport: AiohttpTransport
) -> None:
    async with httpx.AsyncClient(transport=transport) as http:
        resp = await http.post(f"{daemon.url}/api/hooks/user-prompt-submit", json={})
    assert resp.status_code == 200
    assert resp.reason_phrase == "OK"
    assert resp.http_version == "HTTP/1.1"
    assert resp.headers.get_list("x-signet-trace") == ["a", "b"]
    assert resp.headers["content-type"] == "application/json"
    assert resp.json() == PROMPT_ANSWER

    result = await sdk(daemon.url, transport).on_user_prompt_submit(PROMPT)
    assert isinstance(result, s.UserPromptSubmitResult)
    assert (result.inject, result.memory_count, result.engine) == (
        PROMPT_ANSWER["inject"],
        2,
        "hybrid",
    )
    assert result.session_known is True and not result.did_nothing


async def test_compressed_answers_are_decoded_once(
    daemon: LocalDaemon, transport: AiohttpTransport
) -> None:
    health = await sdk(daemon.url, transport).health()
    assert health.status == "healthy"


async def test_error_statuses_reach_the_sdk_error_mapping(
    daemon: LocalDaemon, transport: AiohttpTransport
) -> None:
    client = sdk(daemon.url, transport, max_retries=0)
    with pytest.raises(s.BadRequestError) as info:
        await client.recall(s.RecallParams(query="q"))
    assert info.value.error == "query is required"
    skipped = await client.on_session_start(s.SessionStartParams(session_key="k"))
    assert skipped.did_nothing and skipped.claimed_by == "legacy"


async def test_event_streams_are_streamed_frame_by_frame(
    daemon: LocalDaemon, transport: AiohttpTransport
) -> None:
    client = sdk(daemon.url, transport)
    messages = [entry.message async for entry in client.stream_logs()]
    assert messages == ["one", "two"]
    assert daemon.requests[-1].header("accept") == ["text/event-stream"]


async def test_connection_refused_is_not_sent_error(transport: AiohttpTransport) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago and now listens to no one
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"

    async with httpx.AsyncClient(transport=transport) as http:
        with pytest.raises(httpx.ConnectError):
            await http.get(url + "/health")
        client = AsyncAdapterClient("h", url, http_client=http, max_retries=0)
        with pytest.raises(s.NotSentError) as info:
            await client.on_user_prompt_submit(PROMPT)
    assert info.value.method == "POST"
    assert info.value.url == url + "/api/hooks/user-prompt-submit"


async def test_no_answer_in_time_is_api_timeout_error(
    daemon: LocalDaemon, transport: AiohttpTransport
) -> None:
    async with httpx.AsyncClient(transport=transport) as http:
        with pytest.raises(httpx.ReadTimeout):
            await http.post(f"{daemon.url}/api/hooks/pre-compaction", json={}, timeout=0.2)
        client = AsyncAdapterClient("h", daemon.url, http_client=http, timeout=0.3)
        started = time.monotonic()
        with pytest.raises(s.APITimeoutError) as info:
            await client.on_pre_compaction(s.PreCompactionParams(session_key="k"))
    assert not isinstance(info.value, s.NotSentError)
    assert time.monotonic() - started < 2


async def test_waiting_for_a_pooled_connection_is_a_connect_timeout(
    daemon: LocalDaemon,
) -> None:
    async with httpx.AsyncClient(transport=AiohttpTransport(limit=1)) as http:

        async def hold_the_only_connection() -> None:
            await http.post(f"{daemon.url}/api/hooks/pre-compaction", json={})

        async with anyio.create_task_group() as tg:
            tg.start_soon(hold_the_only_connection)
            with anyio.fail_after(5):
                while not daemon.requests:  # the slow request now holds the connection
                    await anyio.sleep(0.01)
            # aiohttp bounds the wait for a slot and the connect as one step: 0.2 s here.
            with pytest.raises(httpx.ConnectTimeout):
                await http.get(
                    f"{daemon.url}/health", timeout=httpx.Timeout(5, connect=0.1, pool=0.1)
                )
            daemon.release.set()


async def test_a_dropped_connection_is_a_connection_error_not_a_not_sent_error(
    daemon: LocalDaemon, transport: AiohttpTransport
) -> None:
    async with httpx.AsyncClient(transport=transport) as http:
        with pytest.raises(httpx.RemoteProtocolError):
            await http.post(f"{daemon.url}/api/hooks/session-end", json={})
        client = AsyncAdapterClient("h", daemon.url, http_client=http, max_retries=0)
        with pytest.raises(s.APIConnectionError) as info:
            await client.on_session_end(s.SessionEndParams(session_key="k"))
    assert not isinstance(info.value, s.NotSentError | s.APITimeoutError)


async def test_connections_are_reused_and_closed_with_the_transport(daemon: LocalDaemon) -> None:
    transport = AiohttpTransport()
    client = sdk(daemon.url, transport)
    for _ in range(3):
        await client.on_user_prompt_submit(PROMPT)
    assert len({r.client_port for r in daemon.requests}) == 1  # one kept-alive connection
    session = transport._session
    assert session is not None
    await client._io.client.aclose()  # the client owns its transport
    assert session.closed and transport._session is None
    await transport.aclose()  # closing twice is harmless


def test_a_transport_is_bound_to_the_loop_that_first_used_it(daemon: LocalDaemon) -> None:
    import asyncio

    transport = AiohttpTransport()

    async def call() -> int:
        request = httpx.Request("GET", f"{daemon.url}/health")
        response = await transport.handle_async_request(request)
        await response.aread()
        return response.status_code

    async def close() -> None:
        await transport.aclose()

    loop = asyncio.new_event_loop()
    try:
        assert loop.run_until_complete(call()) == 200
        with pytest.raises(RuntimeError, match="per event loop"):
            asyncio.run(call())
        loop.run_until_complete(close())
    finally:
        loop.close()


def test_without_aiohttp_the_import_error_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['aiohttp'] = None\n"
        "import signet_sdk\n"
        "try:\n"
        "    import signet_sdk.client.aiohttp_transport\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'signet-sdk[aiohttp]'" in out.stdout
