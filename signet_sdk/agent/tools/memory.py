"""The memory tools of :mod:`signet_sdk.tools` as runtime tools.

Name, description and input schema are read from the one definition each
memory tool has (:data:`signet_sdk.tools.TOOLS`); nothing about them is
restated here. A call runs the tool's plan on the session's own client:
``context.client`` when called sync, ``context.async_client`` when awaited.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from signet_sdk.agent.tools.base import CallContext, ToolFailure, invalid_arguments, turn_text
from signet_sdk.agent.types import ToolSpec
from signet_sdk.tools import call_tool
from signet_sdk.tools.runner import drive_async, parse_arguments
from signet_sdk.wire.errors import PayloadError, SignetError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from signet_sdk.tools import Tool as MemoryDefinition

__all__ = ["MemoryTool"]

#: The tools that can run before generation, and the field the turn's text fills.
#: Only the search reads; running any other memory tool on every turn would write.
_TURN_FIELD = {"memory_search": "query"}


class MemoryTool:
    """One memory tool (``memory_search``, ``memory_store`` ...) on the session's client."""

    __slots__ = (
        "_definition",
        "_run_before_generation",
        "_spec",
        "description",
        "input_schema",
        "name",
    )

    def __init__(
        self, definition: MemoryDefinition, *, run_before_generation: bool = False
    ) -> None:
        self._definition = definition
        self.name: str = definition.name
        self.description: str = definition.description
        self.input_schema: Mapping[str, Any] = definition.input_schema()
        self._spec = ToolSpec(self.name, self.description, self.input_schema)
        self._run_before_generation = run_before_generation

    # ``run_before_generation`` is read-only: the registry's research set was
    # decided when the tool was made.
    @property
    def run_before_generation(self) -> bool:
        return self._run_before_generation

    def spec(self) -> ToolSpec:
        return self._spec

    def __repr__(self) -> str:
        return f"MemoryTool({self.name!r})"

    def _parse(self, input: Mapping[str, Any]) -> BaseModel:
        try:
            return parse_arguments(self._definition, input)
        except PayloadError as exc:
            raise ToolFailure(invalid_arguments(self.name, exc)) from None

    def execute(self, input: Mapping[str, Any], context: CallContext) -> Any:
        """Run on ``context.client``; the daemon's answer becomes the tool's JSON result."""
        client = context.client
        if client is None:
            raise ToolFailure(
                f"{self.name} cannot run: this session has no sync AdapterClient "
                "(CallContext.client is None)"
            )
        self._parse(input)  # an invalid argument is told apart from a daemon error
        try:
            return call_tool(
                client,
                self.name,
                input,
                context=context.tool_context(),
                allow_commands=self._definition.runs_commands,
            )
        except SignetError as exc:
            raise ToolFailure(f"{self.name} failed: {exc}") from None

    async def aexecute(self, input: Mapping[str, Any], context: CallContext) -> Any:
        """Run on ``context.async_client``: the same plan, so the same result as ``execute``."""
        client = context.async_client
        if client is None:
            raise ToolFailure(
                f"{self.name} cannot run: this session has no AsyncAdapterClient "
                "(CallContext.async_client is None)"
            )
        arguments = self._parse(input)
        try:
            return await drive_async(
                client, self._definition.plan(arguments, context.tool_context())
            )
        except SignetError as exc:
            raise ToolFailure(f"{self.name} failed: {exc}") from None

    def research_input(self, text: str) -> Mapping[str, Any] | None:
        """``memory_search``: ``{"query": <the turn, cut to the query's max length>}``."""
        field = _TURN_FIELD.get(self.name)
        if field is None:
            return None
        value = turn_text(text, self._definition.input_model.model_fields[field])
        return None if value is None else {field: value}
