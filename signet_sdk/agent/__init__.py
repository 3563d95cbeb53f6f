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

from signet_sdk import _lazy_module

TYPE_CHECKING = False
if TYPE_CHECKING:  # the public names: one line each, and the only place they are listed
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

    __all__: list[str]

# Hidden from type checkers, which read the block: an unknown name is an error there.
if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_module(__name__)
