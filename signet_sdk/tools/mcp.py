"""The memory tools over MCP, on the official ``mcp`` package's high-level server.

Each tool is registered as a function whose signature is built from its
input model (same fields, types, constraints, defaults and descriptions),
so the schema MCP publishes is the one OpenAI and Anthropic get. Calls go
through :func:`~signet_sdk.tools.runner.call_tool_async` on one shared
``AsyncAdapterClient``; every failure (daemon down, not found, invalid
arguments, a disabled tool) comes back as an MCP tool error with a readable
message, never a crash of the server.

``signet-sdk mcp`` serves it on stdio. The tool context comes from the
environment the harness starts the server with: ``SIGNET_SESSION_KEY``,
``SIGNET_PROJECT`` (else the working directory) and ``SIGNET_AGENT_ID``;
``SIGNET_TOOLS_ALLOW_EXEC=1`` enables ``secrets_exec``.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from signet_sdk.tools.definitions import Tool, ToolContext
from signet_sdk.tools.runner import drive_async, enabled_tools, parse_arguments
from signet_sdk.wire.errors import PayloadError, SignetError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from signet_sdk.client.async_client import AsyncAdapterClient

__all__ = ["MCP_HINT", "build_mcp_server", "context_from_env", "main"]

MCP_HINT = "the MCP server needs the mcp extra: pip install 'signetai-sdk[mcp]'"


def context_from_env(env: Mapping[str, str] | None = None) -> ToolContext:
    """The tool context a harness gives the server through its environment."""
    environ = os.environ if env is None else env
    return ToolContext(
        session_key=environ.get("SIGNET_SESSION_KEY") or None,
        project=environ.get("SIGNET_PROJECT") or os.getcwd(),
        agent_id=environ.get("SIGNET_AGENT_ID") or None,
    )


def _signature(tool: Tool) -> inspect.Signature:
    params = []
    for name, field in tool.input_model.model_fields.items():
        extra = [Field(description=field.description)] if field.description else []
        parts = (field.annotation, *field.metadata, *extra)
        annotation = Annotated[parts] if len(parts) > 1 else field.annotation
        if field.is_required():
            default: Any = inspect.Parameter.empty
        elif field.default_factory is not None:
            default = field.default_factory()  # type: ignore[call-arg]
        else:
            default = field.default
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
            )
        )
    return inspect.Signature(params, return_annotation=dict[str, Any])


def _handler(
    tool: Tool,
    client: Callable[[], AsyncAdapterClient],
    context: ToolContext,
    allow_commands: bool,
) -> Callable[..., Awaitable[dict[str, Any]]]:
    from mcp.server.mcpserver.exceptions import ToolError

    async def run(**arguments: Any) -> dict[str, Any]:
        # MCP checked each argument against its field; the input model's own
        # rules (whitespace stripped before a length check, checks across
        # fields) run here, so a bad argument is a tool error naming it, as
        # ``signet-sdk tools call`` and the server say it.
        try:
            validated = parse_arguments(tool, arguments)
        except PayloadError as exc:
            raise ToolError(str(exc)) from None
        try:
            return await drive_async(client(), tool.plan(validated, context))
        except SignetError as exc:
            raise ToolError(f"{tool.name} failed: {exc}") from None

    run.__signature__ = _signature(tool)  # type: ignore[attr-defined]
    run.__name__ = tool.name
    run.__doc__ = tool.description
    return run


def build_mcp_server(
    client: AsyncAdapterClient | Callable[[], AsyncAdapterClient],
    *,
    context: ToolContext | None = None,
    allow_commands: bool = False,
    name: str = "signet",
) -> MCPServer:
    """An ``MCPServer`` exposing the tool set; ``client`` may be a factory (made on first call)."""
    from mcp.server.mcpserver import MCPServer

    holder: list[AsyncAdapterClient] = []

    def get() -> AsyncAdapterClient:
        if not holder:
            holder.append(client() if callable(client) else client)
        return holder[0]

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:
            # A client made here is closed with the server (its connections with it);
            # a client the caller passed stays the caller's.
            if holder and callable(client):
                await holder.pop().aclose()

    server: MCPServer = MCPServer(
        name, instructions="Long-term memory for this agent (Signet).", lifespan=lifespan
    )
    ctx = context or ToolContext()
    for tool in enabled_tools(allow_commands=allow_commands):
        server.add_tool(
            _handler(tool, get, ctx, allow_commands),
            name=tool.name,
            description=tool.description,
            structured_output=False,
        )
        _forbid_unknown_arguments(server, tool.name)
    return server


def _forbid_unknown_arguments(server: MCPServer, name: str) -> None:
    """Refuse an argument the tool does not have, as the input model does.

    MCP's argument model ignores one, so a misspelt argument was dropped and
    the call reported done without it. The published schema is unchanged.
    """
    from pydantic import BaseModel, ConfigDict

    # No public way to reach the registered Tool: a release of ``mcp`` without
    # these names keeps its own behaviour (an unknown argument ignored), never
    # a server that cannot start.
    manager = getattr(server, "_tool_manager", None)
    registered = getattr(manager, "get_tool", lambda _name: None)(name)
    meta = getattr(registered, "fn_metadata", None)
    model = getattr(meta, "arg_model", None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return
    meta.arg_model = type(  # type: ignore[union-attr]
        model.__name__, (model,), {"model_config": ConfigDict(extra="forbid")}
    )


def main(argv: list[str] | None = None) -> int:
    """``signet-sdk mcp``: serve the memory tools on stdio until the client closes it."""
    import sys

    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        sys.stderr.write(f"signet-sdk mcp: {MCP_HINT}\n")
        return 2
    import logging

    from signet_sdk.runtime.registry import create_async_adapter

    # stderr is the harness's log: no per-request lines from the HTTP client.
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    harness = os.environ.get("SIGNET_HARNESS") or "mcp"
    allow = os.environ.get("SIGNET_TOOLS_ALLOW_EXEC") == "1"
    server = build_mcp_server(
        lambda: create_async_adapter(harness), context=context_from_env(), allow_commands=allow
    )
    server.run("stdio")
    return 0
