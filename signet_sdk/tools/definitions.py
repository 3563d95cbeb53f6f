"""The memory tool set, defined once.

Each tool is a name, a description written for a model, an input model and
one *plan*: a generator that yields the client calls the tool needs
(``(method name, args)``) and receives each answer (or has the client's
error thrown into it), then returns the tool's JSON result. The plan does
no I/O, so the same definition runs on the sync ``AdapterClient`` and on
the ``AsyncAdapterClient`` (see :mod:`signet_sdk.tools.runner`), and every
rendering (MCP, OpenAI, Anthropic) reads the same name, description and
input schema.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Generator
from typing import Any

from pydantic import BaseModel

from signet_sdk.models import (
    ForgetMemoryRequest,
    MemoryRecallRequest,
    MemoryRememberRequest,
    ModifyMemoryRequest,
    SecretsExecRequest,
)
from signet_sdk.tools import records
from signet_sdk.tools.inputs import (
    MemoryForgetInput,
    MemoryGetInput,
    MemoryModifyInput,
    MemorySearchInput,
    MemoryStoreInput,
    SecretsExecInput,
    SessionSaveInput,
    SessionSaveWithLearningsInput,
)
from signet_sdk.wire.errors import (
    APIConnectionError,
    ConflictError,
    NotFoundError,
    SignetError,
    UnsupportedByDaemonError,
)
from signet_sdk.wire.record import KW_ONLY, Record

__all__ = ["TOOLS", "Plan", "Tool", "ToolContext", "ToolError"]

#: Yields ``(client method, positional args)``; receives the answer; returns the result.
Plan = Generator[tuple[str, tuple[Any, ...]], Any, dict[str, Any]]


class ToolError(SignetError):
    """A tool call that cannot run as asked (the message is written for the model)."""


class ToolContext(Record):
    """Who is calling: the session, project and agent every tool call is made for."""

    session_key: str | None = None
    project: str | None = None
    agent_id: str | None = None


class Tool(Record):
    """One tool: what a model sees, and the plan that performs it."""

    name: str
    description: str
    input_model: type[BaseModel]
    plan: Callable[[Any, ToolContext], Plan]
    _: KW_ONLY
    runs_commands: bool = False

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments, the same in every rendering (a fresh copy)."""
        return _schema(self.input_model)


@functools.cache
def _schema_text(model: type[BaseModel]) -> str:
    return json.dumps(model.model_json_schema())


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model_json_schema()`` is slow; it is computed once per model and copied out."""
    schema: dict[str, Any] = json.loads(_schema_text(model))
    return schema


def _req(model: type[Any], **fields: Any) -> Any:
    """A request model from the fields that are set: an argument left out is not sent."""
    return model(**{k: v for k, v in fields.items() if v is not None})


def _dump(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json", exclude_none=True)
    return data


def _search(args: MemorySearchInput, ctx: ToolContext) -> Plan:
    request = _req(
        MemoryRecallRequest,
        query=args.query,
        limit=args.limit,
        tags=",".join(args.tags) if args.tags else None,
        type=args.type,
        since=args.since,
        agent_id=ctx.agent_id,
    )
    found = yield ("memory_recall", (request,))
    hits = [
        {
            k: v
            for k, v in {
                "id": hit.id,
                "content": hit.content,
                "score": hit.score,
                "type": hit.type,
                "tags": hit.tags,
                "project": hit.project,
                "created_at": hit.created_at,
            }.items()
            if v is not None
        }
        for hit in found.results
    ]
    return {"count": len(hits), "results": hits}


def _stored(answer: Any) -> dict[str, Any]:
    if answer.chunked:
        return {"status": "saved", "ids": answer.ids or [], "chunked": True}
    outcome = "duplicate_skip" if answer.deduped else "new"
    return {"status": "saved", "id": answer.id, "dedup_outcome": outcome}


def _store(args: MemoryStoreInput, ctx: ToolContext) -> Plan:
    request = _req(
        MemoryRememberRequest,
        content=args.content,
        tags=args.tags,
        importance=args.importance,
        pinned=args.pinned,
        project=ctx.project,
        agent_id=ctx.agent_id,
    )
    answer = yield ("memory_remember", (request,))
    return _stored(answer)


def _by_id(
    tool: str, memory_id: str, call: str, *rest: Any
) -> Generator[tuple[str, tuple[Any, ...]], Any, Any]:
    """Call ``call`` on one memory; a missing or forgotten one is an error naming ``id``.

    The client's bare 404 or 409 (``GET .../api/memory/x -> 404: not found``)
    never says which argument was wrong, so the model is told here; the
    daemon's error stays the cause (the adapter server answers with its status).
    """
    try:
        answer = yield (call, (memory_id, *rest))
    except UnsupportedByDaemonError:
        raise  # the route is missing, not the memory
    except NotFoundError as exc:
        raise ToolError(
            f"id: {tool}: no memory with id {memory_id!r} (never stored, or forgotten)"
        ) from exc
    except ConflictError as exc:
        if exc.code in ("already_deleted", "deleted"):
            raise ToolError(f"id: {tool}: memory {memory_id!r} has already been forgotten") from exc
        if exc.code == "pinned_requires_force":
            # The daemon asks for ``force=true``, an argument this tool does not have.
            raise ToolError(
                f"id: memory {memory_id!r} is pinned; unpin it first "
                "(memory_modify with pinned: false), then forget it"
            ) from exc
        raise
    return answer


def _get(args: MemoryGetInput, ctx: ToolContext) -> Plan:
    row: Any = yield from _by_id("memory_get", args.id, "get_memory")
    result = _dump(row)
    if row.source_type == records.RECORD_SOURCE_TYPE:
        parsed = records.parse_record(row.content)
        if parsed is not None:
            result["session_record"] = parsed
    return result


def _modify(args: MemoryModifyInput, ctx: ToolContext) -> Plan:
    change = args.model_dump(exclude={"id"}, exclude_none=True)
    request = ModifyMemoryRequest(**change)
    answer: Any = yield from _by_id("memory_modify", args.id, "modify_memory", request)
    return _dump(answer)


def _forget(args: MemoryForgetInput, ctx: ToolContext) -> Plan:
    request = ForgetMemoryRequest(reason=args.reason)
    answer: Any = yield from _by_id("memory_forget", args.id, "forget_memory", request)
    return _dump(answer)


def _secrets(args: SecretsExecInput, ctx: ToolContext) -> Plan:
    answer = yield (
        "secrets_exec",
        (SecretsExecRequest(command=args.command, secrets=args.secrets),),
    )
    return _dump(answer)


def _record_request(
    args: SessionSaveInput | SessionSaveWithLearningsInput, ctx: ToolContext
) -> tuple[str, MemoryRememberRequest]:
    record, project = args.session, args.project_id
    source_id = records.record_source_id(record, project)
    request = _req(
        MemoryRememberRequest,
        content=records.render_record(record, project),
        project=None if record.save_scope == "global" else project,
        tags=["session-record", f"scope:{record.save_scope}"],
        source_type=records.RECORD_SOURCE_TYPE,
        source_id=source_id,
        structured={},  # one memory, never split into sentence chunks
        agent_id=ctx.agent_id,
    )
    return source_id, request


def _session_save(args: SessionSaveInput, ctx: ToolContext) -> Plan:
    _, request = _record_request(args, ctx)
    answer = yield ("memory_remember", (request,))
    return _stored(answer)


def _session_save_with_learnings(args: SessionSaveWithLearningsInput, ctx: ToolContext) -> Plan:
    """The record, then each learning; per-item outcomes, and an error when nothing was saved.

    A failed save does not stop the rest, unless the daemon could not be
    reached: then the items left are not tried (each would wait out its own
    deadline) and are ``failed`` with that error. When no item was saved the
    first error is raised, so a caller (an MCP client: a tool error) never
    reads a total failure as a partial success.
    """
    source_id, request = _record_request(args, ctx)
    result: dict[str, Any] = {}
    unreachable: APIConnectionError | None = None
    errors: list[SignetError] = []

    def failed(exc: SignetError) -> dict[str, Any]:
        nonlocal unreachable
        errors.append(exc)
        if isinstance(exc, APIConnectionError):
            unreachable = unreachable or exc
        return {"status": "failed", "error": str(exc)}

    try:
        result["session"] = _stored((yield ("memory_remember", (request,))))
    except SignetError as exc:  # the learnings are still tried
        result["session"] = failed(exc)
    project = args.project_id
    for kind, items in (("decision", args.decisions), ("pattern", args.patterns)):
        outcomes = []
        for text in items:
            if unreachable is not None:
                outcomes.append({"status": "failed", "error": f"not tried: {unreachable}"})
                continue
            learning = _req(
                MemoryRememberRequest,
                content=f"{kind.capitalize()}: {text}",
                project=project,
                tags=[kind, f"session:{source_id}"],
                source_type=f"session-{kind}",
                source_id=records.learning_source_id(source_id, kind, text),
                agent_id=ctx.agent_id,
            )
            try:
                outcomes.append(_stored((yield ("memory_remember", (learning,)))))
            except SignetError as exc:
                outcomes.append(failed(exc))
        result[f"{kind}s"] = outcomes
    saved = [result["session"], *result["decisions"], *result["patterns"]]
    if errors and all(i["status"] == "failed" for i in saved):
        raise errors[0]
    result["overall"] = "partial" if errors else "saved"
    return result


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "memory_search",
            "Search long-term memory for facts, decisions and preferences saved in earlier "
            "sessions. Use before answering anything that may depend on past work.",
            MemorySearchInput,
            _search,
        ),
        Tool(
            "memory_store",
            "Save one fact, decision or preference to long-term memory so later sessions "
            "know it. Write it as a complete sentence that makes sense on its own.",
            MemoryStoreInput,
            _store,
        ),
        Tool(
            "memory_get",
            "Read one memory in full by its id (ids come from memory_search). Session records "
            "come back with their fields.",
            MemoryGetInput,
            _get,
        ),
        Tool(
            "memory_modify",
            "Correct a memory that is wrong or out of date: new content, tags, importance or "
            "pinning. Give the reason; it is kept in the memory's history.",
            MemoryModifyInput,
            _modify,
        ),
        Tool(
            "memory_forget",
            "Forget a memory that is wrong or no longer wanted. Give the reason; it is kept in "
            "the memory's history and the memory can be recovered.",
            MemoryForgetInput,
            _forget,
        ),
        Tool(
            "secrets_exec",
            "Run a command with stored secrets injected as environment variables, without ever "
            "seeing their values. Output is redacted.",
            SecretsExecInput,
            _secrets,
            runs_commands=True,
        ),
        Tool(
            "session_save",
            "At the end of a session, save a structured record of it: objective, actions taken, "
            "decisions made, open items and next actions.",
            SessionSaveInput,
            _session_save,
        ),
        Tool(
            "session_save_with_learnings",
            "At the end of a session, save its record together with each decision and pattern "
            "it produced, linked to the record. Prefer this over separate saves.",
            SessionSaveWithLearningsInput,
            _session_save_with_learnings,
        ),
    )
}
