"""The reference runtime: a memory-backed agent loop over Signet's lifecycle.

``Agent(provider, ...)`` opens sessions; every step of a session is a daemon
call or a thin wrapper of one (session start, user-prompt-submit before each
generation, checkpoints, compaction, session end through the outbox). The
spec's four interfaces are here in Python form: :class:`Provider` (and
:class:`AsyncProvider`), :class:`Tool` with :class:`ToolRegistry`,
:class:`Channel`, and the ``RuntimeAdapter`` the session calls through.

Names load on first use, so ``import signet_sdk.agent`` stays cheap and never
imports a vendor SDK.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from signet_sdk.agent.agent import Agent as Agent
    from signet_sdk.agent.async_session import AsyncSession as AsyncSession
    from signet_sdk.agent.durable import recover_sessions as recover_sessions
    from signet_sdk.agent.events import AgentEvent as AgentEvent
    from signet_sdk.agent.events import AgentOutput as AgentOutput
    from signet_sdk.agent.events import Compaction as Compaction
    from signet_sdk.agent.events import Limits as Limits
    from signet_sdk.agent.protocols import AsyncProvider as AsyncProvider
    from signet_sdk.agent.protocols import Channel as Channel
    from signet_sdk.agent.protocols import Provider as Provider
    from signet_sdk.agent.providers import AnthropicProvider as AnthropicProvider
    from signet_sdk.agent.providers import AsyncAnthropicProvider as AsyncAnthropicProvider
    from signet_sdk.agent.providers import AsyncOpenAIProvider as AsyncOpenAIProvider
    from signet_sdk.agent.providers import OpenAIProvider as OpenAIProvider
    from signet_sdk.agent.providers import provider_for as provider_for
    from signet_sdk.agent.runner import TurnRunningError as TurnRunningError
    from signet_sdk.agent.session import Session as Session
    from signet_sdk.agent.tools import CallContext as CallContext
    from signet_sdk.agent.tools import McpTools as McpTools
    from signet_sdk.agent.tools import Tool as Tool
    from signet_sdk.agent.tools import ToolRegistry as ToolRegistry
    from signet_sdk.agent.tools import tool as tool
    from signet_sdk.agent.types import Chunk as Chunk
    from signet_sdk.agent.types import CompletionOptions as CompletionOptions
    from signet_sdk.agent.types import CompletionResult as CompletionResult
    from signet_sdk.agent.types import Message as Message
    from signet_sdk.agent.types import StopReason as StopReason
    from signet_sdk.agent.types import ToolCall as ToolCall
    from signet_sdk.agent.types import ToolResult as ToolResult
    from signet_sdk.agent.types import ToolSpec as ToolSpec
    from signet_sdk.agent.types import Usage as Usage

_WHERE: dict[str, str] = {
    "Agent": "signet_sdk.agent.agent",
    "AgentEvent": "signet_sdk.agent.events",
    "AgentOutput": "signet_sdk.agent.events",
    "AnthropicProvider": "signet_sdk.agent.providers",
    "AsyncAnthropicProvider": "signet_sdk.agent.providers",
    "AsyncOpenAIProvider": "signet_sdk.agent.providers",
    "AsyncProvider": "signet_sdk.agent.protocols",
    "AsyncSession": "signet_sdk.agent.async_session",
    "CallContext": "signet_sdk.agent.tools",
    "Channel": "signet_sdk.agent.protocols",
    "Chunk": "signet_sdk.agent.types",
    "Compaction": "signet_sdk.agent.events",
    "CompletionOptions": "signet_sdk.agent.types",
    "CompletionResult": "signet_sdk.agent.types",
    "Limits": "signet_sdk.agent.events",
    "McpTools": "signet_sdk.agent.tools",
    "Message": "signet_sdk.agent.types",
    "OpenAIProvider": "signet_sdk.agent.providers",
    "Provider": "signet_sdk.agent.protocols",
    "Session": "signet_sdk.agent.session",
    "StopReason": "signet_sdk.agent.types",
    "Tool": "signet_sdk.agent.tools",
    "ToolCall": "signet_sdk.agent.types",
    "ToolRegistry": "signet_sdk.agent.tools",
    "ToolResult": "signet_sdk.agent.types",
    "ToolSpec": "signet_sdk.agent.types",
    "TurnRunningError": "signet_sdk.agent.runner",
    "Usage": "signet_sdk.agent.types",
    "provider_for": "signet_sdk.agent.providers",
    "recover_sessions": "signet_sdk.agent.durable",
    "tool": "signet_sdk.agent.tools",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'signet_sdk.agent' has no attribute {name!r}")
    value = getattr(import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
