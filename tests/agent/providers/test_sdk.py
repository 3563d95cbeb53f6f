"""``SDKProvider``: an official ``anthropic`` / ``openai`` client, driven by the built-in codecs.

The official clients talk to a loopback fake; what reaches it must be the
body the codec builds, and what comes back must read as the built-in
providers read it, streamed or not, sync or async, errors included.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from signet_sdk.agent.providers import AnthropicCodec, OpenAICodec
from signet_sdk.agent.providers.sdk import AsyncSDKProvider, SDKProvider
from signet_sdk.agent.types import CompletionOptions
from signet_sdk.testing.fake_server import Answer, FakeServer, json_answer, sse_answer
from signet_sdk.wire import errors

from .test_http import (
    ANTHROPIC_EVENTS,
    ANTHROPIC_MESSAGE,
    ANTHROPIC_STREAM,
    MESSAGES,
    OPENAI_COMPLETION,
    OPENAI_STREAM,
    OPTIONS,
)


class Scripted(FakeServer):
    """Answers every request with the next of ``answers`` (the last one repeats)."""

    def __init__(self, *answers: Answer) -> None:
        super().__init__()
        self.answers = list(answers)

    def answer(self, method: str, path: str, body: Any) -> Answer:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


@pytest.fixture
def fake() -> Iterator[Scripted]:
    server = Scripted(json_answer({}))
    yield server
    server.close()


def clients(api: str, url: str) -> tuple[Any, Any]:
    if api == "anthropic":
        return (
            anthropic.Anthropic(api_key="sk-ant-k", base_url=url, max_retries=0),
            anthropic.AsyncAnthropic(api_key="sk-ant-k", base_url=url, max_retries=0),
        )
    return (
        openai.OpenAI(api_key="sk-k", base_url=url + "/v1", max_retries=0),
        openai.AsyncOpenAI(api_key="sk-k", base_url=url + "/v1", max_retries=0),
    )


def codec(api: str, url: str) -> AnthropicCodec | OpenAICodec:
    return AnthropicCodec(url) if api == "anthropic" else OpenAICodec(url + "/v1")


def own_reading(api: str, url: str, answer: Answer, stream: bool) -> Any:
    """What the built-in codec makes of ``answer``, read straight from its bytes."""
    reader = codec(api, url)
    if not stream:
        return reader.parse(json.loads(answer[1]))
    decoder = reader.decoder()
    chunks = [c for line in answer[1].decode().splitlines() for c in decoder.feed(line)]
    return chunks + decoder.end()


ANSWERS = {
    ("anthropic", False): json_answer(ANTHROPIC_MESSAGE),
    ("anthropic", True): ANTHROPIC_STREAM,
    ("openai", False): json_answer(OPENAI_COMPLETION),
    ("openai", True): OPENAI_STREAM,
}


def call(provider: Any, stream: bool, options: CompletionOptions = OPTIONS) -> Any:
    if isinstance(provider, AsyncSDKProvider):

        async def run() -> Any:
            if stream:
                return [c async for c in provider.stream(MESSAGES, options)]
            return await provider.complete(MESSAGES, options)

        return asyncio.run(run())
    if stream:
        return list(provider.stream(MESSAGES, options))
    return provider.complete(MESSAGES, options)


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_the_official_client_carries_our_body_and_we_read_its_answer(
    fake: Scripted, api: str, stream: bool, use_async: bool
) -> None:
    fake.answers = [ANSWERS[(api, stream)]]
    client = clients(api, fake.url)[1 if use_async else 0]
    wrapper = (AsyncSDKProvider if use_async else SDKProvider)(client, "some-model")
    assert wrapper.id == f"{api}:some-model"
    got = call(wrapper, stream)
    assert got == own_reading(api, fake.url, ANSWERS[(api, stream)], stream)
    (seen,) = fake.requests()
    ours = codec(api, fake.url).request("some-model", MESSAGES, OPTIONS, stream)
    assert fake.url + seen["path"] == ours.url
    assert seen["body"] == json.loads(ours.content or b"")


def test_a_field_the_client_no_longer_names_goes_in_extra_body(fake: Scripted) -> None:
    fake.answers = [json_answer(ANTHROPIC_MESSAGE)]
    sampled = CompletionOptions(system="You remember.", temperature=0.2)
    call(SDKProvider(clients("anthropic", fake.url)[0], "m"), False, sampled)
    body = fake.requests()[0]["body"]
    assert body == json.loads(
        AnthropicCodec().request("m", MESSAGES, sampled, False).content or b""
    )


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_a_401_is_the_sdks_error(fake: Scripted, stream: bool, use_async: bool) -> None:
    body = {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
    }
    fake.answers = [json_answer(body, 401)]
    client = clients("anthropic", fake.url)[1 if use_async else 0]
    wrapper = (AsyncSDKProvider if use_async else SDKProvider)(client, "m")
    with pytest.raises(errors.AuthenticationError) as caught:
        call(wrapper, stream)
    assert str(caught.value) == f"anthropic: POST {fake.url}/v1/messages -> 401: invalid x-api-key"


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_an_error_event_mid_stream_is_the_sdks_error(fake: Scripted, use_async: bool) -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    fake.answers = [sse_answer([*ANTHROPIC_EVENTS[:3], ("error", overloaded)])]
    client = clients("anthropic", fake.url)[1 if use_async else 0]
    wrapper = (AsyncSDKProvider if use_async else SDKProvider)(client, "m")
    with pytest.raises(errors.InternalServerError) as caught:
        call(wrapper, True)
    assert caught.value.status_code == 529
    assert str(caught.value).endswith("-> 529: Overloaded (overloaded_error mid-stream)")


def test_an_anthropic_stream_without_message_stop_is_cut(fake: Scripted) -> None:
    fake.answers = [sse_answer(ANTHROPIC_EVENTS[:-1])]
    with pytest.raises(errors.APIConnectionError, match="no message_stop"):
        call(SDKProvider(clients("anthropic", fake.url)[0], "m"), True)


def test_a_connection_failure_names_the_provider() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = openai.OpenAI(api_key="k", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    with pytest.raises(errors.APIConnectionError) as caught:
        call(SDKProvider(client, "m"), False)
    assert str(caught.value).startswith(
        f"openai: connection failed: POST http://127.0.0.1:{port}/v1/chat/completions: "
    )


def test_anything_else_is_refused_by_name() -> None:
    with pytest.raises(errors.ConfigError) as caught:
        SDKProvider(object(), "m")
    assert caught.value.field == "client"


def test_importing_the_providers_loads_no_vendor_sdk() -> None:
    code = (
        "import sys, signet_sdk.agent, signet_sdk.agent.providers as p\n"
        "p.provider_for('openai', base_url='http://127.0.0.1:1/v1', env={})\n"
        "loaded = sorted(m for m in ('anthropic', 'openai', 'signet_sdk.agent.providers.sdk')"
        " if m in sys.modules)\n"
        "print(loaded)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_an_openai_stream_cut_before_its_finish_reason_is_cut(
    fake: Scripted, use_async: bool
) -> None:
    """The official client hides ``[DONE]`` and ends quietly when the connection is cut:
    a stream without the choice's ``finish_reason`` is a cut answer, not a whole one."""
    call_piece = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "memory_store", "arguments": '{"content": "dep'},
    }
    fake.answers = [
        sse_answer(
            [
                (None, {"choices": [{"index": 0, "delta": {"content": "Storing"}}]}),
                (None, {"choices": [{"index": 0, "delta": {"tool_calls": [call_piece]}}]}),
            ]
        )
    ]
    client = clients("openai", fake.url)[1 if use_async else 0]
    wrapper = (AsyncSDKProvider if use_async else SDKProvider)(client, "m")
    with pytest.raises(errors.APIConnectionError) as caught:
        call(wrapper, True)
    assert getattr(caught.value, "progress", None) == "during tool call memory_store"
