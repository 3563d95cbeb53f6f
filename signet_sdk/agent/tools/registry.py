"""The tools of a session: what the model is offered, and running its calls.

``ToolRegistry.run`` never raises for a tool's failure: an unknown tool,
arguments that are not JSON or do not validate, a disabled tool, a daemon
error and any exception a tool raises all come back as an ``is_error``
:class:`~signet_sdk.agent.types.ToolResult` whose text tells the model what
to do next. Only ``KeyboardInterrupt``, ``SystemExit`` and task
cancellation pass through: they stop the session, not the call.

Research tools run before generation, on the user's turn text, all at once
within one deadline (see :meth:`ToolRegistry.run_research`).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import math
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, wait
from typing import Any

from signet_sdk.agent.tools.base import CallContext, Tool, ToolFailure, check_tool_name
from signet_sdk.agent.tools.memory import MemoryTool
from signet_sdk.agent.tools.results import ResearchResults, SkippedTool, render_content
from signet_sdk.agent.types import ToolCall, ToolResult, ToolSpec
from signet_sdk.tools import TOOLS, enabled_tools

__all__ = ["ToolRegistry"]

log = logging.getLogger("signet_sdk.agent.tools")

#: Longest part of a model's unparsable arguments (or a skip reason) quoted back.
_QUOTE_CHARS = 200


def _quote(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _QUOTE_CHARS else line[: _QUOTE_CHARS - 3] + "..."


def _names(value: bool | Iterable[str], what: str) -> list[str] | None:
    if isinstance(value, str):
        raise TypeError(f"ToolRegistry({what}=...) takes tool names, not one str: {value!r}")
    return None if isinstance(value, bool) else list(value)


def _memory_tools(
    memory: bool | Iterable[str], research: frozenset[str], allow_commands: bool
) -> list[MemoryTool]:
    offered = {d.name: d for d in enabled_tools(allow_commands=allow_commands)}
    wanted = _names(memory, "memory")
    if wanted is None:
        wanted = list(offered) if memory else []
    for name in wanted:
        if name in offered:
            continue
        if name in TOOLS:
            raise ValueError(f"memory tool {name!r} runs commands: it needs allow_commands=True")
        raise ValueError(f"no memory tool {name!r}; memory tools: {', '.join(TOOLS)}")
    return [MemoryTool(offered[n], run_before_generation=n in research) for n in wanted]


class ToolRegistry:
    """The tools one session offers, by name.

    ``memory`` picks the memory tools of :mod:`signet_sdk.tools`: all of
    them (``True``), none, or those named; ``secrets_exec`` runs commands
    and is only there with ``allow_commands=True``. ``research`` names the
    tools run before generation on every turn, besides tools that ask for
    it themselves (``run_before_generation``).

    ``research`` is empty by default: the daemon's prompt-submit hook
    already recalls memories for each user turn and the session puts them
    in the prompt, so a ``memory_search`` before every generation would
    fetch the same memories twice, each turn, in daemon time and prompt
    tokens. ``memory_search`` stays a tool the model calls when that recall
    is not enough; ``research=("memory_search",)`` restores the eager search
    for a daemon or hook set-up without prompt recall.

    Tools are kept in name order (the order :meth:`specs` offers them and
    research results come in), so the prompt does not depend on the order
    tools were added in.
    """

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        memory: bool | Iterable[str] = True,
        research: Iterable[str] = (),
        allow_commands: bool = False,
    ) -> None:
        research_names = _names(research, "research") or []
        self._research = frozenset(research_names)
        self._allow_commands = allow_commands
        self._tools: dict[str, Tool] = {}
        self._ordered: tuple[Tool, ...] | None = None
        self._specs: tuple[ToolSpec, ...] | None = None
        self._lock = threading.Lock()
        for memory_tool in _memory_tools(memory, self._research, allow_commands):
            self.add(memory_tool)
        for tool in tools:
            self.add(tool)
        unknown = [n for n in research_names if n not in self._tools]
        if unknown:
            raise ValueError(
                f"research names tools that are not registered: {', '.join(unknown)}; "
                f"tools: {', '.join(self.names) or 'none'}"
            )

    # -- the set of tools ---------------------------------------------------

    def add(self, tool: Tool) -> None:
        """Offer one more tool; a name already taken is a ValueError naming it."""
        if not isinstance(tool, Tool):
            raise TypeError(
                f"{tool!r} is not a Tool: it needs name, description, input_schema, "
                "run_before_generation, spec, execute, aexecute and research_input"
            )
        name = check_tool_name(tool.name)
        with self._lock:
            if name in self._tools:
                raise ValueError(f"a tool named {name!r} is already registered")
            self._tools[name] = tool
            self._ordered = None
            self._specs = None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def _in_order(self) -> tuple[Tool, ...]:
        ordered = self._ordered
        if ordered is None:
            with self._lock:
                ordered = tuple(self._tools[n] for n in sorted(self._tools))
                self._ordered = ordered
        return ordered

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._in_order())

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self._in_order())

    def specs(self) -> tuple[ToolSpec, ...]:
        """What the model is offered, by name; the same tuple until a tool is added.

        Made once, so every request of a session carries the same tool
        definitions, byte for byte, and the provider's prompt cache holds.
        """
        specs = self._specs
        if specs is None:
            specs = tuple(tool.spec() for tool in self._in_order())
            with self._lock:
                self._specs = specs
        return specs

    def research_tools(self) -> list[Tool]:
        """The tools run before generation, in registry order."""
        return [t for t in self._in_order() if t.run_before_generation or t.name in self._research]

    # -- one call -----------------------------------------------------------

    def _refusal(self, call: ToolCall) -> ToolResult | Tool:
        """The tool to run, or the error result that answers the call instead."""
        tool = self._tools.get(call.name)
        if tool is None:
            return _error(call, self._not_offered(call.name))
        if call.error is not None:
            return _error(
                call,
                f"the arguments for {call.name} were not a JSON object ({_quote(call.error)}); "
                f"call {call.name} again with its arguments as one JSON object",
            )
        return tool

    def _not_offered(self, name: str) -> str:
        known = ", ".join(self.names) or "none"
        definition = TOOLS.get(name)
        if definition is None:
            return f"unknown tool {name!r}; the tools are: {known}"
        if definition.runs_commands and not self._allow_commands:
            return f"{name} is disabled: it runs commands, and this session does not allow that"
        return f"{name} is disabled in this session; the tools are: {known}"

    def run(self, call: ToolCall, context: CallContext) -> ToolResult:
        """Run one call in this thread; every failure of the tool is an ``is_error`` result."""
        found = self._refusal(call)
        if isinstance(found, ToolResult):
            return found
        try:
            value = found.execute(call.arguments, context)
        except Exception as exc:
            return _failure(call, exc)
        return _answer(call, value)

    async def arun(self, call: ToolCall, context: CallContext) -> ToolResult:
        """:meth:`run`, awaited: the same result for the same call."""
        found = self._refusal(call)
        if isinstance(found, ToolResult):
            return found
        try:
            value = await found.aexecute(call.arguments, context)
        except Exception as exc:
            return _failure(call, exc)
        return _answer(call, value)

    # -- research before generation ------------------------------------------

    def _research_calls(
        self, text: str, id_prefix: str
    ) -> tuple[list[ToolCall], list[SkippedTool]]:
        calls: list[ToolCall] = []
        skipped: list[SkippedTool] = []
        for tool in self.research_tools():
            try:
                arguments = tool.research_input(text)
            except Exception as exc:
                skipped.append(SkippedTool(tool.name, _quote(f"no input from the turn: {exc}")))
                continue
            if arguments is not None:
                calls.append(ToolCall(f"{id_prefix}_{tool.name}", tool.name, dict(arguments)))
        return calls, skipped

    def run_research(
        self, text: str, context: CallContext, deadline: float, *, id_prefix: str = "research"
    ) -> ResearchResults:
        """Run every research tool on the turn ``text`` at once, each in its own thread.

        The phase takes as long as its slowest tool, and never more than
        ``deadline`` seconds: a tool still running then is left behind (its
        daemon thread ends on its own; nothing waits for it). Results of
        tools that failed or were late are left out and listed in
        ``skipped``. A tool whose ``research_input`` is None for this text
        does not run. Call ids are ``"<id_prefix>_<tool name>"``.
        """
        _check_deadline(deadline)
        calls, skipped = self._research_calls(text, id_prefix)
        futures: list[Future[ToolResult]] = []
        for call in calls:
            future: Future[ToolResult] = Future()
            worker = threading.Thread(
                target=_fill,
                args=(future, contextvars.copy_context(), self.run, call, context),
                name=f"research {call.name}",
                daemon=True,
            )
            worker.start()
            futures.append(future)
        if futures:
            wait(futures, timeout=deadline)
        late = [not f.done() for f in futures]
        return _collect(
            calls,
            [None if gone else f.result() for f, gone in zip(futures, late, strict=True)],
            deadline,
            skipped,
        )

    async def arun_research(
        self, text: str, context: CallContext, deadline: float, *, id_prefix: str = "research"
    ) -> ResearchResults:
        """:meth:`run_research` as tasks on the running loop; late tasks are cancelled."""
        _check_deadline(deadline)
        calls, skipped = self._research_calls(text, id_prefix)
        tasks = [
            asyncio.create_task(self.arun(call, context), name=f"research {call.name}")
            for call in calls
        ]
        try:
            if tasks:
                await asyncio.wait(tasks, timeout=deadline)
        finally:
            late = [not t.done() for t in tasks]
            for task, gone in zip(tasks, late, strict=True):
                if gone:
                    task.cancel()
        return _collect(
            calls,
            [None if gone else t.result() for t, gone in zip(tasks, late, strict=True)],
            deadline,
            skipped,
        )


def _check_deadline(deadline: float) -> None:
    if not (isinstance(deadline, int | float) and deadline > 0 and math.isfinite(deadline)):
        raise ValueError(f"deadline: a positive number of seconds is needed, got {deadline!r}")


def _fill(
    future: Future[ToolResult],
    context: contextvars.Context,
    run: Callable[[ToolCall, CallContext], ToolResult],
    call: ToolCall,
    call_context: CallContext,
) -> None:
    """A research thread's body: the result, or what stopped it, handed to the waiting caller."""
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(context.run(run, call, call_context))
    except BaseException as exc:  # re-raised by the caller's future.result()
        future.set_exception(exc)


def _collect(
    calls: list[ToolCall],
    results: list[ToolResult | None],
    deadline: float,
    skipped: list[SkippedTool],
) -> ResearchResults:
    kept: list[ToolResult] = []
    kept_calls: list[ToolCall] = []
    for call, result in zip(calls, results, strict=True):
        if result is None:
            skipped.append(SkippedTool(call.name, f"no answer within {deadline:g}s"))
        elif result.is_error:
            skipped.append(SkippedTool(call.name, _quote(result.content)))
        else:
            kept.append(result)
            kept_calls.append(call)
    return ResearchResults(kept, kept_calls, skipped)


def _error(call: ToolCall, text: str) -> ToolResult:
    return ToolResult(call.id, call.name, text, is_error=True)


def _failure(call: ToolCall, exc: Exception) -> ToolResult:
    if isinstance(exc, ToolFailure):
        return _error(call, str(exc))
    # A tool's own bug: the model gets the gist, the log gets the traceback.
    log.warning("tool %s raised %s", call.name, type(exc).__name__, exc_info=exc)
    detail = str(exc)
    kind = type(exc).__name__
    return _error(
        call, f"{call.name} raised {kind}: {detail}" if detail else f"{call.name} raised {kind}"
    )


def _answer(call: ToolCall, value: Any) -> ToolResult:
    try:
        return ToolResult(call.id, call.name, render_content(value))
    except (TypeError, ValueError) as exc:
        return _error(call, f"{call.name} returned a result that is not JSON: {exc}")
