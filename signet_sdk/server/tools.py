"""The memory tool set over HTTP: ``GET /v1/tools`` and ``POST /v1/tools/{name}``.

The same definitions MCP and the model-API renderings read. The body of a
call is the tool's arguments; the tool context comes from headers
(``X-Signet-Harness``, ``X-Signet-Session-Key``, ``X-Signet-Project``,
``X-Signet-Agent-Id``). A header carries only ASCII safely, and a project
path or session key may be any text: the shims' transport sends those
values percent-encoded and says so with ``X-Signet-Context: uri``; a raw
value (curl, an older transport) is read as the UTF-8 it was sent as.
``secrets_exec`` runs commands and is served only when the server was
started with it enabled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import unquote

from fastapi import Body, FastAPI, Header
from fastapi.responses import JSONResponse

from signet_sdk.server.errors import daemon_error, error
from signet_sdk.tools.definitions import ToolContext, ToolError
from signet_sdk.tools.render import tool_definitions
from signet_sdk.tools.runner import (
    ToolDisabledError,
    UnknownToolError,
    call_tool_async,
    enabled_tools,
)
from signet_sdk.wire.errors import SignetError

if TYPE_CHECKING:
    from signet_sdk.server.app import RuntimeAdapterServer

__all__ = ["add_tool_routes"]


def add_tool_routes(
    app: FastAPI, server: RuntimeAdapterServer, allow_commands: bool = False
) -> None:
    @app.get("/v1/tools")
    async def list_tools() -> dict[str, Any]:
        """Every tool: name, description and input schema (JSON Schema)."""
        return {"tools": tool_definitions(allow_commands=allow_commands)}

    @app.post("/v1/tools/{name}")
    async def call(
        name: str,
        arguments: Annotated[dict[str, Any] | None, Body()] = None,
        x_signet_harness: Annotated[str | None, Header()] = None,
        x_signet_session_key: Annotated[str | None, Header()] = None,
        x_signet_project: Annotated[str | None, Header()] = None,
        x_signet_agent_id: Annotated[str | None, Header()] = None,
        x_signet_context: Annotated[str | None, Header()] = None,
    ) -> Any:
        """Run one tool call; errors name the field or list the tools."""
        uri = x_signet_context == "uri"
        context = ToolContext(
            _header_text(x_signet_session_key, uri),
            _header_text(x_signet_project, uri),
            _header_text(x_signet_agent_id, uri),
        )
        client = server.client(x_signet_harness or "tools")
        try:
            return await call_tool_async(
                client, name, arguments, context=context, allow_commands=allow_commands
            )
        except UnknownToolError as exc:
            known = [t.name for t in enabled_tools(allow_commands=allow_commands)]
            return error(404, str(exc), valid=known)
        except ToolDisabledError as exc:
            return error(403, str(exc))
        except SignetError as exc:
            # A tool that words a daemon's refusal for the model (a missing id) answers
            # with the daemon's status, in the tool's words.
            cause = exc.__cause__ if isinstance(exc, ToolError) else None
            if isinstance(cause, SignetError):
                return daemon_error(cause, said=str(exc))
            response: JSONResponse = daemon_error(exc)
            return response


def _header_text(value: str | None, uri: bool) -> str | None:
    """A context header's text: percent-decoded (``uri``), else its bytes read as UTF-8.

    The server reads header bytes as latin-1 (HTTP's default), so a raw
    ``/home/josé`` arrives as ``/home/josÃ©``; its bytes are read again as
    UTF-8, and kept as they came when they are not UTF-8.
    """
    if value is None:
        return None
    if uri:
        return unquote(value, errors="replace")
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return value
