"""Where the network splits a stream does not matter: the same lines, the same chunks.

A streamed answer reaches the decoder as lines, re-joined from whatever
pieces TCP delivered by the transport's own line reader: httpx's (the sync
provider and the async one on an httpx client, through the SDK's I/O
objects) and aiohttp's ``StreamReader`` (the async default). Pieces may end
inside a multi-byte character or between ``\\r`` and ``\\n``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from signet_sdk.agent.providers._http import _prepared
from signet_sdk.agent.providers._wire import ModelRequest
from signet_sdk.agent.providers.anthropic import AnthropicCodec
from signet_sdk.agent.providers.openai import OpenAICodec
from signet_sdk.agent.types import Chunk
from signet_sdk.client.io import AsyncHttpxIO, HttpxIO

from .test_anthropic import PARALLEL as ANTHROPIC_STREAM
from .test_openai import PARALLEL as OPENAI_STREAM

CODECS: dict[str, AnthropicCodec | OpenAICodec] = {
    "anthropic": AnthropicCodec(),
    "openai": OpenAICodec(),
}
STREAMS = {"anthropic": ANTHROPIC_STREAM, "openai": OPENAI_STREAM}
REQUEST = _prepared(ModelRequest("POST", "http://model.test/v1/messages", {}, b"{}", True))


def never(status: int, headers: object, content: bytes) -> None:
    raise AssertionError(f"unexpected status {status}")


def decode(api: str, lines: list[str]) -> list[Chunk]:
    decoder = CODECS[api].decoder()
    chunks = [chunk for line in lines for chunk in decoder.feed(line)]
    return chunks + decoder.end()


def pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(set(cuts)), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]


class Pieces(httpx.SyncByteStream, httpx.AsyncByteStream):
    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts

    def __iter__(self) -> Iterator[bytes]:
        yield from self.parts

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            yield part


def httpx_lines(parts: list[bytes]) -> list[str]:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, stream=Pieces(parts)))
    io = HttpxIO(httpx.Client(transport=transport))
    try:
        return list(io.lines(REQUEST, None, never))
    finally:
        io.client.close()


def async_httpx_lines(parts: list[bytes]) -> list[str]:
    async def run() -> list[str]:
        transport = httpx.MockTransport(lambda request: httpx.Response(200, stream=Pieces(parts)))
        async with httpx.AsyncClient(transport=transport) as client:
            return [line async for line in AsyncHttpxIO(client).lines(REQUEST, None, never)]

    return asyncio.run(run())


def aiohttp_lines(parts: list[bytes]) -> list[str]:
    """Lines as :class:`~signet_sdk.client.io.AiohttpIO` reads ``resp.content`` (a StreamReader)."""
    import aiohttp
    from aiohttp.base_protocol import BaseProtocol

    async def run() -> list[str]:
        loop = asyncio.get_running_loop()
        reader = aiohttp.StreamReader(BaseProtocol(loop), 2**16, loop=loop)
        for part in parts:
            reader.feed_data(part)
        reader.feed_eof()
        return [raw.decode("utf-8", "replace").rstrip("\r\n") async for raw in reader]

    return asyncio.run(run())


@settings(max_examples=60, deadline=None)
@given(
    api=st.sampled_from(sorted(STREAMS)),
    newline=st.sampled_from(["\n", "\r\n"]),
    cuts=st.lists(st.integers(min_value=1, max_value=4000), max_size=40),
)
def test_any_split_gives_the_same_chunks(api: str, newline: str, cuts: list[int]) -> None:
    lines = STREAMS[api]
    data = newline.join(lines).encode() + newline.encode()
    expected = decode(api, lines)
    assert expected[-1].type == "done" and len(expected) == 3
    split = pieces(data, [cut % len(data) for cut in cuts])
    for reader in (httpx_lines, async_httpx_lines, aiohttp_lines):
        got = reader(split)
        assert got == lines, reader.__name__
        assert decode(api, got) == expected, reader.__name__
