"""The session loop, decided once: plans that yield effects and never do I/O.

A plan is a generator. It yields what it needs done (:class:`Read` a daemon
answer, :class:`Prepare` a turn, :class:`Generate` one model answer,
:class:`RunTools`, :class:`Write` something durable, :class:`Emit` an
event), receives the outcome, and returns the step's result. The sync and
the async session each drive the same plans with their own I/O
(:mod:`signet_sdk.agent.session`, :mod:`signet_sdk.agent.async_session`), so
the two send byte-identical model requests and the same daemon calls in the
same order by construction.

Every step is a daemon call or a thin wrapper around one: session start
(``/health``, then session-start), each turn (user-prompt-submit and the
before-generation tools, then the tool loop, then a checkpoint), compaction
(pre-compaction, the model's summary, compaction-complete), session end.
Reads fail open: a daemon that does not answer in time costs a notice, never
the chat. Writes go to the outbox.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from signet_sdk.agent.context import compose_turn, scrub, system_prompt, transcript_line
from signet_sdk.agent.events import AgentEvent, AgentOutput
from signet_sdk.agent.state import SessionState
from signet_sdk.agent.types import (
    CompletionOptions,
    CompletionResult,
    Message,
    ToolCall,
    ToolResult,
    Usage,
)
from signet_sdk.models import (
    PreCompactionParams,
    SessionStartParams,
    UserPromptSubmitParams,
)
from signet_sdk.wire.lifecycle import LifecycleCall

__all__ = [
    "DEFAULT_SUMMARY_PROMPT",
    "Emit",
    "Generate",
    "Prepare",
    "Read",
    "RunTools",
    "Write",
    "compact_plan",
    "start_plan",
    "turn_plan",
]

#: Asked of the model when the daemon gives no summary prompt of its own.
DEFAULT_SUMMARY_PROMPT = (
    "Summarise this conversation so far for your own later use: the goal, what was decided "
    "and done, facts learned, open questions and next steps. Plain prose, no preamble."
)


@dataclass(frozen=True, slots=True)
class Read:
    """A daemon read: ``client.<method>(params)``; the answer, or the error it failed with."""

    method: str
    params: Any
    what: str


@dataclass(frozen=True, slots=True)
class Prepare:
    """This turn's prompt-submit read and the before-generation tools, run concurrently.

    Answered with ``(read outcome, research results, research notices)``.
    """

    read: Read
    text: str


@dataclass(frozen=True, slots=True)
class Generate:
    """One model call; answered with its :class:`CompletionResult` (streamed as text events).

    With ``fail_open`` a provider error is the answer instead of raised: the
    plan decides what it costs (a compaction summary after an answered turn
    costs a notice, never the turn). An ``aside`` (a compaction summary) is
    not the answer: its text is not shown as ``text`` events.
    """

    messages: tuple[Message, ...]
    options: CompletionOptions
    fail_open: bool = False
    aside: bool = False


@dataclass(frozen=True, slots=True)
class RunTools:
    """The tool calls of one model answer; answered with their results, in call order."""

    calls: tuple[ToolCall, ...]


@dataclass(frozen=True, slots=True)
class Write:
    """A durable daemon write: into the outbox, then delivered in order."""

    call: LifecycleCall


@dataclass(frozen=True, slots=True)
class Emit:
    """An event for the caller."""

    event: AgentEvent


Effect = Read | Prepare | Generate | RunTools | Write | Emit
Plan = Generator[Effect, Any, Any]


def _ok(outcome: Any) -> Any:
    """The answer of a read, or None when it failed (the error is in the notice)."""
    return None if isinstance(outcome, BaseException) else outcome


def _failed(what: str, outcome: Any) -> str | None:
    if isinstance(outcome, BaseException):
        return f"memory: {what} skipped ({outcome})"
    return None


def _set(model: Any, **fields: Any) -> Any:
    """A params model with only the fields that have a value: nothing is sent as null."""
    return model(**{k: v for k, v in fields.items() if v is not None})


def _start_params(state: SessionState, source: str) -> SessionStartParams:
    params: SessionStartParams = _set(
        SessionStartParams,
        session_key=state.key,
        project=state.project,
        agent_id=state.agent_id,
        source=source,
    )
    return params


def _take_start(state: SessionState, start: Any) -> None:
    """Put a session start's context where it belongs: the prefix, or the next turn."""
    if start is None or start.skipped or start.bypassed:
        return
    stable = start.stable_system_prompt
    if stable and stable.strip():
        state.system = system_prompt(state.instructions, stable)
        state.session_context = start.dynamic_context or ""
    else:
        state.session_context = start.inject or ""


def start_plan(state: SessionState, *, source: str = "startup") -> Plan:
    """``/health``, then session-start; a daemon that is down costs one notice.

    A session begun while the daemon was down is opened by the first turn the
    daemon answers (:func:`turn_plan`), with the same ``source``.
    """
    state.start_source = source
    health = yield Read("health", None, "health check")
    if isinstance(health, BaseException):
        state.memory_online = False
        yield Emit(
            AgentEvent(
                "notice",
                f"memory offline: {health}; the chat goes on without memory "
                "and its writes wait in the outbox",
            )
        )
        return None
    start = yield Read("on_session_start", _start_params(state, source), "session start")
    if (problem := _failed("session start", start)) is not None:
        yield Emit(AgentEvent("notice", problem))
    _take_start(state, _ok(start))
    return _ok(start)


def _owed_results(calls: tuple[ToolCall, ...], why: str) -> tuple[ToolResult, ...]:
    return tuple(ToolResult(c.id, c.name, f"not run: {why}", is_error=True) for c in calls)


def turn_plan(state: SessionState, text: str) -> Plan:
    """One turn, from the user's words to the answer; returns its :class:`AgentOutput`."""
    notices: list[str] = []
    params = _set(
        UserPromptSubmitParams,
        session_key=state.key,
        user_message=text,
        user_prompt=text,
        project=state.project,
        agent_id=state.agent_id,
        last_assistant_message=state.last_reply or None,
    )
    prompt, research, research_notices = yield Prepare(
        Read("on_user_prompt_submit", params, "prompt recall"), text
    )
    notices.extend(research_notices)
    if (problem := _failed("prompt recall", prompt)) is not None:
        notices.append(problem)
    answer = _ok(prompt)
    turn_context = ""
    if answer is not None and not (answer.skipped or answer.bypassed):
        turn_context = answer.dynamic_context or answer.inject or ""
        if answer.session_known is False or not state.memory_online:
            # The daemon lost the session (restarted, expired): open it again. Or it
            # was down when the session began: open it now, as it began. (It may know
            # the key already, from a checkpoint the outbox delivered meanwhile.)
            source = "resume" if state.memory_online else state.start_source
            start = yield Read("on_session_start", _start_params(state, source), "session start")
            if (problem := _failed("session start", start)) is not None:
                notices.append(problem)
            elif not state.memory_online:
                state.memory_online = True
                notices.append("memory online: the session is open at the daemon")
            _take_start(state, _ok(start))
    for line in notices:
        yield Emit(AgentEvent("notice", line))
    message = compose_turn(
        text,
        session_context=state.session_context,
        turn_context=turn_context,
        research=research,
        summary=state.pending_summary,
    )
    # The one-time context stays in the state until the turn is answered
    # (``commit_turn``): a failed or cancelled turn leaves it for the next one.
    state.add_user(message)
    state.append_transcript(transcript_line("user", text))

    calls: list[ToolCall] = []
    results: list[ToolResult] = []
    usage = Usage()
    result: CompletionResult | None = None
    stop: Any = "end_turn"
    model_calls = 0
    while True:
        model_calls += 1
        result = yield Generate(tuple(state.history), state.options())
        usage += result.usage
        state.last_prompt_tokens = result.usage.prompt_total + result.usage.output
        state.history.append(result.as_message())
        stop = result.stop_reason
        if result.tool_calls and stop == "tool_use":
            calls.extend(result.tool_calls)
            for call in result.tool_calls:
                yield Emit(AgentEvent("tool_call", tool_call=call))
            got: tuple[ToolResult, ...] = yield RunTools(result.tool_calls)
            results.extend(got)
            for res in got:
                yield Emit(AgentEvent("tool_result", tool_result=res))
            state.history.append(Message("user", tool_results=got))
            if model_calls >= state.limits.max_model_calls:
                stop = "max_model_calls"
                notices.append(f"turn stopped after {model_calls} model calls (the limit)")
                yield Emit(AgentEvent("notice", notices[-1]))
                break
            continue
        if result.tool_calls:
            # A refusal or a cut answer: its calls are not run, but answered.
            why = "the model refused" if stop == "refusal" else f"the answer stopped ({stop})"
            state.history.append(
                Message("user", tool_results=_owed_results(result.tool_calls, why))
            )
        if stop == "pause_turn" and model_calls < state.limits.max_model_calls:
            continue
        break

    state.commit_turn()
    content = scrub(result.content) if result is not None else ""
    state.last_reply = content
    state.usage += usage
    state.turns += 1
    if content:
        state.append_transcript(transcript_line("assistant", content))
    checkpoint: dict[str, Any] = {"sessionKey": state.key}
    if state.project:
        checkpoint["project"] = state.project
    checkpoint["transcriptPath"] = state.transcript_path
    yield Write(LifecycleCall("session_checkpoint_extract", checkpoint))
    if state.due_for_compaction():
        yield from compact_plan(state, fail_open=True, notices=notices)
    output = AgentOutput(
        content=content,
        stop_reason=stop,
        tool_calls=tuple(calls),
        tool_results=tuple(results),
        model_calls=model_calls,
        usage=usage,
        notices=tuple(notices),
    )
    yield Emit(AgentEvent("done", output=output))
    return output


def compact_plan(
    state: SessionState, *, fail_open: bool = False, notices: list[str] | None = None
) -> Plan:
    """Pre-compaction, the model's summary (no tools), compaction-complete, the history replaced.

    Returns the summary, or "" when there was nothing to compact or the
    model gave no summary (the history is then left as it was). With
    ``fail_open`` (the automatic compaction after an answered turn) a summary
    the provider fails costs a notice: the history stays, so the next turn
    past the threshold tries again. Its notices are also added to
    ``notices`` (the turn's own, so ``AgentOutput.notices`` has them).
    """
    said = notices if notices is not None else []
    if not state.history:
        return ""
    params = _set(
        PreCompactionParams,
        session_key=state.key,
        message_count=len(state.history),
        agent_id=state.agent_id,
    )
    pre = yield Read("on_pre_compaction", params, "pre-compaction")
    if (problem := _failed("pre-compaction", pre)) is not None:
        said.append(problem)
        yield Emit(AgentEvent("notice", problem))
    answer = _ok(pre)
    ask = DEFAULT_SUMMARY_PROMPT
    if answer is not None and not answer.skipped and answer.summary_prompt.strip():
        ask = answer.summary_prompt
    messages = list(state.history)
    last = messages[-1]
    if last.role == "user":  # results still owed travel with the request
        messages[-1] = Message("user", ask, tool_results=last.tool_results)
    else:
        messages.append(Message("user", ask))
    result = yield Generate(
        tuple(messages), state.options(tools=False), fail_open=fail_open, aside=True
    )
    if isinstance(result, Exception):
        said.append(f"compaction skipped: the summary failed ({result})")
        yield Emit(AgentEvent("notice", said[-1]))
        return ""
    state.usage += result.usage
    summary = scrub(result.content).strip()
    if not summary:
        said.append("compaction skipped: the model gave no summary")
        yield Emit(AgentEvent("notice", said[-1]))
        return ""
    body: dict[str, Any] = {"sessionKey": state.key, "summary": summary}
    if state.project:
        body["project"] = state.project
    yield Write(LifecycleCall("compaction_complete", body))
    state.compacted(summary)
    state.last_prompt_tokens = 0
    yield Emit(AgentEvent("compacted", summary))
    return summary
