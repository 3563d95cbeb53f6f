"""Research before generation: every research tool at once, within one deadline."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from signet_sdk import AdapterClient, AsyncAdapterClient, RememberParams
from signet_sdk.agent.tools import CallContext, FunctionTool, SkippedTool, ToolRegistry, tool
from signet_sdk.agent.types import ToolCall, ToolResult
from signet_sdk.testing.mock_daemon import MockDaemon

#: How long a test tool waits for its partner before giving up: only reached on a bug.
PATIENCE = 10.0


@pytest.fixture
def stored_daemon(stored_daemon: tuple[MockDaemon, str]) -> tuple[MockDaemon, str]:
    """The daemon with one memory for the research tools to find."""
    with AdapterClient("seed", stored_daemon[1]) as seed:
        seed.remember(RememberParams(content="Billing deploys blue-green on Tuesdays"))
    return stored_daemon


def test_research_is_off_by_default_and_memory_search_can_be_named() -> None:
    assert ToolRegistry().research_tools() == []
    registry = ToolRegistry(research=["memory_search"])
    assert [t.name for t in registry.research_tools()] == ["memory_search"]
    search = registry.get("memory_search")
    assert search is not None
    assert search.research_input("  what did we decide about deploys?\n") == {
        "query": "what did we decide about deploys?"
    }
    assert search.research_input(" \n ") is None
    long_turn = "deploys " + "x" * 3000
    query = search.research_input(long_turn)
    assert query is not None and len(query["query"]) == 2000  # MemorySearchInput's max_length
    assert long_turn.startswith(query["query"])
    store = registry.get("memory_store")
    assert store is not None and store.research_input("remember this") is None


def test_memory_search_runs_before_generation_on_the_turn(
    client: AdapterClient, stored_daemon: tuple[MockDaemon, str]
) -> None:
    registry = ToolRegistry(research=["memory_search"])
    context = CallContext("s-1", "/srv/atlas", "default", client=client)
    results = registry.run_research("  billing deploys  ", context, deadline=PATIENCE)
    assert results.calls == (
        ToolCall("research_memory_search", "memory_search", {"query": "billing deploys"}),
    )
    (result,) = results
    assert result == registry.run(results.calls[0], context)
    assert json.loads(result.content)["results"][0]["content"] == (
        "Billing deploys blue-green on Tuesdays"
    )
    assert results.skipped == ()
    recall = stored_daemon[0].requests_to("/api/memory/recall")[0]
    assert recall.json == {"query": "billing deploys", "limit": 10, "agentId": "default"}


@pytest.mark.anyio
async def test_awaited_research_gives_the_same_results(
    client: AdapterClient, async_client: AsyncAdapterClient
) -> None:
    registry = ToolRegistry(research=["memory_search"])
    sync_results = registry.run_research("billing deploys", CallContext(client=client), PATIENCE)
    async_results = await registry.arun_research(
        "billing deploys", CallContext(async_client=async_client), PATIENCE
    )
    assert async_results == sync_results and len(async_results) == 1
    assert async_results.calls == sync_results.calls


def _meeting_tools() -> tuple[FunctionTool, FunctionTool]:
    """Two research tools that only answer once both are running at the same time."""
    barrier = threading.Barrier(2, timeout=PATIENCE)

    @tool(research=True)
    def first(topic: str) -> str:
        """Looks one thing up."""
        barrier.wait()
        return f"first on {topic}"

    @tool(research=True)
    def second(topic: str) -> str:
        """Looks another thing up."""
        barrier.wait()
        return f"second on {topic}"

    return first, second


def test_research_tools_run_at_the_same_time() -> None:
    # Run one after the other, the first would wait for the second until the
    # barrier broke, fail, and be left out.
    registry = ToolRegistry(_meeting_tools(), memory=False)
    results = registry.run_research("deploys", CallContext(), deadline=PATIENCE)
    assert results == [
        ToolResult("research_first", "first", "first on deploys"),
        ToolResult("research_second", "second", "second on deploys"),
    ]
    assert results.skipped == ()


@pytest.mark.anyio
async def test_awaited_research_tools_run_at_the_same_time() -> None:
    arrived = {"first": asyncio.Event(), "second": asyncio.Event()}

    async def meet(me: str, other: str) -> str:
        arrived[me].set()
        await asyncio.wait_for(arrived[other].wait(), PATIENCE)
        return f"{me} met {other}"

    @tool(research=True)
    async def first(topic: str) -> str:
        """Looks one thing up."""
        return await meet("first", "second")

    @tool(research=True)
    async def second(topic: str) -> str:
        """Looks another thing up."""
        return await meet("second", "first")

    results = await ToolRegistry([second, first], memory=False).arun_research(
        "deploys", CallContext(), deadline=PATIENCE
    )
    assert [r.content for r in results] == ["first met second", "second met first"]


def test_a_late_or_failing_research_tool_is_left_out_with_a_reason() -> None:
    release = threading.Event()

    @tool(research=True)
    def slow(topic: str) -> str:
        """Never answers in time."""
        release.wait(PATIENCE)
        return "too late"

    @tool(research=True)
    def failing(topic: str) -> str:
        """Breaks."""
        raise RuntimeError("index is rebuilding")

    @tool(research=True)
    def quick(topic: str) -> str:
        """Answers at once."""
        return f"quick on {topic}"

    @tool
    def unasked(topic: str) -> str:
        """Not a research tool: never runs before generation."""
        raise AssertionError("ran before generation")

    registry = ToolRegistry([slow, failing, quick, unasked], memory=False)
    try:
        results = registry.run_research("deploys", CallContext(), deadline=0.3)
        # The call came back while ``slow`` was still blocked: it did not wait for it.
        assert not release.is_set()
    finally:
        release.set()
    assert results == [ToolResult("research_quick", "quick", "quick on deploys")]
    assert results.calls == (ToolCall("research_quick", "quick", {"topic": "deploys"}),)
    assert results.skipped == (
        SkippedTool("failing", "failing raised RuntimeError: index is rebuilding"),
        SkippedTool("slow", "no answer within 0.3s"),
    )


@pytest.mark.anyio
async def test_a_late_awaited_research_tool_is_cancelled_and_left_out() -> None:
    cancelled = asyncio.Event()

    @tool(research=True)
    async def slow(topic: str) -> str:
        """Never answers in time."""
        try:
            await asyncio.sleep(PATIENCE)
        finally:
            cancelled.set()
        return "too late"

    @tool(research=True)
    async def quick(topic: str) -> str:
        """Answers at once."""
        return f"quick on {topic}"

    results = await ToolRegistry([slow, quick], memory=False).arun_research(
        "deploys", CallContext(), deadline=0.3, id_prefix="turn3"
    )
    assert results == [ToolResult("turn3_quick", "quick", "quick on deploys")]
    assert results.skipped == (SkippedTool("slow", "no answer within 0.3s"),)
    await asyncio.wait_for(cancelled.wait(), PATIENCE)


def test_no_research_tools_means_no_work_and_a_bad_deadline_is_refused() -> None:
    registry = ToolRegistry(memory=False)
    assert registry.run_research("anything", CallContext(), 1.0) == []
    for deadline in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="deadline: a positive number of seconds"):
            registry.run_research("anything", CallContext(), deadline)


def test_a_blank_turn_runs_no_research() -> None:
    @tool(research=True)
    def lookup(topic: str) -> str:
        """Looks up."""
        raise AssertionError("ran on a blank turn")

    results = ToolRegistry([lookup], memory=False).run_research("   ", CallContext(), 1.0)
    assert results == [] and results.calls == () and results.skipped == ()
