"""ToolRegistry: the specs a model is offered, and the exact result of every kind of call."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from signet_sdk import AdapterClient, AsyncAdapterClient, SignetError
from signet_sdk.agent.tools import (
    CallContext,
    MemoryTool,
    Tool,
    ToolFailure,
    ToolRegistry,
    render_content,
    tool,
)
from signet_sdk.agent.types import ToolCall, ToolResult, ToolSpec
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.tools import TOOLS

from ...daemon_support import only_memory_stored

MEMORY = sorted(n for n, t in TOOLS.items() if not t.runs_commands)


def _context(**clients: Any) -> CallContext:
    return CallContext(session_key="s-1", project="/srv/atlas", agent_id="default", **clients)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@tool
def echo(text: str) -> str:
    """Say the text back."""
    return text


@tool
def broken(city: str) -> str:
    """Always fails, as a buggy tool does."""
    raise ValueError(f"no forecast for {city}")


@tool
def refuses(city: str) -> str:
    """Fails with a message written for the model."""
    raise ToolFailure(f"{city} is not a city I know; try a capital")


@tool
def opaque() -> object:
    """Returns something that has no JSON form."""
    return object()


# -- the set of tools ----------------------------------------------------------


def test_memory_tools_are_the_shared_definitions_and_commands_need_consent() -> None:
    registry = ToolRegistry()
    assert registry.names == tuple(MEMORY)
    for spec in registry.specs():
        definition = TOOLS[spec.name]
        assert spec == ToolSpec(definition.name, definition.description, definition.input_schema())
    assert "secrets_exec" not in registry
    with_commands = ToolRegistry(allow_commands=True)
    assert "secrets_exec" in with_commands
    assert with_commands.names == tuple(sorted(TOOLS))
    assert ToolRegistry(memory=False).names == ()
    assert ToolRegistry(memory=["memory_store", "memory_search"]).names == (
        "memory_search",
        "memory_store",
    )


def test_bad_memory_and_research_names_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'secrets_exec' runs commands: it needs allow_commands"):
        ToolRegistry(memory=["secrets_exec"])
    with pytest.raises(ValueError, match="no memory tool 'memory_read'; memory tools: memory_"):
        ToolRegistry(memory=["memory_read"])
    with pytest.raises(TypeError, match="takes tool names, not one str: 'memory_search'"):
        ToolRegistry(memory="memory_search")
    with pytest.raises(ValueError, match=r"not registered: echo; tools: memory_search$"):
        ToolRegistry(memory=["memory_search"], research=["echo"])


def test_specs_are_sorted_and_the_same_tuple_until_a_tool_is_added() -> None:
    registry = ToolRegistry([refuses, echo], memory=["memory_search"])
    first = registry.specs()
    assert [s.name for s in first] == ["echo", "memory_search", "refuses"]
    assert registry.specs() is first
    assert [t.name for t in registry] == ["echo", "memory_search", "refuses"]
    assert len(registry) == 3 and "echo" in registry and "nope" not in registry
    assert registry.get("echo") is echo and registry.get("nope") is None

    registry.add(broken)
    second = registry.specs()
    assert second is not first
    assert [s.name for s in second] == ["broken", "echo", "memory_search", "refuses"]
    assert second[0] == ToolSpec("broken", broken.description, broken.input_schema)
    assert registry.specs() is second


def test_add_refuses_a_taken_name_a_bad_name_and_a_non_tool() -> None:
    registry = ToolRegistry([echo], memory=False)
    with pytest.raises(ValueError, match="a tool named 'echo' is already registered"):
        registry.add(echo)
    with pytest.raises(ValueError, match="a tool named 'memory_search' is already registered"):
        ToolRegistry([tool(name="memory_search")(echo.function)])
    with pytest.raises(ValueError, match="tool name 'two words' is not accepted by model APIs"):
        registry.add(tool(name="two words")(echo.function))
    with pytest.raises(TypeError, match="is not a Tool: it needs name, description"):
        registry.add(object())  # type: ignore[arg-type]
    assert registry.names == ("echo",)


def test_every_kind_of_tool_is_a_tool() -> None:
    assert isinstance(echo, Tool)
    assert isinstance(MemoryTool(TOOLS["memory_get"]), Tool)


# -- one call: success and every failure -----------------------------------------


def test_memory_store_result_is_the_daemon_answer_as_compact_json(
    client: AdapterClient, stored_daemon: tuple[MockDaemon, str]
) -> None:
    mock = stored_daemon[0]
    registry = ToolRegistry()
    call = ToolCall("c1", "memory_store", {"content": "Café staging runs on pg-staging-2"})
    result = registry.run(call, _context(client=client))
    body = {"content": call.arguments["content"], "project": "/srv/atlas", "agentId": "default"}
    memory_id = only_memory_stored(mock, body)
    assert result == ToolResult(
        "c1", "memory_store", f'{{"status":"saved","id":"{memory_id}","dedup_outcome":"new"}}'
    )
    assert client.get_memory(memory_id).content == "Café staging runs on pg-staging-2"


def test_a_plain_string_result_is_passed_on_as_is() -> None:
    registry = ToolRegistry([echo], memory=False)
    result = registry.run(ToolCall("c1", "echo", {"text": '{"not": "re-encoded"}'}), _context())
    assert result == ToolResult("c1", "echo", '{"not": "re-encoded"}')


def _failing_calls() -> list[tuple[ToolCall, str]]:
    return [
        (
            ToolCall("u1", "memory_serch", {"query": "x"}),
            "unknown tool 'memory_serch'; the tools are: broken, echo, memory_get, "
            "memory_search, memory_store, opaque, refuses",
        ),
        (
            ToolCall("v1", "memory_store", {"content": ""}),
            "invalid arguments for memory_store: content: String should have at least 1 character",
        ),
        (
            ToolCall("v2", "memory_store", {"content": "x", "colour": "red"}),
            "invalid arguments for memory_store: colour: Extra inputs are not permitted",
        ),
        (
            ToolCall("v3", "echo", {}),
            "invalid arguments for echo: text: Field required",
        ),
        (
            ToolCall(
                "j1",
                "memory_search",
                raw_arguments='{"query": "deploys',
                error="Unterminated string starting at: line 1 column 11 (char 10)",
            ),
            "the arguments for memory_search were not a JSON object (Unterminated string "
            "starting at: line 1 column 11 (char 10)); call memory_search again with its "
            "arguments as one JSON object",
        ),
        (
            ToolCall("d1", "secrets_exec", {"command": "env", "secrets": {"A": "b"}}),
            "secrets_exec is disabled: it runs commands, and this session does not allow that",
        ),
        (
            ToolCall("d2", "memory_forget", {"id": "m1", "reason": "old"}),
            "memory_forget is disabled in this session; the tools are: broken, echo, memory_get, "
            "memory_search, memory_store, opaque, refuses",
        ),
        (
            ToolCall("e1", "broken", {"city": "Oslo"}),
            "broken raised ValueError: no forecast for Oslo",
        ),
        (
            ToolCall("e2", "refuses", {"city": "Atlantis"}),
            "Atlantis is not a city I know; try a capital",
        ),
        (
            ToolCall("e3", "opaque", {}),
            "opaque returned a result that is not JSON: object is not JSON serializable",
        ),
    ]


def _failing_registry() -> ToolRegistry:
    return ToolRegistry(
        [echo, broken, refuses, opaque], memory=["memory_get", "memory_search", "memory_store"]
    )


def _expected(call: ToolCall, text: str) -> ToolResult:
    return ToolResult(call.id, call.name, text, is_error=True)


def test_every_failure_is_an_error_result_the_model_can_act_on(client: AdapterClient) -> None:
    registry = _failing_registry()
    for call, text in _failing_calls():
        assert registry.run(call, _context(client=client)) == _expected(call, text)


@pytest.mark.anyio
async def test_awaited_failures_are_the_same_results(async_client: AsyncAdapterClient) -> None:
    registry = _failing_registry()
    for call, text in _failing_calls():
        assert await registry.arun(call, _context(async_client=async_client)) == _expected(
            call, text
        )


def test_unparsable_arguments_are_never_echoed_at_length() -> None:
    registry = ToolRegistry(memory=["memory_search"])
    flood = "Expecting ',' delimiter: " + "x" * 5000
    result = registry.run(ToolCall("j2", "memory_search", error=flood), _context())
    assert result.is_error
    assert len(result.content) < 400
    assert "x" * 160 in result.content and "x" * 200 not in result.content


#: What the model reads for an id the daemon does not know (the client says 404).
MISSING = (
    "memory_get failed: id: memory_get: no memory with id 'no-such-memory' "
    "(never stored, or forgotten)"
)


def test_a_daemon_error_names_the_tool_and_the_argument(client: AdapterClient) -> None:
    with pytest.raises(SignetError):
        client.get_memory("no-such-memory")  # the client's own words: a 404
    result = ToolRegistry().run(
        ToolCall("g1", "memory_get", {"id": "no-such-memory"}), _context(client=client)
    )
    assert result == _expected(ToolCall("g1", "memory_get"), MISSING)


@pytest.mark.anyio
async def test_a_daemon_error_awaited_is_the_same(async_client: AsyncAdapterClient) -> None:
    with pytest.raises(SignetError):
        await async_client.get_memory("no-such-memory")
    result = await ToolRegistry().arun(
        ToolCall("g1", "memory_get", {"id": "no-such-memory"}), _context(async_client=async_client)
    )
    assert result == _expected(ToolCall("g1", "memory_get"), MISSING)


@pytest.mark.anyio
async def test_a_missing_client_is_a_clear_error_result() -> None:
    registry = ToolRegistry()
    call = ToolCall("m1", "memory_search", {"query": "deploys"})
    assert registry.run(call, _context()) == _expected(
        call,
        "memory_search cannot run: this session has no sync AdapterClient "
        "(CallContext.client is None)",
    )
    assert await registry.arun(call, _context()) == _expected(
        call,
        "memory_search cannot run: this session has no AsyncAdapterClient "
        "(CallContext.async_client is None)",
    )


@pytest.mark.anyio
async def test_sync_and_async_memory_calls_give_identical_results(
    client: AdapterClient, async_client: AsyncAdapterClient
) -> None:
    registry = ToolRegistry()
    stored = registry.run(
        ToolCall("s1", "memory_store", {"content": "Billing deploys blue-green on Tuesdays"}),
        _context(client=client),
    )
    memory_id = json.loads(stored.content)["id"]
    again = await registry.arun(
        ToolCall("s1", "memory_store", {"content": "Billing deploys blue-green on Tuesdays"}),
        _context(async_client=async_client),
    )
    assert again == ToolResult(
        "s1",
        "memory_store",
        _json({"status": "saved", "id": memory_id, "dedup_outcome": "duplicate_skip"}),
    )
    for call in (
        ToolCall("q1", "memory_search", {"query": "billing deploys", "limit": 3}),
        ToolCall("q2", "memory_get", {"id": memory_id}),
    ):
        sync_result = registry.run(call, _context(client=client))
        async_result = await registry.arun(call, _context(async_client=async_client))
        assert sync_result == async_result
        assert not sync_result.is_error
        assert sync_result.content == _json(json.loads(sync_result.content))
    found = json.loads(
        registry.run(
            ToolCall("q1", "memory_search", {"query": "billing deploys"}), _context(client=client)
        ).content
    )
    assert [hit["id"] for hit in found["results"]] == [memory_id]


class _Interrupting:
    """A tool whose run ends in the BaseException it was made with."""

    name = "halt"
    description = "Stops everything."
    input_schema: dict[str, Any] = {"type": "object"}
    run_before_generation = False

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.input_schema)

    def execute(self, input: Any, context: CallContext) -> Any:
        raise self.exc

    async def aexecute(self, input: Any, context: CallContext) -> Any:
        raise self.exc

    def research_input(self, text: str) -> None:
        return None


@pytest.mark.anyio
@pytest.mark.parametrize("exc", [KeyboardInterrupt(), SystemExit(3), asyncio.CancelledError()])
async def test_interrupts_and_cancellation_are_never_swallowed(exc: BaseException) -> None:
    registry = ToolRegistry([_Interrupting(exc)], memory=False)
    call = ToolCall("h1", "halt")
    with pytest.raises(type(exc)):
        registry.run(call, _context())
    with pytest.raises(type(exc)):
        await registry.arun(call, _context())


def test_render_content_is_compact_deterministic_json() -> None:
    assert render_content("as is") == "as is"
    assert render_content({"b": [1, 2.5, None], "a": "é"}) == '{"b":[1,2.5,null],"a":"é"}'
    assert render_content({"tags": frozenset({"z", "a"})}) == '{"tags":["a","z"]}'
    assert render_content(ToolSpec("n", "d", {"type": "object"})) == (
        '{"name":"n","description":"d","input_schema":{"type":"object"}}'
    )
