"""A codec's shape, and what the built-in codecs share of it: the server, headers, requests.

:class:`Codec` is what a provider calls (request built, answer and stream
read, no I/O); :class:`JsonApiCodec` holds the parts of the Anthropic and
OpenAI codecs that differ only by their values (paths, headers).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from signet_sdk.agent.providers._wire import ModelRequest, encode_json

if TYPE_CHECKING:
    from signet_sdk.agent.providers._wire import StreamDecoder
    from signet_sdk.agent.types import CompletionOptions, CompletionResult, Message

__all__ = ["Codec", "JsonApiCodec", "codec_headers"]


def codec_headers(
    common: Mapping[str, str], headers: Mapping[str, str] | None
) -> tuple[dict[bool, dict[str, str]], dict[str, str]]:
    """A codec's request headers: per ``stream`` flag for completions, and for the model list.

    ``common`` (the vendor's version and key headers) then the caller's
    ``headers`` (lower-cased, so they replace rather than repeat ours). One
    dict per kind of call, made once: the I/O objects cache per dict.
    """
    extra = {k.lower(): v for k, v in (headers or {}).items()}
    by_stream = {
        stream: {
            "accept": "text/event-stream" if stream else "application/json",
            "content-type": "application/json",
            **common,
            **extra,
        }
        for stream in (False, True)
    }
    return by_stream, {"accept": "application/json", **common, **extra}


class Codec(Protocol):
    """One model API, sans I/O: requests built, answers and streams read.

    ``provider`` names the API in ids and messages; ``vendor_host`` is the
    vendor's own host, where a key is required and ``available()`` need not
    ask the server.
    """

    @property
    def provider(self) -> str: ...

    @property
    def base_url(self) -> str: ...

    def request(
        self, model: str, messages: Sequence[Message], options: CompletionOptions, stream: bool
    ) -> ModelRequest: ...

    def parse(self, data: Any) -> CompletionResult: ...

    def decoder(self) -> StreamDecoder: ...

    def models_request(self) -> ModelRequest: ...


class JsonApiCodec(ABC):
    """What the built-in codecs share: one server, its headers per kind of call, the requests.

    A subclass names its API (``provider``), where a model call and the model
    list go under ``base_url`` (``call_path``, ``models_path``), its own
    headers (version, key) and the body (:meth:`body`); reading the answers
    is its own too.
    """

    provider: str
    call_path: str
    models_path: str

    def __init__(
        self, base_url: str, common: Mapping[str, str], headers: Mapping[str, str] | None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}{self.call_path}"
        self._headers, self._models = codec_headers(common, headers)

    @abstractmethod
    def body(
        self, model: str, messages: Sequence[Message], options: CompletionOptions, stream: bool
    ) -> dict[str, Any]:
        """The request body as a dict (what an official client's create call takes)."""

    def request(
        self, model: str, messages: Sequence[Message], options: CompletionOptions, stream: bool
    ) -> ModelRequest:
        content = encode_json(self.body(model, messages, options, stream))
        return ModelRequest("POST", self.url, self._headers[stream], content, stream)

    def models_request(self) -> ModelRequest:
        """``GET`` the model list (``models_path``): free, and it tells whether the key is good."""
        return ModelRequest("GET", f"{self.base_url}{self.models_path}", self._models, None)
