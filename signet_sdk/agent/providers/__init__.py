"""The built-in model providers: Anthropic Messages and OpenAI chat completions.

They speak HTTP with the SDK's own clients (httpx, aiohttp), not the
vendors' SDKs, which bring a second HTTP stack and most of a second of
import time; ``import signet_sdk.agent.providers`` imports neither
``anthropic`` nor ``openai``. A client of the official SDK a user already
holds (Bedrock, Vertex, Azure ...) is wrapped by :class:`SDKProvider` /
:class:`AsyncSDKProvider` (loaded on first use).

:func:`provider_for` makes one by name. The default models, used when none
is named: :data:`DEFAULT_MODELS` (Claude Sonnet 4.6, Anthropic's
general-purpose model; GPT-5.4 mini, OpenAI's fast and inexpensive
agentic one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

from signet_sdk.agent.providers._wire import IncompleteStreamError, ModelRequest
from signet_sdk.agent.providers.anthropic import (
    AnthropicCodec,
    AnthropicProvider,
    AsyncAnthropicProvider,
    anthropic_tool,
)
from signet_sdk.agent.providers.openai import (
    AsyncOpenAIProvider,
    OpenAICodec,
    OpenAIProvider,
    openai_tool,
)
from signet_sdk.wire.errors import ConfigError

if TYPE_CHECKING:
    from signet_sdk.agent.providers.sdk import AsyncSDKProvider, SDKProvider

__all__ = [
    "DEFAULT_MODELS",
    "PROVIDERS",
    "AnthropicCodec",
    "AnthropicProvider",
    "AsyncAnthropicProvider",
    "AsyncOpenAIProvider",
    "AsyncSDKProvider",
    "IncompleteStreamError",
    "ModelRequest",
    "OpenAICodec",
    "OpenAIProvider",
    "SDKProvider",
    "anthropic_tool",
    "openai_tool",
    "provider_for",
]

#: The model each provider calls when none is named.
DEFAULT_MODELS: Mapping[str, str] = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.4-mini"}
#: The names :func:`provider_for` knows, with their sync and async classes.
PROVIDERS: Mapping[
    str,
    tuple[
        type[AnthropicProvider | OpenAIProvider], type[AsyncAnthropicProvider | AsyncOpenAIProvider]
    ],
] = {
    "anthropic": (AnthropicProvider, AsyncAnthropicProvider),
    "openai": (OpenAIProvider, AsyncOpenAIProvider),
}


@overload
def provider_for(
    name: str,
    *,
    model: str | None = ...,
    base_url: str | None = ...,
    env: Mapping[str, str] | None = ...,
    async_: Literal[False] = ...,
) -> AnthropicProvider | OpenAIProvider: ...


@overload
def provider_for(
    name: str,
    *,
    model: str | None = ...,
    base_url: str | None = ...,
    env: Mapping[str, str] | None = ...,
    async_: Literal[True],
) -> AsyncAnthropicProvider | AsyncOpenAIProvider: ...


def provider_for(
    name: str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
    async_: bool = False,
) -> AnthropicProvider | OpenAIProvider | AsyncAnthropicProvider | AsyncOpenAIProvider:
    """The provider called ``name`` (``"anthropic"`` or ``"openai"``), sync or async.

    ``model`` defaults to :data:`DEFAULT_MODELS`; the key and base URL come
    from ``env`` (``os.environ`` when None) as each provider's constructor
    reads them. ``"openai"`` with a ``base_url`` is any OpenAI-compatible
    server (Ollama, vLLM, LM Studio, llama.cpp).
    """
    key = name.strip().lower() if isinstance(name, str) else ""
    if key not in PROVIDERS:
        known = ", ".join(PROVIDERS)
        raise ConfigError("provider", f"unknown provider {name!r}; known: {known}")
    sync_class, async_class = PROVIDERS[key]
    chosen = model or DEFAULT_MODELS[key]
    if async_:
        return async_class(chosen, base_url=base_url, env=env)
    return sync_class(chosen, base_url=base_url, env=env)


def __getattr__(name: str) -> Any:
    """The wrappers of official vendor clients load on first use (PEP 562)."""
    if name in ("SDKProvider", "AsyncSDKProvider"):
        from signet_sdk.agent.providers import sdk

        return getattr(sdk, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
