"""Calling a tool by name: validate the arguments, then drive its plan on a client.

``call_tool`` is what a Python agent loop uses directly: a model's tool call
(name and JSON arguments) in, the tool's JSON result out. Arguments are
validated against the tool's input model before anything is sent, so bad
input never reaches the daemon and the error names the field.
``secrets_exec`` runs commands and is refused unless the caller enabled it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from signet_sdk.tools.definitions import TOOLS, Plan, Tool, ToolContext, ToolError
from signet_sdk.wire.errors import PayloadError, SignetError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from signet_sdk.client.async_client import AsyncAdapterClient
    from signet_sdk.client.sync_client import AdapterClient

__all__ = [
    "ToolDisabledError",
    "ToolError",
    "UnknownToolError",
    "call_tool",
    "call_tool_async",
    "drive_async",
    "enabled_tools",
    "parse_arguments",
]


class UnknownToolError(ToolError, LookupError):
    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown tool {name!r}; tools: {', '.join(known)}")
        self.name = name


class ToolDisabledError(ToolError, PermissionError):
    pass


def enabled_tools(*, allow_commands: bool = False) -> list[Tool]:
    """The tools a caller offers: ``secrets_exec`` only with ``allow_commands``."""
    return [t for t in TOOLS.values() if allow_commands or not t.runs_commands]


def _tool(name: str, allow_commands: bool) -> Tool:
    tool = TOOLS.get(name)
    if tool is None:
        raise UnknownToolError(name, [t.name for t in enabled_tools(allow_commands=allow_commands)])
    if tool.runs_commands and not allow_commands:
        raise ToolDisabledError(
            f"{name} runs commands and is disabled; the user enables it "
            "(allow_commands=True, or SIGNET_TOOLS_ALLOW_EXEC=1 for the MCP server)"
        )
    return tool


def parse_arguments(tool: Tool, arguments: Mapping[str, Any] | None) -> BaseModel:
    """The validated input model; a ``PayloadError`` names the first bad field."""
    try:
        return tool.input_model.model_validate(dict(arguments or {}))
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "arguments"
        raise PayloadError(field, f"{tool.name}: {err['msg']}") from None


def _prepare(
    name: str, arguments: Mapping[str, Any] | None, context: ToolContext | None, allow: bool
) -> Plan:
    tool = _tool(name, allow)
    return tool.plan(parse_arguments(tool, arguments), context or ToolContext())


class _Driver:
    """Steps a tool's plan: it yields the client calls to make and returns the tool's result.

    Each call's outcome goes back into the plan: its answer, or the ``SignetError``
    it raised, thrown in so the plan can turn it into a result (a not-found, say).
    The sync and async runners differ only in how they make the call.
    """

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        #: The last call's answer, or the SignetError it raised (None before the first).
        self.outcome: Any = None
        self.result: dict[str, Any] = {}

    def next_call(self) -> tuple[str, tuple[Any, ...]] | None:
        """The next (client method, arguments), or None once the plan has its result."""
        try:
            if isinstance(self.outcome, SignetError):
                return self._plan.throw(self.outcome)
            return self._plan.send(self.outcome)
        except StopIteration as done:
            self.result = done.value
            return None


def call_tool(
    client: AdapterClient,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    context: ToolContext | None = None,
    allow_commands: bool = False,
) -> dict[str, Any]:
    """Run one tool call on ``client``; raises ToolError, PayloadError or the client's error."""
    driver = _Driver(_prepare(name, arguments, context, allow_commands))
    while (call := driver.next_call()) is not None:
        try:
            driver.outcome = getattr(client, call[0])(*call[1])
        except SignetError as exc:
            driver.outcome = exc
    return driver.result


async def call_tool_async(
    client: AsyncAdapterClient,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    context: ToolContext | None = None,
    allow_commands: bool = False,
) -> dict[str, Any]:
    """:func:`call_tool` on an ``AsyncAdapterClient``."""
    return await drive_async(client, _prepare(name, arguments, context, allow_commands))


async def drive_async(client: AsyncAdapterClient, plan: Plan) -> dict[str, Any]:
    """Run a tool's plan on an async client (arguments already validated)."""
    driver = _Driver(plan)
    while (call := driver.next_call()) is not None:
        driver.outcome = await _outcome_async(getattr(client, call[0]), call[1])
    return driver.result


async def _outcome_async(method: Any, args: tuple[Any, ...]) -> Any:
    """What an async client call answered, or the ``SignetError`` it raised."""
    try:
        return await method(*args)
    except SignetError as exc:
        return exc
