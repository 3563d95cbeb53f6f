"""The providers on a real loopback socket: bytes on the wire, errors, retries, deadlines.

A small model server records every request as it arrived (headers, body
bytes) and answers from a script: a whole answer, a stream, a stream cut
part-way, or nothing at all. Waits between retries are recorded instead of
slept, so the tests say exactly which waits were asked for.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import httpx
import pytest

from signet_sdk.agent.providers import (
    AnthropicProvider,
    AsyncAnthropicProvider,
    AsyncOpenAIProvider,
    IncompleteStreamError,
    OpenAIProvider,
    _http,
)
from signet_sdk.agent.types import Chunk, CompletionOptions, Message, ToolSpec
from signet_sdk.testing import free_port
from signet_sdk.testing.fake_server import json_answer, sse_answer
from signet_sdk.testing.loopback import LoopbackServer, QuietHandler
from signet_sdk.wire import errors
from signet_sdk.wire.retry import RetryPolicy

MESSAGES = [Message("user", "what did we decide about deploys? ✓")]
OPTIONS = CompletionOptions(
    system="You remember.",
    tools=(ToolSpec("memory_search", "Find.", {"type": "object", "properties": {}}),),
    max_tokens=256,
    cache_key="conv-1",
    timeout=10.0,
)


@dataclass
class Reply:
    """One scripted answer. ``cut``: send this many body bytes and hang up (``claim`` the
    full length, or say nothing and close); ``hold``: send nothing until the server stops."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: list[tuple[str, str]] = field(default_factory=list)
    cut: int | None = None
    claim: bool = False
    hold: bool = False


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str:
        return next(v for k, v in self.headers if k == name)


def reply(answer: tuple[int, bytes, str], **more: Any) -> Reply:
    status, body, content_type = answer
    return Reply(status, body, content_type, **more)


class _Handler(QuietHandler):
    server: Any

    def do_POST(self) -> None:
        self._serve()

    def do_GET(self) -> None:
        self._serve()

    def _serve(self) -> None:
        model: ModelServer = self.server.model
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = [(k.lower(), v) for k, v in self.headers.items()]
        script = model.record(Seen(self.command, self.path, headers, body))
        if script.hold:
            model.stopping.wait()
            self.close_connection = True
            return
        self.send_response(script.status)
        self.send_header("content-type", script.content_type)
        for name, value in script.headers:
            self.send_header(name, value)
        if script.cut is None or script.claim:
            self.send_header("content-length", str(len(script.body)))
        else:
            self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(script.body if script.cut is None else script.body[: script.cut])
        self.wfile.flush()
        if script.cut is not None:
            self.close_connection = True


class ModelServer:
    """Answers from ``replies`` in turn (the last one repeats); keeps what it received."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.loop = LoopbackServer(_Handler)
        self.loop.server.model = self  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self.loop.port}"

    def record(self, seen: Seen) -> Reply:
        with self.lock:
            self.seen.append(seen)
            return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def close(self) -> None:
        self.stopping.set()
        self.loop.close()


@pytest.fixture
def serve() -> Iterator[Callable[..., ModelServer]]:
    servers: list[ModelServer] = []

    def start(*replies: Reply) -> ModelServer:
        servers.append(ModelServer(*replies))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits between retries, recorded and not slept."""
    asked: list[float] = []

    async def no_async_sleep(seconds: float) -> None:
        asked.append(seconds)

    monkeypatch.setattr(_http, "_sleep", asked.append)
    monkeypatch.setattr(_http, "_asleep", no_async_sleep)
    return asked


def anthropic(url: str, **kw: Any) -> AnthropicProvider:
    return AnthropicProvider("claude-sonnet-4-6", api_key="sk-ant-k", base_url=url, env={}, **kw)


def openai(url: str, **kw: Any) -> OpenAIProvider:
    return OpenAIProvider("gpt-5.4-mini", api_key="sk-k", base_url=url + "/v1", env={}, **kw)


# -- answers ---------------------------------------------------------------------

ANTHROPIC_MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [{"type": "text", "text": "Blue-green."}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 9, "output_tokens": 3},
}


def _event(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    """One Anthropic stream event: its ``event:`` name is its data's ``type``."""
    return kind, {"type": kind, **fields}


ANTHROPIC_EVENTS: list[tuple[str | None, Any]] = [
    _event("message_start", message={**ANTHROPIC_MESSAGE, "content": []}),
    _event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
    _event("content_block_delta", index=0, delta={"type": "text_delta", "text": "Blue-green."}),
    _event("content_block_stop", index=0),
    _event(
        "content_block_start",
        index=1,
        content_block={"type": "tool_use", "id": "t1", "name": "memory_store", "input": {}},
    ),
    _event(
        "content_block_delta",
        index=1,
        delta={"type": "input_json_delta", "partial_json": '{"content": "blue'},
    ),
    _event(
        "content_block_delta",
        index=1,
        delta={"type": "input_json_delta", "partial_json": '-green"}'},
    ),
    _event("content_block_stop", index=1),
    _event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 7}),
    _event("message_stop"),
]
ANTHROPIC_STREAM = sse_answer(ANTHROPIC_EVENTS)
OPENAI_COMPLETION = {
    "id": "c1",
    "object": "chat.completion",
    "model": "gpt-5.4-mini",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Blue-green."},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 9, "completion_tokens": 3},
}
OPENAI_STREAM = (
    200,
    b'data: {"choices":[{"index":0,"delta":{"content":"Blue-green."},"finish_reason":null}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n",
    "text/event-stream",
)


def overloaded(status: int, message: str) -> tuple[int, bytes, str]:
    kind = {401: "authentication_error", 429: "rate_limit_error"}.get(status, "overloaded_error")
    return json_answer({"type": "error", "error": {"type": kind, "message": message}}, status)


def collect(chunks: Iterator[Chunk]) -> list[Chunk]:
    return list(chunks)


async def collect_async(provider: Any, stream: bool, options: Any = OPTIONS) -> Any:
    async with provider:
        if stream:
            return [chunk async for chunk in provider.stream(MESSAGES, options)]
        return await provider.complete(MESSAGES, options)


def call(provider: Any, stream: bool, use_async: bool = False, options: Any = OPTIONS) -> Any:
    """One call of ``provider`` (or of its async twin): streamed and read to its end, or whole."""
    if use_async:
        return asyncio.run(collect_async(provider.as_async(), stream, options))
    if stream:
        return collect(provider.stream(MESSAGES, options))
    return provider.complete(MESSAGES, options)


# -- the same request from every transport ----------------------------------------


def _every_way(make: Callable[[str], Any], url: str, stream: bool) -> list[Any]:
    """The call made by the sync provider, its async twin on aiohttp (its default, and a
    session it was given) and on an httpx client it was given."""
    sync = make(url)
    with sync:
        results = [
            collect(sync.stream(MESSAGES, OPTIONS)) if stream else sync.complete(MESSAGES, OPTIONS)
        ]
    results.append(asyncio.run(collect_async(sync.as_async(), stream)))

    async def given_client(kind: str) -> Any:
        shared: Any = (
            httpx.AsyncClient()
            if kind == "httpx"
            else aiohttp.ClientSession(auto_decompress=True, skip_auto_headers=("User-Agent",))
        )
        twin = sync.as_async()
        provider = type(twin)(twin.model, http_client=shared, **_http_free(twin))
        try:
            return await collect_async(provider, stream)
        finally:
            await (shared.aclose() if kind == "httpx" else shared.close())

    results.append(asyncio.run(given_client("httpx")))
    return results


def _http_free(provider: Any) -> dict[str, Any]:
    s = provider.settings
    return {"api_key": s.api_key, "base_url": s.base_url, "env": {}, "retry": s.retry}


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_sync_and_async_twins_send_the_same_bytes(
    serve: Callable[..., ModelServer], api: str, stream: bool
) -> None:
    answer = {
        ("anthropic", False): json_answer(ANTHROPIC_MESSAGE),
        ("anthropic", True): ANTHROPIC_STREAM,
        ("openai", False): json_answer(OPENAI_COMPLETION),
        ("openai", True): OPENAI_STREAM,
    }[(api, stream)]
    server = serve(reply(answer))
    make = anthropic if api == "anthropic" else openai
    results = _every_way(make, server.url, stream)
    assert all(result == results[0] for result in results)
    seen = [(s.method, s.path, sorted(s.headers), s.body) for s in server.seen]
    assert len(seen) == 3 and all(one == seen[0] for one in seen), seen
    expected = make(server.url).codec.request(make(server.url).model, MESSAGES, OPTIONS, stream)
    method, path, headers, body = seen[0]
    assert (method, server.url + path) == ("POST", expected.url)
    assert body == expected.content
    assert dict(headers)["content-length"] == str(len(body))
    for name, value in expected.headers.items():
        assert dict(headers)[name] == value


# -- status errors -----------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_401_names_the_provider_and_the_vendors_message(
    serve: Callable[..., ModelServer], waits: list[float], stream: bool
) -> None:
    server = serve(reply(overloaded(401, "invalid x-api-key")))
    provider = anthropic(server.url)
    with pytest.raises(errors.AuthenticationError) as caught:
        call(provider, stream)
    assert str(caught.value) == (
        f"anthropic: POST {server.url}/v1/messages -> 401: invalid x-api-key"
    )
    assert len(server.seen) == 1 and waits == []
    with pytest.raises(errors.AuthenticationError) as async_caught:
        asyncio.run(collect_async(provider.as_async(), stream))
    assert str(async_caught.value) == str(caught.value)


def test_openai_errors_carry_openais_message(serve: Callable[..., ModelServer]) -> None:
    body = {
        "error": {"message": "Incorrect API key provided: sk-k.", "type": "invalid_request_error"}
    }
    server = serve(reply(json_answer(body, 401)))
    with pytest.raises(errors.AuthenticationError) as caught:
        openai(server.url).complete(MESSAGES, OPTIONS)
    assert str(caught.value) == (
        f"openai: POST {server.url}/v1/chat/completions -> 401: Incorrect API key provided: sk-k."
    )


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_a_429_waits_as_long_as_retry_after_says_then_succeeds(
    serve: Callable[..., ModelServer], waits: list[float], stream: bool
) -> None:
    success = ANTHROPIC_STREAM if stream else json_answer(ANTHROPIC_MESSAGE)
    limited = reply(overloaded(429, "slow down"), headers=[("retry-after", "3")])
    server = serve(limited, reply(success))
    provider = anthropic(server.url)
    if stream:
        chunks = collect(provider.stream(MESSAGES, OPTIONS))
        assert chunks[0] == Chunk("text", "Blue-green.") and chunks[-1].type == "done"
    else:
        assert provider.complete(MESSAGES, OPTIONS).content == "Blue-green."
    assert len(server.seen) == 2 and waits == [3.0]
    assert server.seen[0].body == server.seen[1].body

    server.replies = [limited, reply(success)]
    asyncio.run(collect_async(provider.as_async(), stream))
    assert len(server.seen) == 4 and waits == [3.0, 3.0]


def test_a_529_is_retried_with_back_off_until_the_policy_gives_up(
    serve: Callable[..., ModelServer], waits: list[float]
) -> None:
    server = serve(reply(overloaded(529, "Overloaded")))
    provider = anthropic(server.url, retry=RetryPolicy(max_retries=2, initial_delay=0.5))
    with pytest.raises(errors.InternalServerError) as caught:
        provider.complete(MESSAGES, OPTIONS)
    assert caught.value.status_code == 529
    assert str(caught.value).endswith("-> 529: Overloaded")
    assert len(server.seen) == 3 and len(waits) == 2
    assert 0 <= waits[0] <= 0.5 and 0 <= waits[1] <= 1.0


def test_a_5xx_retry_after_is_honoured_too(
    serve: Callable[..., ModelServer], waits: list[float]
) -> None:
    server = serve(
        reply(overloaded(529, "Overloaded"), headers=[("retry-after", "2")]),
        reply(json_answer(ANTHROPIC_MESSAGE)),
    )
    anthropic(server.url).complete(MESSAGES, OPTIONS)
    assert waits == [2.0]


def test_a_400_is_not_retried(serve: Callable[..., ModelServer], waits: list[float]) -> None:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}
    server = serve(reply(json_answer(body, 400)))
    with pytest.raises(errors.BadRequestError):
        anthropic(server.url).complete(MESSAGES, OPTIONS)
    assert len(server.seen) == 1 and waits == []


# -- after the first byte --------------------------------------------------------------


def _with_error_event(kind: str) -> tuple[int, bytes, str]:
    error = {"type": "error", "error": {"type": kind, "message": "Internal server error"}}
    return sse_answer([*ANTHROPIC_EVENTS[:3], ("error", error)])


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_a_500_after_the_first_streamed_byte_is_not_retried(
    serve: Callable[..., ModelServer], waits: list[float], use_async: bool
) -> None:
    server = serve(reply(_with_error_event("api_error")), reply(ANTHROPIC_STREAM))
    provider = anthropic(server.url)
    got: list[Chunk] = []

    async def read_async() -> None:
        async with provider.as_async() as twin:
            async for chunk in twin.stream(MESSAGES, OPTIONS):
                got.append(chunk)

    with pytest.raises(errors.InternalServerError) as caught:
        if use_async:
            asyncio.run(read_async())
        else:
            got.extend(provider.stream(MESSAGES, OPTIONS))
    assert got == [Chunk("text", "Blue-green.")]
    assert caught.value.status_code == 500
    assert str(caught.value) == (
        f"anthropic: POST {server.url}/v1/messages -> 500: Internal server error "
        "(api_error mid-stream)"
    )
    assert len(server.seen) == 1 and waits == []


CUT_AT = ANTHROPIC_STREAM[1].index(b'"-green')  # inside the second piece of the call


@pytest.mark.parametrize("claim", [False, True], ids=["closed", "short-body"])
@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_a_stream_cut_mid_tool_call_raises_and_is_not_retried(
    serve: Callable[..., ModelServer], waits: list[float], claim: bool, use_async: bool
) -> None:
    server = serve(reply(ANTHROPIC_STREAM, cut=CUT_AT, claim=claim), reply(ANTHROPIC_STREAM))
    provider = anthropic(server.url)
    with pytest.raises(IncompleteStreamError) as caught:
        if use_async:
            asyncio.run(collect_async(provider.as_async(), True))
        else:
            collect(provider.stream(MESSAGES, OPTIONS))
    where = f"anthropic: POST {server.url}/v1/messages: stream cut during tool call memory_store"
    assert str(caught.value).startswith(where)
    if not claim:  # the server closed a close-delimited body: the lines just ran out
        assert str(caught.value) == where + " (no message_stop)"
    assert caught.value.progress == "during tool call memory_store"
    assert len(server.seen) == 1 and waits == []


# -- no answer -------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_a_refused_connection_names_the_provider_not_the_daemon(
    waits: list[float], stream: bool, use_async: bool
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    provider = anthropic(url)
    with pytest.raises(errors.NotSentError) as caught:
        call(provider, stream, use_async)
    text = str(caught.value)
    assert text.startswith(f"anthropic: cannot connect: POST {url}/v1/messages: ")
    assert "Signet" not in text and "daemon" not in text
    assert len(waits) == 2  # refused before a byte was sent: tried three times


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_the_deadline_ends_a_call_that_gets_no_answer(
    serve: Callable[..., ModelServer], stream: bool, use_async: bool
) -> None:
    server = serve(Reply(hold=True))
    provider = openai(server.url)
    options = CompletionOptions(timeout=0.3)
    with pytest.raises(errors.APITimeoutError) as caught:
        call(provider, stream, use_async, options)
    assert str(caught.value) == (
        f"openai: no answer within the deadline: POST {server.url}/v1/chat/completions"
    )


# -- available() -----------------------------------------------------------------------


def test_available_asks_a_local_server_for_its_models(serve: Callable[..., ModelServer]) -> None:
    server = serve(reply(json_answer({"object": "list", "data": [{"id": "qwen3"}]})))
    local = OpenAIProvider("qwen3", base_url=server.url + "/v1", env={})
    assert local.available() is True
    assert asyncio.run(local.as_async().available()) is True
    assert [(s.method, s.path) for s in server.seen] == [("GET", "/v1/models")] * 2
    assert "authorization" not in dict(server.seen[0].headers)

    server.replies = [reply(json_answer({"error": "unauthorized"}, 401))]
    assert local.available() is False
    refused = OpenAIProvider("qwen3", base_url=f"http://127.0.0.1:{free_port()}/v1", env={})
    assert refused.available() is False
    assert asyncio.run(refused.as_async().available()) is False


def test_available_on_the_vendors_host_spends_nothing() -> None:
    provider = AnthropicProvider("claude-sonnet-4-6", env={"ANTHROPIC_API_KEY": "sk-ant-k"})
    assert provider.available() is True
    assert asyncio.run(AsyncAnthropicProvider("m", api_key="k", env={}).available()) is True
    assert asyncio.run(AsyncOpenAIProvider("m", api_key="k", env={}).available()) is True


@pytest.mark.parametrize(
    ("why", "said"),
    [
        ("every connection stayed busy until the deadline", "every connection stayed busy"),
        ("no connection was made before the deadline", "no connection was made"),
    ],
)
def test_a_call_never_sent_for_want_of_a_connection_says_why(why: str, said: str) -> None:
    # The deadline ends a wait for a pooled connection (or a connect) with a bare
    # TimeoutError: the provider's message must keep the I/O layer's reason.
    from signet_sdk.agent.providers._http import _prepared, _reworded
    from signet_sdk.agent.providers._wire import ModelRequest
    from signet_sdk.client.io import not_sent

    request = ModelRequest("POST", "http://127.0.0.1:9/v1/messages", {}, b"{}")
    try:
        try:
            raise TimeoutError
        except TimeoutError as timeout:
            raise not_sent(_prepared(request), timeout, why) from timeout
    except errors.NotSentError as exc:
        reworded = _reworded("anthropic", request, exc)
    assert isinstance(reworded, errors.NotSentError)
    assert str(reworded) == f"anthropic: cannot connect: POST http://127.0.0.1:9/v1/messages: {why}"
    assert said in str(reworded)
