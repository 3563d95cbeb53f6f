"""What every built-in provider has in common: its settings, and the call loop over a codec.

A vendor module (:mod:`.anthropic`, :mod:`.openai`) supplies a codec and the
names of its variables; the classes here turn that into a
:class:`~signet_sdk.agent.protocols.Provider` (sync, on httpx) or an
:class:`~signet_sdk.agent.protocols.AsyncProvider` (on aiohttp), which
differ only in how they wait.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Self
from urllib.parse import urlsplit

from signet_sdk.agent.providers._http import DEFAULT_RETRY, AsyncTransport, SyncTransport
from signet_sdk.agent.providers._wire import IncompleteStreamError
from signet_sdk.wire.errors import APIConnectionError, ConfigError

if TYPE_CHECKING:
    from signet_sdk.agent.providers._codec import Codec
    from signet_sdk.agent.providers._wire import ModelRequest
    from signet_sdk.agent.types import Chunk, CompletionOptions, CompletionResult, Message
    from signet_sdk.client.io import AsyncHTTPClient, HTTPClient
    from signet_sdk.wire.retry import RetryPolicy

__all__ = [
    "AsyncModelProvider",
    "ProviderSettings",
    "SyncModelProvider",
    "Vendor",
    "resolve_settings",
    "twin_arguments",
]


@dataclass(frozen=True, slots=True)
class Vendor:
    """What a provider class needs to know of its API: variables, default server, codec.

    A key is required on ``host`` (the vendor's own); ``codec`` makes the
    codec from the resolved base URL, key and extra headers.
    """

    key_variable: str
    base_variable: str
    default_base: str
    host: str
    codec: Callable[[str, str | None, Mapping[str, str]], Codec]


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    """A provider's settings once resolved from arguments and environment.

    The key and the extra headers (which may hold credentials too) are kept
    out of the repr.
    """

    model: str
    base_url: str
    api_key: str | None = field(repr=False)
    headers: Mapping[str, str] = field(repr=False)
    retry: RetryPolicy
    needs_key: bool


def resolve_settings(
    vendor: Vendor,
    model: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
    retry: RetryPolicy | None = None,
    headers: Mapping[str, str] | None = None,
) -> ProviderSettings:
    """Arguments first, then ``env`` (``os.environ`` when None), then the vendor's defaults.

    A key is required on the vendor's own host (``key_variable`` named when
    it is missing); a server at another base URL (a gateway, a local
    OpenAI-compatible server) may need none.
    """
    if not isinstance(model, str) or not model.strip():
        raise ConfigError("model", "name the model to call, e.g. 'claude-sonnet-4-6'")
    key_variable, base_variable = vendor.key_variable, vendor.base_variable
    environ: Mapping[str, str] = os.environ if env is None else env
    key = api_key if api_key else (environ.get(key_variable) or None)
    source = "base_url" if base_url else base_variable
    base = (base_url or environ.get(base_variable) or vendor.default_base).strip().rstrip("/")
    try:
        parts = urlsplit(base)
        parts.port  # noqa: B018 - raises for a port that is no number in 0-65535
    except ValueError as exc:  # "Invalid IPv6 URL", "Port out of range 0-65535"
        raise ConfigError(source, f"expected an http(s) URL, got {base!r} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(source, f"expected an http(s) URL, got {base!r}")
    needs_key = parts.hostname.lower() == vendor.host
    if needs_key and not key:
        raise ConfigError(
            key_variable, f"no API key for {base}: set {key_variable} or pass api_key="
        )
    extra = MappingProxyType({k.lower(): v for k, v in (headers or {}).items()})
    return ProviderSettings(model, base, key, extra, retry or DEFAULT_RETRY, needs_key)


def _drain(lines: Generator[str, None, None]) -> None:
    """Read a finished stream to its end, so httpx gives the connection back to the pool.

    Closed at the end marker, the body is left unread and httpx drops the
    connection: every streamed call would pay a new connection (a TLS
    handshake against a real API). What follows the marker is at most a
    blank line or two; a failure there changes nothing about the answer.
    """
    try:
        for _ in lines:
            pass
    except APIConnectionError:
        pass


class _ProviderBase(ABC):
    """What both kinds of provider share: settings, the codec, the name; ``_open`` the transport.

    ``http_client`` is the HTTP library's client to share a pool with (its
    owner closes it): an ``httpx.Client`` for the sync providers, an
    ``aiohttp.ClientSession`` or ``httpx.AsyncClient`` for the async ones.
    """

    vendor: ClassVar[Vendor]

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        env: Mapping[str, str] | None = None,
        retry: RetryPolicy | None = None,
        http_client: HTTPClient | AsyncHTTPClient | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.settings = settings = resolve_settings(
            self.vendor,
            model,
            api_key=api_key,
            base_url=base_url,
            env=env,
            retry=retry,
            headers=headers,
        )
        self.codec = self.vendor.codec(settings.base_url, settings.api_key, settings.headers)
        self._transport = self._open(http_client)

    @abstractmethod
    def _open(self, http_client: Any) -> Any:
        """The transport this kind of provider sends with (sync or async)."""

    @property
    def id(self) -> str:
        """``<provider>:<model>``, e.g. ``anthropic:claude-sonnet-4-6``."""
        return f"{self.codec.provider}:{self.settings.model}"

    @property
    def model(self) -> str:
        return self.settings.model

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.settings.base_url!r})"


class SyncModelProvider(_ProviderBase):
    """A :class:`~signet_sdk.agent.protocols.Provider` over one codec, on httpx.

    The key comes from ``api_key`` or the vendor's key variable, the server
    from ``base_url`` or its base-URL variable, else the vendor's own;
    ``env`` stands in for ``os.environ``. A missing key where one is needed
    is a :class:`~signet_sdk.wire.errors.ConfigError` naming the variable.
    ``http_client`` is an ``httpx.Client`` to share a pool (its owner closes
    it); ``headers`` are added to every request.
    """

    _transport: SyncTransport

    def _open(self, http_client: Any) -> SyncTransport:
        return SyncTransport(self.codec.provider, self.settings.retry, http_client)

    def complete(self, messages: Sequence[Message], options: CompletionOptions) -> CompletionResult:
        request = self.codec.request(self.settings.model, messages, options, False)
        return self.codec.parse(self._transport.call(request, options.timeout))

    def stream(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> Generator[Chunk, None, None]:
        """Text chunks as they come, then one ``done`` chunk (the request is built here, now)."""
        request = self.codec.request(self.settings.model, messages, options, True)
        return self._chunks(request, options.timeout)

    def _chunks(self, request: ModelRequest, timeout: float | None) -> Generator[Chunk, None, None]:
        decoder = self.codec.decoder()
        lines = self._transport.lines(request, timeout)
        fed = False
        try:
            for line in lines:
                fed = True
                yield from decoder.feed(line)
                if decoder.done:
                    _drain(lines)
                    return
            yield from decoder.end()
        except APIConnectionError as exc:
            if not fed or isinstance(exc, IncompleteStreamError):
                raise
            raise decoder.incomplete(_reason(exc)) from exc
        finally:
            lines.close()

    def available(self) -> bool:
        """A key where one is needed, and a server off the vendor's host lists its models."""
        if self.settings.needs_key:
            return bool(self.settings.api_key)
        return self._transport.probe(self.codec.models_request())

    def close(self) -> None:
        """Close the connection pool (one passed in stays open: its owner closes it)."""
        self._transport.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncModelProvider(_ProviderBase):
    """An :class:`~signet_sdk.agent.protocols.AsyncProvider` over one codec, on aiohttp.

    Settings as for :class:`SyncModelProvider`; ``http_client`` may be an
    ``aiohttp.ClientSession`` or an ``httpx.AsyncClient`` to share.
    """

    _transport: AsyncTransport

    def _open(self, http_client: Any) -> AsyncTransport:
        return AsyncTransport(self.codec.provider, self.settings.retry, http_client)

    async def complete(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> CompletionResult:
        request = self.codec.request(self.settings.model, messages, options, False)
        return self.codec.parse(await self._transport.call(request, options.timeout))

    def stream(
        self, messages: Sequence[Message], options: CompletionOptions
    ) -> AsyncGenerator[Chunk, None]:
        """Text chunks as they come, then one ``done`` chunk (the request is built here, now)."""
        request = self.codec.request(self.settings.model, messages, options, True)
        return self._chunks(request, options.timeout)

    async def _chunks(
        self, request: ModelRequest, timeout: float | None
    ) -> AsyncGenerator[Chunk, None]:
        decoder = self.codec.decoder()
        lines = self._transport.lines(request, timeout)
        fed = False
        try:
            async for line in lines:
                fed = True
                for chunk in decoder.feed(line):
                    yield chunk
                if decoder.done:
                    return
            for chunk in decoder.end():
                yield chunk
        except APIConnectionError as exc:
            if not fed or isinstance(exc, IncompleteStreamError):
                raise
            raise decoder.incomplete(_reason(exc)) from exc
        finally:
            await lines.aclose()

    async def available(self) -> bool:
        """A key where one is needed, and a server off the vendor's host lists its models."""
        if self.settings.needs_key:
            return bool(self.settings.api_key)
        return await self._transport.probe(self.codec.models_request())

    async def aclose(self) -> None:
        """Close the connection pool (one passed in stays open: its owner closes it)."""
        await self._transport.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def twin_arguments(settings: ProviderSettings) -> dict[str, Any]:
    """The settings as keyword arguments for the other twin's constructor (no environment)."""
    return {
        "api_key": settings.api_key,
        "base_url": settings.base_url,
        "env": {},
        "retry": settings.retry,
        "headers": settings.headers,
    }


def _reason(exc: APIConnectionError) -> str:
    """What cut a stream once its answer had begun: the HTTP library's words, else ours."""
    cause: Any = exc.__cause__
    return str(cause) if cause is not None and str(cause) else exc.message
