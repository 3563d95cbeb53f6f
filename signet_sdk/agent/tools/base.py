"""What every tool is: the :class:`Tool` protocol, the :class:`CallContext` it runs with.

A tool is anything with a name, a description, a JSON Schema for its input
and two ways to run (``execute`` for sync sessions, ``aexecute`` for async
ones). The registry never asks what kind of tool it holds: memory tools,
decorated functions and MCP tools all answer to these members alone.

A tool that fails in a way the model should read verbatim raises
:class:`ToolFailure`; any other exception is reported by the registry as
``"<name> raised <Type>: <message>"``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ValidationError

from signet_sdk.tools import ToolContext

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

    from signet_sdk.agent.types import ToolSpec
    from signet_sdk.client.async_client import AsyncAdapterClient
    from signet_sdk.client.sync_client import AdapterClient
    from signet_sdk.wire.errors import PayloadError

__all__ = [
    "CallContext",
    "Tool",
    "ToolFailure",
    "check_tool_name",
    "invalid_arguments",
    "turn_text",
    "validate_input",
]

#: What Anthropic and OpenAI both accept as a tool name.
_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True, slots=True)
class CallContext:
    """What one tool call runs with: who calls (session, project, agent) and the session's client.

    A sync session sets ``client``, an async one ``async_client``; a memory
    tool runs on the one that matches how it is called, so one registry
    serves both kinds of session.
    """

    session_key: str | None = None
    project: str | None = None
    agent_id: str | None = None
    client: AdapterClient | None = None
    async_client: AsyncAdapterClient | None = None

    def tool_context(self) -> ToolContext:
        """The memory tools' view of the caller (the daemon scopes what they store and find)."""
        return ToolContext(self.session_key, self.project, self.agent_id)


@runtime_checkable
class Tool(Protocol):
    """One tool a model can call.

    ``execute`` and ``aexecute`` give the same result for the same input
    (a structured result is rendered as JSON by the registry, a ``str`` is
    passed on as is). ``research_input`` is the input the tool runs with
    before generation, built from the user's turn text, or None when the
    tool has no such use; it only matters for tools the registry runs
    before generation (``run_before_generation`` or named in ``research``).
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def input_schema(self) -> Mapping[str, Any]: ...

    @property
    def run_before_generation(self) -> bool: ...

    def spec(self) -> ToolSpec: ...

    def execute(self, input: Mapping[str, Any], context: CallContext) -> Any: ...

    async def aexecute(self, input: Mapping[str, Any], context: CallContext) -> Any: ...

    def research_input(self, text: str) -> Mapping[str, Any] | None: ...


class ToolFailure(Exception):
    """A failed tool call whose message is written for the model; the result is that message.

    Raise it from ``execute``/``aexecute`` when the model can act on what
    went wrong (an argument to fix, a service that is down): the registry
    returns ``str(exc)`` as an ``is_error`` result, without a type name or
    a traceback in front of it.
    """


def check_tool_name(name: str) -> str:
    """``name`` if model APIs take it (1 to 64 letters, digits, ``_``, ``-``), else ValueError."""
    if not isinstance(name, str) or _TOOL_NAME.fullmatch(name) is None:
        raise ValueError(
            f"tool name {name!r} is not accepted by model APIs: use 1 to 64 letters, digits, "
            "'_' or '-'"
        )
    return name


def invalid_arguments(name: str, error: PayloadError) -> str:
    """The model's message for arguments that failed validation: the tool, the field, the rule.

    :func:`signet_sdk.tools.runner.parse_arguments` words its error as
    ``"<field>: <tool>: <rule>"``; the tool is put first here, where the
    model reads which call to redo.
    """
    rule = str(error).removeprefix(f"{error.field}: ").removeprefix(f"{name}: ")
    return f"invalid arguments for {name}: {error.field}: {rule}"


def validate_input(model: type[BaseModel], name: str, input: Mapping[str, Any]) -> BaseModel:
    """``input`` validated by ``model``; a :class:`ToolFailure` names the first bad field."""
    try:
        return model.model_validate(dict(input))
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "arguments"
        raise ToolFailure(f"invalid arguments for {name}: {field}: {first['msg']}") from None


def turn_text(text: str, field: FieldInfo) -> str | None:
    """The user's turn as the value of a string field: trimmed, cut to its ``max_length``.

    None for a blank turn: there is nothing to look up, and an empty query
    would only fail the field's own ``min_length``.
    """
    trimmed = text.strip()
    for rule in field.metadata:
        limit = getattr(rule, "max_length", None)
        if isinstance(limit, int):
            trimmed = trimmed[:limit].rstrip()
    return trimmed or None
