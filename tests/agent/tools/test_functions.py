"""``@tool``: the schema a function's signature gives, and calling it sync and awaited."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Annotated, Literal

import pytest
from pydantic import Field

from signet_sdk.agent.tools import CallContext, FunctionTool, ToolFailure, ToolRegistry, tool
from signet_sdk.agent.types import ToolCall, ToolResult, ToolSpec


@tool
def forecast(
    city: Annotated[str, Field(description="The city, e.g. 'Oslo'.", max_length=80)],
    days: int = 3,
    units: Literal["metric", "imperial"] = "metric",
) -> str:
    """Tell the weather for the next days.

    This second paragraph is for people reading the code, not for the model.
    """
    return f"{city}: sunny for {days} days ({units})"


@tool(name="tag_memories", description="Tag memories by id.")
async def tag(context: CallContext, ids: list[str], tag: str | None = None) -> dict[str, object]:
    return {"ids": ids, "tag": tag, "session": context.session_key}


@tool
def now() -> str:
    """Say what time it is."""
    return "12:00"


def test_schema_from_a_signature_with_descriptions_defaults_and_choices() -> None:
    assert forecast.spec() == ToolSpec(
        "forecast", "Tell the weather for the next days.", forecast.input_schema
    )
    assert json.dumps(forecast.input_schema) == (
        '{"additionalProperties": false, "properties": {"city": {"description": "The city, '
        'e.g. \'Oslo\'.", "maxLength": 80, "type": "string"}, "days": {"default": 3, '
        '"type": "integer"}, "units": {"default": "metric", "enum": ["metric", "imperial"], '
        '"type": "string"}}, "required": ["city"], "type": "object"}'
    )


def test_the_context_parameter_is_not_in_the_schema() -> None:
    assert tag.name == "tag_memories" and tag.description == "Tag memories by id."
    assert tag.input_schema == {
        "additionalProperties": False,
        "properties": {
            "ids": {"items": {"type": "string"}, "type": "array"},
            "tag": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
        "required": ["ids"],
        "type": "object",
    }
    assert now.input_schema == {"additionalProperties": False, "properties": {}, "type": "object"}


def test_parameters_named_like_pydantic_attributes_keep_their_names() -> None:
    @tool
    def describe(schema: str, model_name: str = "default", json: bool = False) -> str:
        """Describe a schema."""
        return f"{schema}/{model_name}/{json}"

    assert describe.input_schema == {
        "additionalProperties": False,
        "properties": {
            "schema": {"type": "string"},
            "model_name": {"default": "default", "type": "string"},
            "json": {"default": False, "type": "boolean"},
        },
        "required": ["schema"],
        "type": "object",
    }
    result = ToolRegistry([describe], memory=False).run(
        ToolCall("c1", "describe", {"schema": "s", "json": True}), CallContext()
    )
    assert result == ToolResult("c1", "describe", "s/default/True")


def test_the_function_gets_the_call_context_itself() -> None:
    seen: list[CallContext] = []

    @tool
    def who(query: str, context: CallContext) -> str:
        """Say who calls."""
        seen.append(context)
        return f"{query} for {context.agent_id} in {context.project}"

    context = CallContext("s-9", "/srv/atlas", "ops")
    result = ToolRegistry([who], memory=False).run(ToolCall("c1", "who", {"query": "hi"}), context)
    assert result == ToolResult("c1", "who", "hi for ops in /srv/atlas")
    assert seen == [context] and seen[0] is context


def test_arguments_are_validated_before_the_function_runs() -> None:
    calls: list[int] = []

    @tool
    def count(n: Annotated[int, Field(ge=1)]) -> int:
        """Count to n."""
        calls.append(n)
        return n

    registry = ToolRegistry([count], memory=False)
    assert registry.run(ToolCall("c1", "count", {"n": 0}), CallContext()) == ToolResult(
        "c1",
        "count",
        "invalid arguments for count: n: Input should be greater than or equal to 1",
        is_error=True,
    )
    assert registry.run(ToolCall("c2", "count", {"n": 2, "m": 1}), CallContext()) == ToolResult(
        "c2", "count", "invalid arguments for count: m: Extra inputs are not permitted", True
    )
    assert calls == []
    assert registry.run(ToolCall("c3", "count", {"n": 2}), CallContext()) == ToolResult(
        "c3", "count", "2"
    )
    assert calls == [2]


@pytest.mark.anyio
async def test_sync_and_async_functions_serve_both_kinds_of_session() -> None:
    registry = ToolRegistry([forecast, tag], memory=False)
    context = CallContext(session_key="s-1")
    calls = [
        ToolCall("c1", "forecast", {"city": "Oslo", "days": 2}),
        ToolCall("c2", "tag_memories", {"ids": ["m1", "m2"], "tag": "deploy"}),
    ]
    expected = [
        ToolResult("c1", "forecast", "Oslo: sunny for 2 days (metric)"),
        ToolResult("c2", "tag_memories", '{"ids":["m1","m2"],"tag":"deploy","session":"s-1"}'),
    ]
    assert [registry.run(c, context) for c in calls] == expected  # async tag on its own loop
    assert [await registry.arun(c, context) for c in calls] == expected


@pytest.mark.anyio
async def test_a_sync_function_awaited_runs_off_the_event_loop() -> None:
    threads: list[int] = []

    @tool
    def blocking(text: str) -> str:
        """Blocks its thread."""
        threads.append(threading.get_ident())
        return text

    assert await blocking.aexecute({"text": "x"}, CallContext()) == "x"
    assert threads and threads[0] != threading.get_ident()


def test_an_async_function_called_sync_from_a_thread_with_no_loop() -> None:
    answers: list[object] = []
    worker = threading.Thread(
        target=lambda: answers.append(tag.execute({"ids": ["m1"]}, CallContext("s-2")))
    )
    worker.start()
    worker.join(10)
    assert answers == [{"ids": ["m1"], "tag": None, "session": "s-2"}]


@pytest.mark.anyio
async def test_an_async_function_called_sync_inside_a_running_loop() -> None:
    assert tag.execute({"ids": ["m1"]}, CallContext("s-3")) == {
        "ids": ["m1"],
        "tag": None,
        "session": "s-3",
    }


def test_a_decorated_function_can_still_be_called_directly() -> None:
    assert isinstance(forecast, FunctionTool)
    assert forecast("Bergen", days=1) == "Bergen: sunny for 1 days (metric)"
    assert forecast.__name__ == "forecast" and forecast.__wrapped__ is forecast.function
    assert forecast.__doc__ is not None and forecast.__doc__.startswith("Tell the weather")


def test_research_puts_the_turn_in_the_first_required_str_parameter() -> None:
    @tool(research=True)
    def lookup(
        limit: int = 3, *, topic: Annotated[str, Field(max_length=10)], fresh: bool = True
    ) -> str:
        """Look a topic up."""
        return topic

    assert lookup.run_before_generation and not forecast.run_before_generation
    assert lookup.research_input("  what about the weather  ") == {"topic": "what about"}
    assert lookup.research_input("   ") is None
    assert forecast.research_input("Oslo") is None


def test_signatures_that_cannot_be_tools_fail_at_decoration_naming_the_function() -> None:
    def undocumented(x: int) -> int:
        return x

    with pytest.raises(TypeError, match=r"@tool .*undocumented: no description; write a docstring"):
        tool(undocumented)
    assert tool(description="Returns x.")(undocumented).description == "Returns x."

    def untyped(x):  # type: ignore[no-untyped-def]
        """Untyped."""

    with pytest.raises(TypeError, match=r"untyped: parameter 'x' needs a type annotation"):
        tool(untyped)

    def variadic(*names: str) -> None:
        """Variadic."""

    with pytest.raises(TypeError, match=r"variadic: \*names has no schema"):
        tool(variadic)

    def two_required(topic: str, limit: int) -> None:
        """Two required."""

    with pytest.raises(TypeError, match=r"two_required: research=True .* 'limit' is required"):
        tool(research=True)(two_required)

    def no_text(limit: int = 3) -> None:
        """No text."""

    with pytest.raises(TypeError, match=r"no_text: research=True needs a required str parameter"):
        tool(research=True)(no_text)

    with pytest.raises(ValueError, match=r"tool name 'weather\.now' is not accepted"):
        tool(name="weather.now")(no_text)

    with pytest.raises(TypeError, match="@tool takes a function, not int"):
        tool(3)  # type: ignore[call-overload]


def test_a_tool_failure_is_the_result_text_and_other_errors_name_their_type() -> None:
    @tool
    def strict(city: str) -> str:
        """Fails two ways."""
        if city == "Atlantis":
            raise ToolFailure("Atlantis is not on any map; ask for a real city")
        raise KeyError(city)

    registry = ToolRegistry([strict], memory=False)
    assert registry.run(ToolCall("c1", "strict", {"city": "Atlantis"}), CallContext()) == (
        ToolResult("c1", "strict", "Atlantis is not on any map; ask for a real city", True)
    )
    assert registry.run(ToolCall("c2", "strict", {"city": "Oslo"}), CallContext()) == (
        ToolResult("c2", "strict", "strict raised KeyError: 'Oslo'", True)
    )


@pytest.mark.anyio
async def test_cancelling_an_awaited_function_cancels_it() -> None:
    started = asyncio.Event()

    @tool
    async def waits(seconds: float) -> str:
        """Waits."""
        started.set()
        await asyncio.sleep(seconds)
        return "done"

    task = asyncio.create_task(
        ToolRegistry([waits], memory=False).arun(
            ToolCall("c1", "waits", {"seconds": 30}), CallContext()
        )
    )
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
