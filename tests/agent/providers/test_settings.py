"""How a provider is configured: keys and servers from arguments or environment, by name."""

from __future__ import annotations

import pytest

from signet_sdk.agent.protocols import AsyncProvider, Provider
from signet_sdk.agent.providers import (
    DEFAULT_MODELS,
    AnthropicProvider,
    AsyncAnthropicProvider,
    AsyncOpenAIProvider,
    OpenAIProvider,
    provider_for,
)
from signet_sdk.agent.types import CompletionOptions, Message
from signet_sdk.wire.errors import ConfigError
from signet_sdk.wire.retry import RetryPolicy

SECRET = "sk-very-secret-0123"


def test_keys_and_servers_come_from_the_environment() -> None:
    anthropic = AnthropicProvider(
        "claude-sonnet-4-6",
        env={"ANTHROPIC_API_KEY": SECRET, "ANTHROPIC_BASE_URL": "https://gw.example/anthropic/"},
    )
    request = anthropic.codec.request("m", [Message("user", "hi")], CompletionOptions(), False)
    assert request.url == "https://gw.example/anthropic/v1/messages"
    assert request.headers["x-api-key"] == SECRET
    openai = OpenAIProvider("gpt-5.4-mini", env={"OPENAI_API_KEY": SECRET})
    request = openai.codec.request("m", [Message("user", "hi")], CompletionOptions(), False)
    assert request.url == "https://api.openai.com/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {SECRET}"


def test_arguments_win_over_the_environment() -> None:
    env = {"OPENAI_API_KEY": "from-env", "OPENAI_BASE_URL": "http://env.example/v1"}
    provider = OpenAIProvider("m", api_key="from-arg", base_url="http://arg.example/v1", env=env)
    assert provider.settings.base_url == "http://arg.example/v1"
    assert provider.settings.api_key == "from-arg"


@pytest.mark.parametrize(
    ("make", "variable"),
    [(AnthropicProvider, "ANTHROPIC_API_KEY"), (OpenAIProvider, "OPENAI_API_KEY")],
)
def test_a_missing_key_for_the_vendors_host_names_the_variable(make: type, variable: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make("m", env={variable: ""})
    assert caught.value.field == variable
    assert f"set {variable} or pass api_key=" in str(caught.value)


def test_a_local_server_needs_no_key() -> None:
    provider = OpenAIProvider("qwen3", env={"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"})
    request = provider.codec.request("qwen3", [Message("user", "hi")], CompletionOptions(), False)
    assert "authorization" not in request.headers
    assert provider.id == "openai:qwen3"


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"model": " "}, "model"),
        ({"model": "m", "base_url": "api.openai.com/v1"}, "base_url"),
        ({"model": "m", "env": {"OPENAI_BASE_URL": "ftp://x"}}, "OPENAI_BASE_URL"),
        # urlsplit's own ValueError ("Invalid IPv6 URL", a port out of range) named too
        ({"model": "m", "base_url": "http://[::1/v1"}, "base_url"),
        ({"model": "m", "base_url": "http://127.0.0.1:99999/v1"}, "base_url"),
        ({"model": "m", "env": {"OPENAI_BASE_URL": "http://host:port/v1"}}, "OPENAI_BASE_URL"),
    ],
)
def test_bad_settings_are_named(kw: dict[str, object], field: str) -> None:
    kw.setdefault("env", {})
    with pytest.raises(ConfigError) as caught:
        OpenAIProvider(**kw)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_no_key_in_any_repr() -> None:
    provider = AnthropicProvider("m", api_key=SECRET, env={}, headers={"X-Team-Token": SECRET})
    twin = provider.as_async()
    request = provider.codec.request("m", [Message("user", "hi")], CompletionOptions(), False)
    for shown in (provider, twin, provider.settings, request):
        assert SECRET not in repr(shown) and SECRET not in str(shown)
    assert repr(provider) == "AnthropicProvider(model='m', base_url='https://api.anthropic.com')"
    assert request.headers["x-team-token"] == SECRET


def test_twins_keep_every_setting() -> None:
    retry = RetryPolicy(max_retries=5)
    sync = OpenAIProvider(
        "m", api_key="k", base_url="http://h.example/v1", env={}, retry=retry, headers={"x-a": "1"}
    )
    twin = sync.as_async()
    back = twin.as_sync()
    assert isinstance(twin, AsyncOpenAIProvider) and isinstance(back, OpenAIProvider)
    assert twin.settings == sync.settings == back.settings
    anthropic_twin = AnthropicProvider("m", api_key="k", env={}).as_async()
    assert isinstance(anthropic_twin, AsyncAnthropicProvider)
    assert isinstance(anthropic_twin.as_sync(), AnthropicProvider)


def test_the_providers_are_the_runtimes_protocols() -> None:
    env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
    for name in ("anthropic", "openai"):
        assert isinstance(provider_for(name, env=env), Provider)
        assert isinstance(provider_for(name, env=env, async_=True), AsyncProvider)


def test_provider_for_by_name() -> None:
    env = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
    assert provider_for("anthropic", env=env).id == f"anthropic:{DEFAULT_MODELS['anthropic']}"
    assert provider_for("OpenAI", env=env).id == f"openai:{DEFAULT_MODELS['openai']}"
    local = provider_for("openai", model="llama3.2", base_url="http://localhost:1234/v1", env={})
    assert (local.id, local.settings.base_url) == ("openai:llama3.2", "http://localhost:1234/v1")
    assert isinstance(provider_for("anthropic", env=env, async_=True), AsyncAnthropicProvider)


def test_an_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        provider_for("gemini", env={})
    assert caught.value.field == "provider"
    assert str(caught.value) == "provider: unknown provider 'gemini'; known: anthropic, openai"
