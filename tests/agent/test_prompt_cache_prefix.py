"""The prompt-cache prefix holds: within a session, every model request extends the one before.

Run for real: the built-in providers against the fake model servers on
127.0.0.1, a session of several turns with a tool call and memory context
from the mock daemon. Each request's system prompt and tools are the
previous request's, byte for byte, and its messages begin with the previous
request's messages, byte for byte: what a provider's prompt cache needs to
hit on everything but the newest turn.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from signet_sdk.agent import Agent
from signet_sdk.agent.providers import AnthropicProvider, OpenAIProvider
from signet_sdk.testing.fake_anthropic import FakeAnthropic
from signet_sdk.testing.fake_openai import FakeOpenAI
from signet_sdk.testing.mock_daemon import MockDaemon


def _bytes(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _story(agent: Agent) -> None:
    with agent.session(project="/repo") as chat:
        chat.send("We deploy billing blue-green. Store that.")
        chat.send("What do we deploy on Tuesdays?")
        chat.send("Thanks.")


def _bodies(vendor: str, env: dict[str, str]) -> list[dict[str, Any]]:
    """The model requests of one session (``_story``) with ``vendor``'s provider and fake server.

    The mock daemon is 0.109's, which answers every prompt with recalled context.
    """
    fake: FakeAnthropic | FakeOpenAI
    if vendor == "anthropic":
        fake = FakeAnthropic()
        provider: Any = AnthropicProvider("claude-test", api_key="k", base_url=fake.base_url)
    else:
        fake = FakeOpenAI()
        provider = OpenAIProvider("gpt-test", api_key="k", base_url=fake.base_url)
    fake.tool_script.append(("memory_store", {"content": "Billing deploys blue-green."}))
    daemon = MockDaemon(version="0.109")
    with daemon.serve() as handle, fake:
        _story(Agent(provider, daemon_url=handle.url, env=env, instructions="Be terse."))
        found = fake.message_bodies() if isinstance(fake, FakeAnthropic) else fake.chat_bodies()
    daemon.close()
    return found


@pytest.mark.parametrize("vendor", ["anthropic", "openai"])
def test_each_request_begins_with_the_bytes_of_the_one_before(
    vendor: str, agent_env: dict[str, str]
) -> None:
    bodies = _bodies(vendor, agent_env)
    assert len(bodies) == 4  # three turns, one of them with a tool call
    for before, after in itertools.pairwise(bodies):
        assert _bytes(after.get("system")) == _bytes(before.get("system"))
        assert _bytes(after["tools"]) == _bytes(before["tools"])
        old, new = before["messages"], after["messages"]
        assert len(new) > len(old)
        assert [_bytes(m) for m in new[: len(old)]] == [_bytes(m) for m in old]
    # The stable part carries no clock and no per-turn memory: those are in the messages.
    assert "Be terse." in _bytes(bodies[0].get("system") or bodies[0]["messages"][0])


def test_anthropic_cache_breakpoints_sit_on_the_stable_part(agent_env: dict[str, str]) -> None:
    bodies = _bodies("anthropic", agent_env)
    for body in bodies:
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        assert all("cache_control" not in t for t in body["tools"][:-1])
        # The conversation is cached by the request-level breakpoint, which moves with it;
        # no message block carries one, so earlier messages keep their bytes.
        assert body.get("cache_control") == {"type": "ephemeral"}
        assert "cache_control" not in _bytes(body["messages"])


def test_openai_requests_share_one_prompt_cache_key(agent_env: dict[str, str]) -> None:
    bodies = _bodies("openai", agent_env)
    keys = {b.get("prompt_cache_key") for b in bodies}
    assert len(keys) == 1 and None not in keys
