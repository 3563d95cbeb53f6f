"""A client of the official ``anthropic`` or ``openai`` package, as a provider.

For a user who already holds one: Amazon Bedrock (``AnthropicBedrock``),
Google Vertex (``AnthropicVertex``), Azure (``AzureOpenAI``), or a client
with their own auth, proxies or hooks. The request body is the one the
built-in codecs build (same cache layout, same tool rendering) and goes to
the client's ``create`` call as keyword arguments; the answer, taken as
``model_dump()``, is read by the same codec. So a conversation reads the
same whichever way it travels.

Nothing here imports ``anthropic`` or ``openai``: the client object passed
in belongs to a package its owner has loaded already, and its errors are
found through it. They become the SDK's errors (status, timeout,
connection), named as the built-in providers name them.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator, Generator, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from signet_sdk.agent.providers._wire import ModelRequest, StreamDecoder, answer_failure
from signet_sdk.agent.providers.anthropic import AnthropicCodec
from signet_sdk.agent.providers.openai import OpenAICodec, OpenAIStreamDecoder
from signet_sdk.wire.errors import APIConnectionError, APITimeoutError, ConfigError, SignetError

if TYPE_CHECKING:
    from signet_sdk.agent.types import Chunk, CompletionOptions, CompletionResult, Message

__all__ = ["AsyncSDKProvider", "SDKProvider"]

_VENDORS = ("anthropic", "openai")


def _vendor(client: object) -> str:
    vendor = type(client).__module__.partition(".")[0]
    if vendor not in _VENDORS:
        raise ConfigError(
            "client",
            f"expected a client of the 'anthropic' or 'openai' package, "
            f"got {type(client).__name__}",
        )
    return vendor


class _Wrapped:
    """What both wrappers share: the vendor, its codec, its create call, its errors."""

    def __init__(self, client: Any, model: str) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigError("model", "name the model to call")
        self.client = client
        self.model = model
        self.vendor = _vendor(client)
        base_url = str(getattr(client, "base_url", "") or "")
        self.codec: AnthropicCodec | OpenAICodec
        if self.vendor == "anthropic":
            self.codec = AnthropicCodec(base_url or "https://api.anthropic.com")
            self._create = client.messages.create
        else:
            self.codec = OpenAICodec(base_url or "https://api.openai.com/v1")
            self._create = client.chat.completions.create
        # Where errors say the call went (the client may add its own path prefix).
        self._where = ModelRequest("POST", self.codec.url, {}, None)
        self._known = _keywords(self._create)

    @property
    def id(self) -> str:
        return f"{self.vendor}:{self.model}"

    def _body(
        self, messages: Sequence[Message], options: CompletionOptions, stream: bool
    ) -> dict[str, Any]:
        """The codec's body as keyword arguments of ``create``.

        A field the installed client's ``create`` does not name (``anthropic``
        2.x has no ``temperature``) still goes out, through ``extra_body``, so
        the request means what the caller asked for and the API judges it.
        """
        body = self.codec.body(self.model, messages, options, stream)
        if self._known is not None:
            extra = {key: body.pop(key) for key in list(body) if key not in self._known}
            if extra:
                body["extra_body"] = extra
        if options.timeout is not None:
            body["timeout"] = options.timeout
        return body

    def _error(self, exc: Exception) -> SignetError | None:
        """The SDK's error for one the vendor's client raised, or None for any other."""
        package = sys.modules.get(self.vendor)
        if package is None:
            return None
        where, at = self._where, {"method": self._where.method, "url": self._where.url}
        if isinstance(exc, getattr(package, "APIStatusError", ())):
            response: Any = getattr(exc, "response", None)
            return answer_failure(
                self.vendor, where, response.status_code, response.headers, response.content
            )
        if isinstance(exc, getattr(package, "APITimeoutError", ())):
            text = f"{self.vendor}: no answer within the deadline: {where.method} {where.url}"
            return APITimeoutError(text, **at)
        if isinstance(exc, getattr(package, "APIConnectionError", ())):
            text = f"{self.vendor}: connection failed: {where.method} {where.url}: {exc}"
            return APIConnectionError(text, **at)
        return None

    def _stream_error(self, exc: Exception, decoder: StreamDecoder) -> SignetError | None:
        """The SDK's error for a failure while the events arrive.

        An error event mid-stream reaches the vendor's client on a 200
        answer; it is read by the codec, as if it had come over the wire.
        A lost connection is a cut stream.
        """
        package = sys.modules.get(self.vendor)
        response: Any = getattr(exc, "response", None)
        status = getattr(response, "status_code", 200)
        status = status if isinstance(status, int) else 200
        body = getattr(exc, "body", None)
        vendor_error = getattr(package, "APIError", ()) if package is not None else ()
        if isinstance(exc, vendor_error) and status < 300 and body is not None:
            if self.vendor == "openai":
                event: Any = {"error": body}
            elif isinstance(body, dict) and "error" in body:
                event = body
            else:
                event = {"type": "error", "error": body}
            try:
                decoder.event("error", event)
            except SignetError as raised:
                return raised
        error = self._error(exc)
        if isinstance(error, APIConnectionError):
            return decoder.incomplete(str(exc) or type(exc).__name__)
        return error

    def _decoder(self) -> StreamDecoder:
        return self.codec.decoder()

    @contextmanager
    def _stream_failures(self, decoder: StreamDecoder) -> Iterator[None]:
        """While the events arrive (either twin), a vendor's failure is raised as the SDK's."""
        try:
            yield
        except SignetError:
            raise
        except Exception as exc:
            error = self._stream_error(exc, decoder)
            if error is None:
                raise
            raise error from exc

    def _events_ended(self, decoder: StreamDecoder) -> list[Chunk]:
        """The vendor's stream ran out; OpenAI's client swallows ``[DONE]`` on its way."""
        if isinstance(decoder, OpenAIStreamDecoder):
            return decoder.end_of_events()
        return decoder.end()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({type(self.client).__name__}, model={self.model!r})"


def _keywords(create: Any) -> frozenset[str] | None:
    """The keyword arguments ``create`` names, or None when it takes any (or cannot be read)."""
    import inspect

    try:
        parameters = list(inspect.signature(create).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(p.name for p in parameters)


def _dump(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump() if callable(dump) else value


def _event_name(data: Any) -> str | None:
    return data.get("type") if isinstance(data, dict) else None


class SDKProvider(_Wrapped):
    """A sync ``anthropic.Anthropic`` / ``openai.OpenAI`` client (or kin) as a Provider."""

    def complete(self, messages: Sequence[Message], options: CompletionOptions) -> CompletionResult:
        body = self._body(messages, options, False)
        try:
            answer = self._create(**body)
        except Exception as exc:
            raise (self._error(exc) or exc) from exc
        return self.codec.parse(_dump(answer))

    def stream(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> Generator[Chunk, None, None]:
        body = self._body(messages, options, True)
        return self._chunks(body)

    def _chunks(self, body: dict[str, Any]) -> Generator[Chunk, None, None]:
        decoder = self._decoder()
        try:
            events = self._create(**body)
        except Exception as exc:
            raise (self._error(exc) or exc) from exc
        try:
            with self._stream_failures(decoder):
                for event in events:
                    data = _dump(event)
                    yield from decoder.event(_event_name(data), data)
                    if decoder.done:
                        return
                yield from self._events_ended(decoder)
        finally:
            close = getattr(events, "close", None)
            if callable(close):
                close()

    def available(self) -> bool:
        """The client exists and holds whatever credentials its owner gave it."""
        return True


class AsyncSDKProvider(_Wrapped):
    """An ``anthropic.AsyncAnthropic`` / ``openai.AsyncOpenAI`` client (or kin), awaited."""

    async def complete(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> CompletionResult:
        body = self._body(messages, options, False)
        try:
            answer = await self._create(**body)
        except Exception as exc:
            raise (self._error(exc) or exc) from exc
        return self.codec.parse(_dump(answer))

    def stream(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> AsyncGenerator[Chunk, None]:
        body = self._body(messages, options, True)
        return self._chunks(body)

    async def _chunks(self, body: dict[str, Any]) -> AsyncGenerator[Chunk, None]:
        decoder = self._decoder()
        try:
            events = await self._create(**body)
        except Exception as exc:
            raise (self._error(exc) or exc) from exc
        try:
            with self._stream_failures(decoder):
                async for event in events:
                    data = _dump(event)
                    for chunk in decoder.event(_event_name(data), data):
                        yield chunk
                    if decoder.done:
                        return
                for chunk in self._events_ended(decoder):
                    yield chunk
        finally:
            close = getattr(events, "close", None)
            if callable(close):
                await close()

    async def available(self) -> bool:
        """The client exists and holds whatever credentials its owner gave it."""
        return True
