# long module: the daemon's memory routes replicate TS 0.109 handler by handler, byte for byte
"""``/api/memory/*``: remember, recall, get, modify and forget (single and batch).

These routes parse their own bodies (malformed JSON is a 400 here, unlike
the hooks' 500) and report mutations with ``status`` strings and versions,
so the SDK's optimistic-concurrency and confirm-token flows can be tested
against the mock exactly as against the daemon.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, TypeGuard

from starlette.requests import Request
from starlette.responses import Response

from . import _temporal as temporal
from ._chunks import MAX_CONTENT_CHARS, chunk_key_rows, remember_chunks, remember_chunks_109
from ._context import Context
from ._rules import (
    INVALID,
    TAGS_ERROR,
    infer_type,
    iso,
    js_number,
    js_truthy,
    normalize_content,
    opt_str,
    parse_iso,
    parse_optional_bool,
    parse_optional_int,
    parse_optional_number,
    parse_prefixes,
    parse_tags_mutation,
)
from ._store import (
    PUBLIC_MEMORY_COLUMNS,
    PUBLIC_MEMORY_COLUMNS_145,
    MemoryFilters,
    RecallParams,
    fts_query,
    recall,
)
from ._web import (
    BadJson,
    Reply,
    Routes,
    body_json,
    error,
    json_object,
    json_response,
    query_arg,
    require,
)

MAX_MUTATION_BATCH = 200
FORGET_CONFIRM_THRESHOLD = 25
_ACTOR_TYPES = frozenset({"operator", "pipeline", "harness", "sdk", "daemon"})
_BAD_VERSION = "if_version must be a positive integer"
#: Memory routes (TS 0.109 registers remember, :id, forget, modify, recall).
ROUTES = Routes()
Json = dict[str, Any]
ByIdFn = Callable[[Context, Request, str, Json], Response]


class JsTypeError(TypeError):
    """What JavaScript would throw (``null.content``, ``(5).trim()``): uncaught, Hono's 500."""


def _finite(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


_TEXT = ("type", "tags", "who", "since", "until", "project")


def recall_params(body: Json, agent_id: str, *, with_extras: bool) -> RecallParams:
    """Everything a recall route reads from its body (hook recall reads fewer filters);
    ``limit`` goes to SQL as the daemon passes it: default 10, not clamped."""
    text: Json = {n: str(body[n]) if js_truthy(body.get(n)) else None for n in _TEXT}
    filters = MemoryFilters(
        agent_id, tags=tuple(t.strip() for t in (text.pop("tags") or "").split(",") if t.strip())
    )
    if with_extras:
        importance, scope = body.get("importance_min"), body.get("scope")
        filters = dataclasses.replace(
            filters,
            pinned=js_truthy(body.get("pinned")),
            importance_min=float(importance) if _finite(importance) else None,
            scope=None if scope is None else str(scope),
            scope_given="scope" in body,
        )
    keyword, limit = body.get("keywordQuery"), body.get("limit")
    number = None if isinstance(limit, bool) else parse_optional_number(limit)
    return RecallParams(
        query=str(body.get("query", "")).strip(),
        keyword_query=keyword if isinstance(keyword, str) and keyword.strip() else None,
        limit=int(limit) if _finite(limit) else int(number) if number is not None else 10,
        filters=dataclasses.replace(filters, **text),
        expand=js_truthy(body.get("expand")),
    )


_FACETS = ("session", "source", "captured", "observed", "occurred", "valid")
_BAD_BUDGET = "Invalid aggregateBudget. Expected one of: small, medium, large."


def _time_error(time: Any) -> str | None:
    """``validateTemporalTimeOptions`` (0.145): why a recall's ``time`` is refused."""
    if not isinstance(time, dict):
        return "time must be an object"
    start, end = time.get("start"), time.get("end")
    if not isinstance(start, str) or not start.strip():
        return "time.start is required when time is provided"
    start_ts = parse_iso(start)
    if start_ts is None:
        return "time.start must be a valid ISO timestamp"
    if "end" in time:
        end_ts = parse_iso(end) if isinstance(end, str) else None
        if end_ts is None:
            return "time.end must be a valid ISO timestamp"
        if end_ts <= start_ts:
            return "time.end must be after time.start"
    facets = time.get("facets")
    if "facets" in time and not isinstance(facets, list):
        return "time.facets must be an array"
    if isinstance(facets, list) and any(f not in _FACETS for f in facets):
        return f"time.facets entries must be one of: {', '.join(_FACETS)}"
    if "mode" in time and time["mode"] not in ("auto", "timeline", "filter"):
        return "time.mode must be one of: auto, timeline, filter"
    return None


def check_recall_options(body: Json) -> None:
    """0.145's 400s for ``aggregateBudget`` and ``time`` (both recall routes)."""
    for name in ("aggregateBudget", "aggregate_budget"):
        if name in body:
            require(body[name] in ("small", "medium", "large"), _BAD_BUDGET)
            break
    message = _time_error(body["time"]) if "time" in body else None
    require(message is None, str(message))


def _temporal_recall(
    ctx: Context, params: RecallParams, time_range: Any
) -> Callable[[RecallParams], Json]:
    """How a 0.145 recall searches: plainly, or within a ``time`` window."""
    if not isinstance(time_range, dict):
        return lambda p: recall(ctx.store, p)
    window = temporal.intent(time_range, params.query)
    agent = params.filters.agent_id or "default"
    rows = ctx.store.temporal_rows(agent, window["start"], window["end"], window["facets"])
    on_it = {r["id"] for r in rows if r["subject_type"] == "memory"}

    def run(p: RecallParams) -> Json:
        if window["mode"] == "filter" and window["contentQuery"] and on_it:
            result = recall(ctx.store, dataclasses.replace(p, limit=-1))
            hits = [h for h in result["results"] if h["id"] in on_it]
            hits = hits[: p.limit] if p.limit >= 0 else hits
        else:
            every = temporal.timeline(rows, window, -1)
            hits = [h for h in every if h["id"] not in p.exclude_ids][: max(p.limit, 0)]
            result = {"query": p.query, "method": "keyword"}
        meta = {"totalReturned": len(hits), "hasSupplementary": False, "noHits": not hits}
        if "results" not in result:  # the window answered without a search
            meta["searched"] = False
        return {**result, "results": hits, "meta": {**meta, "temporal": window}}

    return run


def aggregate_145(ctx: Context, params: RecallParams, body: Json) -> Json:
    """0.145's ``aggregate: true``: recall, then a model would write one answer from the
    hits; the mock has no model, so it answers as a daemon whose synthesis failed."""
    started = time.perf_counter()
    found = [hit["id"] for hit in recall(ctx.store, params)["results"]]
    budget = body.get("aggregateBudget", body.get("aggregate_budget", "small"))
    millis = round((time.perf_counter() - started) * 1000, 2)
    meta = {"totalReturned": 0, "hasSupplementary": False, "noHits": True}
    stages = [{"name": "aggregate_initial_recall", "durationMs": millis}]
    aggregate = {"savedMemoryId": None, "saved": False, "deduped": False, "budget": budget}
    aggregate.update(queries=[params.query], sourceMemoryIds=found)
    aggregate["stoppedReason"] = "synthesis_failed" if found else "no_evidence"
    timings = {"totalMs": millis, "stages": stages}
    answer = {"results": [], "query": params.query, "method": "hybrid"}
    return {**answer, "meta": {**meta, "timings": timings}, "aggregate": aggregate}


def recall_145(
    ctx: Context,
    params: RecallParams,
    session_key: Any,
    include_recalled: bool,
    time_range: Any = None,
) -> Json:
    """0.145's recall: hits carry ``visibility`` and ``scope``, the meta ``timings`` and,
    with a session key, ``dedupe``: a memory recalled once in the session's context
    epoch is suppressed from later recalls (``includeRecalled`` returns it marked
    ``already_recalled`` instead) until compaction starts a new epoch."""
    started = time.perf_counter()
    params = dataclasses.replace(params, extra_columns=("visibility", "scope"))
    search = _temporal_recall(ctx, params, time_range)
    key = session_key.strip() if isinstance(session_key, str) else ""
    dedupe: Json | None = None
    if not key:
        result = search(params)
    else:
        slot = (key, params.filters.agent_id or "default")
        epoch = ctx.epochs.get(slot, 0)
        seen = ctx.recalled.setdefault((*slot, epoch), set())
        dedupe = {"enabled": True, "contextEpoch": epoch, "suppressed": 0, "repeatedReturned": 0}
        if include_recalled:
            result = search(params)
            for hit in result["results"]:
                if hit["id"] in seen:
                    hit["already_recalled"] = True
                    dedupe["repeatedReturned"] += 1
                seen.add(hit["id"])
        else:
            everything = search(params)["results"]
            dedupe["suppressed"] = sum(1 for hit in everything if hit["id"] in seen)
            fresh = dataclasses.replace(params, exclude_ids=params.exclude_ids | frozenset(seen))
            result = search(fresh)
            seen.update(hit["id"] for hit in result["results"])
    if dedupe is not None:
        result["meta"]["dedupe"] = dedupe
    millis = round((time.perf_counter() - started) * 1000, 2)
    searched = result["meta"].pop("searched", True)
    stages = [{"name": "memory_fts", "durationMs": millis}] if searched else []
    result["meta"]["timings"] = {"totalMs": millis, "stages": stages}
    return result


def _trimmed(body: Json, name: str) -> str | None:
    """``body.x?.trim() || null``; a non-string value throws in JavaScript."""
    value = body.get(name)
    if value is not None and not isinstance(value, str):
        raise JsTypeError(f"body.{name}.trim is not a function")
    return value.strip() or None if value is not None else None


def _object_or_throw(body: Any, field: str) -> Json:
    """``body.x`` on a parsed body: ``null`` throws, a non-object has no fields."""
    if body is None:
        raise JsTypeError(f"Cannot read properties of null (reading '{field}')")
    return body if isinstance(body, dict) else {}


def _hints_written(body: Json) -> int:
    structured = body.get("structured")
    if not isinstance(structured, dict):
        return 0
    lists = [h for h in (structured.get("hints"), body.get("hints")) if isinstance(h, list)]
    return sum(1 for hs in lists for h in hs if isinstance(h, str) and 5 <= len(h.strip()) <= 300)


def _check_structured(body: Json) -> None:
    """0.145's 400s for a ``structured`` part that is not an object of arrays."""
    if "structured" not in body:
        return
    part = body["structured"]
    message = "structured must be an object with entities and/or aspects arrays"
    require(isinstance(part, dict), message)
    for name in ("entities", "aspects", "hints"):
        ok = (part.get(name) is None and name not in part) or isinstance(part.get(name), list)
        require(ok, f"structured.{name} must be an array")


_TEMPORAL_FIELDS = ("sourceCreatedAt", "observedAt", "occurredAt", "validFrom", "validUntil")


def _temporal_error(body: Json) -> str | None:
    """0.145's explicit time fields: each must be an ISO timestamp when given, and a
    validity range must not end before it starts."""
    stamps: dict[str, float | None] = {}
    for name in _TEMPORAL_FIELDS:
        stamps[name] = parse_iso(body[name]) if name in body else None
        if name in body and stamps[name] is None:
            return f"{name} must be a valid ISO timestamp"
    start, end = stamps["validFrom"], stamps["validUntil"]
    if start is not None and end is not None and end <= start:
        return "validUntil must be after validFrom"
    return None


def _pick(*values: Any) -> str | None:
    return next((v.strip() for v in values if isinstance(v, str) and v.strip()), None)


def _provenance(body: Json) -> Json:
    """0.145's row provenance: where the memory came from, which runtime path wrote it,
    and the caller's idempotency key (each also read from ``metadata``)."""
    meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    names = {
        "source_path": ("sourcePath", "source_path", "source"),
        "runtime_path": ("runtimePath", "runtime_path"),
        "idempotency_key": ("idempotencyKey", "idempotency_key"),
    }
    return {
        column: _pick(*(body.get(k) for k in keys), *(meta.get(k) for k in keys))
        for column, keys in names.items()
    }


def remember_memory(ctx: Context, body: Any, session_key_header: str | None) -> Response:
    """``POST /api/memory/remember`` after JSON parsing (the hook proxies here). Content
    over 800 characters is split into chunks (:mod:`._chunks`), as each release splits it."""
    body = _object_or_throw(body, "content")
    raw = _trimmed(body, "content") or ""
    require(raw, "content is required")
    ts = parse_iso(body["createdAt"]) if "createdAt" in body else None
    require(ts is not None or "createdAt" not in body, "createdAt must be a valid ISO timestamp")
    created_at = None if ts is None else iso(ts)
    provenance: Json = {}
    if ctx.v145:
        message = _temporal_error(body)
        require(message is None, str(message))
        provenance = _provenance(body)
    scope = None if body.get("scope") is None else str(body["scope"])
    agent_id = ctx.agent(body.get("agentId"), session_key_header)
    body_tags = parse_tags_mutation(body.get("tags"))
    require(body_tags is not INVALID, TAGS_ERROR)
    who = "daemon" if body.get("who") is None else str(body["who"])
    project = None if body.get("project") is None else str(body["project"])
    source_type = _trimmed(body, "sourceType") or "manual"
    source_id = _trimmed(body, "sourceId")
    content, prefix_tags, prefix_pinned, prefix_importance = parse_prefixes(raw)
    number = js_number(body.get("importance"))
    importance = prefix_importance if number is None else float(number)
    pinned = js_truthy(prefix_pinned if body.get("pinned") is None else body["pinned"])
    tags = body_tags if "tags" in body else prefix_tags
    if ctx.v145:
        _check_structured(body)
    # 0.145 reads any structured part as one (checked above); 0.109, a truthy one.
    structured = "structured" in body if ctx.v145 else js_truthy(body.get("structured"))
    if not structured and len(raw) > MAX_CONTENT_CHARS:
        fields = {"agent_id": agent_id, "importance": importance, "tags": tags}
        fields.update(pinned=pinned, who=who, project=project, **provenance)
        fields.update(visibility="private" if body.get("visibility") == "private" else "global")
        fields.update(extraction_status="pending" if ctx.pipeline_enabled else "none")
        if not ctx.v145:
            return remember_chunks_109(ctx, raw, scope, fields)
        return remember_chunks(ctx, raw, provenance["idempotency_key"], scope, fields)
    if ctx.v145:
        key = provenance["idempotency_key"]
        chunked = bool(key and chunk_key_rows(ctx, key))
        require(not chunked, "idempotencyKey already used for chunked content", 409)
    storage, _normalized, digest = normalize_content(content)
    require(storage, "content is required")

    by_source = {"source_type": source_type, "source_id": source_id}
    existing = ctx.store.find_live(scope, **by_source) if source_id else None
    if existing is None and provenance.get("idempotency_key"):
        existing = ctx.store.find_live(scope, idempotency_key=provenance["idempotency_key"])
    existing = existing or ctx.store.find_live(scope, content_hash=digest)
    if existing is not None:
        saved = {k: existing[k] for k in ("id", "type", "tags", "pinned", "importance", "content")}
        saved.update(tags=existing["tags"] or "", pinned=bool(existing["pinned"]))
        return json_response({**saved, "embedded": True, "deduped": True})
    mem_type = infer_type(content)
    mem_id = ctx.store.add_memory(
        storage,
        agent_id=agent_id,
        type=mem_type,
        importance=importance,
        tags=tags,
        pinned=pinned,
        who=who,
        project=project,
        source_type=source_type,
        source_id=source_id,
        scope=scope,
        visibility="private" if body.get("visibility") == "private" else "global",
        created_at=created_at,
        extraction_status="pending" if ctx.pipeline_enabled else "none",
        **provenance,
    )
    if ctx.v145:
        ctx.store.add_temporal(mem_id, temporal.edges(body))
    transcript = body.get("transcript")
    if isinstance(transcript, str) and transcript and source_id:
        ctx.store.upsert_transcript(source_id, agent_id, transcript, source_type, project)
    saved = {"id": mem_id, "type": mem_type, "pinned": pinned}
    ctx.logs.log("info", "memory", "Memory saved", saved)
    return json_response(
        {
            "id": mem_id,
            "type": mem_type,
            "tags": tags,
            "pinned": pinned,
            "importance": importance,
            "content": storage,
            "embedded": False,
            "entities_linked": 0,
            "hints_written": _hints_written(body),
            "structured": js_truthy(body.get("structured")),
        }
    )


def _parse(req: Request) -> Any:
    """The parsed body; malformed JSON is the 400 ``Invalid JSON body`` on these routes."""
    try:
        return body_json(req)
    except BadJson:
        raise Reply(error("Invalid JSON body")) from None


@ROUTES.add("POST", "/api/memory/remember", "remember")
def _remember_route(ctx: Context, req: Request) -> Response:
    return remember_memory(ctx, _parse(req), req.headers.get("x-signet-session-key"))


@ROUTES.add("POST", "/api/memory/recall", "recall")
def _recall_route(ctx: Context, req: Request) -> Response:
    body = _object_or_throw(_parse(req), "query")
    require(_trimmed(body, "query"), "query is required")
    if ctx.v145:
        check_recall_options(body)
        key = body.get("sessionKey")
        key = req.headers.get("x-signet-session-key") if key is None else key
        agent_id = ctx.agent(body.get("agentId"), key)
        params = recall_params(body, agent_id, with_extras=True)
        if body.get("aggregate") is True:
            return json_response(aggregate_145(ctx, params, body))
        included = body.get("includeRecalled") is True
        return json_response(recall_145(ctx, params, key, included, body.get("time")))
    agent_id = ctx.agent(body.get("agentId"), req.headers.get("x-signet-session-key"))
    try:
        result = recall(ctx.store, recall_params(body, agent_id, with_extras=True))
    except Exception as exc:
        ctx.logs.log("error", "memory", "Recall failed", error=exc)
        return error("Recall failed", 500, results=[])
    return json_response(result)


def _by_id(method: str, permission: str, *, blank: bool = False) -> Callable[[ByIdFn], ByIdFn]:
    """Register a ``/api/memory/:id`` handler: its JSON object body (unless GET), then the id."""

    def register(fn: ByIdFn) -> ByIdFn:
        @ROUTES.add(method, "/api/memory/{id}", permission)
        def handler(ctx: Context, req: Request) -> Response:
            payload = {} if req.method == "GET" else json_object(req, blank=blank)
            memory_id = req.path_params.get("id", "").strip()
            require(memory_id, "memory id is required")
            return fn(ctx, req, memory_id, payload)

        return fn

    return register


@_by_id("GET", "recall")
def _get(ctx: Context, req: Request, memory_id: str, _: Json) -> Response:
    columns = PUBLIC_MEMORY_COLUMNS_145 if ctx.v145 else PUBLIC_MEMORY_COLUMNS
    out = ctx.store.get_memory(memory_id, columns=columns) or {}
    require(out, "not found", 404)
    session_id = out["session_id"]
    if not isinstance(session_id, str) and str(out["source_type"] or "").startswith("session"):
        session_id = out["source_id"]
    if isinstance(session_id, str):
        out["sessionId"] = session_id
    return json_response(out)


class Actor(NamedTuple):
    """Who a mutation is attributed to, and as what kind of caller."""

    changed_by: str
    actor_type: str


def resolve_actor(req: Request, fallback: Any) -> Actor:
    """``resolveMutationActor``: the token, else ``x-signet-actor``, else ``changed_by``."""
    if req.state.role is not None:
        return Actor(f"token:{req.state.role}", req.state.role)
    changed_by = opt_str(req.headers.get("x-signet-actor")) or opt_str(fallback) or "daemon"
    raw_type = opt_str(req.headers.get("x-signet-actor-type"))
    return Actor(changed_by, raw_type if raw_type in _ACTOR_TYPES else "operator")


def _importance(value: Any) -> Any:
    number = parse_optional_number(value)
    return number if number is not None and 0 <= number <= 1 else INVALID


#: ``parseModifyPatch``'s fields in order: the parser (``INVALID`` refuses) and its 400.
_PATCH_FIELDS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "content": (
        lambda v: normalize_content(v)[0] or None if isinstance(v, str) else INVALID,
        "content must be a string",
    ),
    "type": (lambda v: opt_str(v) or INVALID, "type must be a non-empty string"),
    "tags": (parse_tags_mutation, TAGS_ERROR),
    "importance": (_importance, "importance must be a finite number between 0 and 1"),
    "pinned": (
        lambda v: INVALID if (b := parse_optional_bool(v)) is None else int(b),
        "pinned must be a boolean",
    ),
}


def parse_modify_patch(payload: Json) -> tuple[Json | None, str | None]:
    """``parseModifyPatch``: ``(patch, None)`` or ``(None, error message)``."""
    patch: Json = {}
    for name, (parse, message) in _PATCH_FIELDS.items():
        if name in payload:
            patch[name] = parse(payload[name])
            if patch[name] is INVALID:
                return None, message
            if name == "content" and patch[name] is None:
                return None, "content must not be empty"
    if not patch:
        return None, "at least one of content, type, tags, importance, pinned is required"
    return patch, None


def _guard(
    ctx: Context, memory_id: str, if_version: int | None, deleted: str
) -> tuple[Json, Json | None]:
    """The checks modify and forget share: ``(row, None)`` or ``(row, refusal)``."""
    row = ctx.store.get_memory(memory_id, include_deleted=True)
    if row is None:
        return {}, {"id": memory_id, "status": "not_found"}
    conflict = if_version is not None and if_version != int(row["version"])
    status = deleted if row["is_deleted"] else "version_conflict" if conflict else None
    if status is None:
        return row, None
    return row, {"id": memory_id, "status": status, "currentVersion": row["version"]}


def modify_tx(
    ctx: Context, memory_id: str, patch: Json, if_version: int | None, actor: Actor, reason: str
) -> Json:
    """``txModifyMemory``: the mutation result with its ``status``."""
    row, refusal = _guard(ctx, memory_id, if_version, "deleted")
    if refusal is not None:
        return refusal
    version = int(row["version"])
    changes = {k: v for k, v in patch.items() if row[k] != v}
    content_changed = "content" in changes
    if content_changed:
        _, _, digest = normalize_content(changes["content"])
        duplicate = ctx.store.find_live(row["scope"], memory_id, content_hash=digest)
        if duplicate is not None:
            refused = {"id": memory_id, "status": "duplicate_content_hash"}
            return {**refused, "currentVersion": version, "duplicateMemoryId": duplicate["id"]}
    if not changes:
        return {"id": memory_id, "status": "no_changes", "currentVersion": version}
    new_version = ctx.store.update_memory(memory_id, changes, *actor, reason)
    done = {"id": memory_id, "status": "updated", "currentVersion": version}
    return {**done, "newVersion": new_version, "contentChanged": content_changed}


_MODIFY_ERRORS: dict[str, tuple[int, str | None]] = {
    "not_found": (404, "Not found"),
    "deleted": (409, "Cannot modify deleted memory"),
    "version_conflict": (409, "Version conflict"),
    "duplicate_content_hash": (409, "Duplicate content hash"),
}


def _read_modify(item: Json, reason: str | None) -> tuple[str, int | None, Json] | str:
    """One modify request's reason, ``if_version`` and patch, or the error message."""
    reason = opt_str(item.get("reason")) or reason
    if not reason:
        return "reason is required"
    if_version = parse_optional_int(item.get("if_version"))
    if "if_version" in item and if_version is None:
        return _BAD_VERSION
    patch, message = parse_modify_patch(item)
    return (reason, if_version, patch) if patch is not None else str(message)


def _answer(result: Json, errors: dict[str, tuple[int, str | None]]) -> Response:
    """A single mutation's result, as 200 or as its status's error code (and message)."""
    if result["status"] not in errors:
        return json_response(result)
    code, message = errors[result["status"]]
    return json_response(result if message is None else {**result, "error": message}, code)


@_by_id("PATCH", "modify")
def _patch(ctx: Context, req: Request, memory_id: str, payload: Json) -> Response:
    read = _read_modify(payload, None)
    if isinstance(read, str):
        raise Reply(error(read))
    reason, if_version, patch = read
    actor = resolve_actor(req, payload.get("changed_by"))
    return _answer(modify_tx(ctx, memory_id, patch, if_version, actor, reason), _MODIFY_ERRORS)


@ROUTES.add("POST", "/api/memory/modify", "modify")
def _batch_modify_route(ctx: Context, req: Request) -> Response:
    payload = json_object(req)
    patches = payload.get("patches") or []
    require(isinstance(patches, list) and patches, "patches[] is required")
    limit = MAX_MUTATION_BATCH
    require(len(patches) <= limit, f"patches[] exceeds maximum batch size ({limit})")
    actor = resolve_actor(req, payload.get("changed_by"))
    results: list[Json] = []
    for item in patches:
        memory_id = opt_str(item.get("id")) if isinstance(item, dict) else None
        if not isinstance(item, dict):
            read: tuple[str, int | None, Json] | str = "Each patch must be an object"
        elif memory_id is None:
            read = "Patch id is required"
        else:
            read = _read_modify(item, opt_str(payload.get("reason")))
        if isinstance(read, str) or memory_id is None:
            results.append({"id": memory_id, "status": "invalid_request", "error": read})
            continue
        reason, if_version, patch = read
        results.append(modify_tx(ctx, memory_id, patch, if_version, actor, reason))
    updated = sum(1 for r in results if r["status"] == "updated")
    return json_response({"total": len(results), "updated": updated, "results": results})


def forget_tx(
    ctx: Context, memory_id: str, force: bool, if_version: int | None, actor: Actor, reason: str
) -> Json:
    """``txForgetMemory``: soft-delete one memory, or say why not."""
    row, refusal = _guard(ctx, memory_id, if_version, "already_deleted")
    if refusal is not None:
        return refusal
    version = int(row["version"])
    if row["pinned"] and (not force or actor.actor_type == "pipeline"):
        status = "autonomous_force_denied" if force else "pinned_requires_force"
        return {"id": memory_id, "status": status, "currentVersion": version}
    new_version = ctx.store.update_memory(memory_id, {"is_deleted": 1}, *actor, reason)
    done = {"id": memory_id, "status": "deleted", "currentVersion": version}
    return {**done, "newVersion": new_version}


_FORGET_ERRORS: dict[str, tuple[int, str | None]] = {
    "not_found": (404, "Not found"),
    "already_deleted": (409, None),
    "version_conflict": (409, "Version conflict"),
    "pinned_requires_force": (409, "Pinned memories require force=true"),
    "autonomous_force_denied": (403, "Autonomous agents cannot force-delete pinned memories"),
}


@_by_id("DELETE", "forget", blank=True)
def _delete(ctx: Context, req: Request, memory_id: str, payload: Json) -> Response:
    reason = opt_str(payload.get("reason")) or opt_str(query_arg(req, "reason")) or ""
    require(reason, "reason is required")
    force = parse_optional_bool(payload.get("force"))
    require(force is not None or "force" not in payload, "force must be a boolean")
    if force is None:
        force = bool(parse_optional_bool(query_arg(req, "force")))
    if_version = parse_optional_int(payload.get("if_version"))
    require(if_version is not None or "if_version" not in payload, _BAD_VERSION)
    raw_query = query_arg(req, "if_version")
    query_version = parse_optional_int(raw_query)
    require(query_version is not None or raw_query is None, _BAD_VERSION)
    if_version = if_version if if_version is not None else query_version
    actor = resolve_actor(req, payload.get("changed_by"))
    return _answer(forget_tx(ctx, memory_id, force, if_version, actor, reason), _FORGET_ERRORS)


def confirm_token(ids: Sequence[str]) -> str:
    """The batch-forget confirm token: sha256 over sorted, unique ids joined by ``|``."""
    canonical = "|".join(sorted(set(ids)))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


_FORGET_FIELDS = ("type", "tags", "who", "source_type", "since", "until")


def _forget_candidates(ctx: Context, payload: Json, ids: list[str], limit: int) -> list[Json]:
    """The memories a batch forget selects (by ids, or by query and filters), scored."""
    query = opt_str(payload.get("query")) or ""
    fields = {name: opt_str(payload.get(name)) for name in _FORGET_FIELDS}
    scope = opt_str(payload.get("scope"))
    filters = "/".join(_FORGET_FIELDS)
    require(
        ids or query or any(fields.values()) or scope is not None,
        f"query, ids, or at least one filter ({filters}) is required",
    )
    if ids:
        wanted = list(dict.fromkeys(ids))[:limit]
        live = ctx.store.live_rows_by_id(wanted)
        return [{**live[i], "score": 0.0} for i in wanted if i in live]
    match = fts_query(query) if query else None
    if query and not match:
        return []
    tags = [t.strip() for t in (fields.pop("tags") or "").split(",") if t.strip()]
    rows = ctx.store.forget_candidates(match, scope, limit, tags=tags, **fields)
    return [{**r, "score": 1 / (1 + abs(r["raw_score"])) if match else 0.0} for r in rows]


@ROUTES.add("POST", "/api/memory/forget", "forget")
def _batch_forget_route(ctx: Context, req: Request) -> Response:
    payload = json_object(req)
    mode = opt_str(payload.get("mode")) or "preview"
    require(mode in ("preview", "execute"), "mode must be preview or execute")
    parsed_limit = parse_optional_int(payload.get("limit"))
    require(parsed_limit or "limit" not in payload, "limit must be a positive integer")
    raw_ids = payload.get("ids", [])
    require(isinstance(raw_ids, list), "ids must be an array of strings")
    valid = all(isinstance(v, str) and v.strip() for v in raw_ids)
    require(valid, "ids must contain non-empty strings")
    limit = max(1, min(parsed_limit or 20, MAX_MUTATION_BATCH))
    candidates = _forget_candidates(ctx, payload, [v.strip() for v in raw_ids], limit)
    candidate_ids = [c["id"] for c in candidates]
    token = confirm_token(candidate_ids)
    requires_confirm = len(candidate_ids) > FORGET_CONFIRM_THRESHOLD
    counted: Json = {"requiresConfirm": requires_confirm, "confirmToken": token}
    if mode == "preview":
        listed = [
            {
                "id": c["id"],
                "score": round(c["score"], 3),
                "pinned": c["pinned"] == 1,
                "version": c["version"],
            }
            for c in candidates
        ]
        preview = {"mode": "preview", "count": len(candidates), **counted}
        return json_response({**preview, "candidates": listed})
    reason = opt_str(payload.get("reason")) or ""
    require(reason, "reason is required for execute mode")
    force = parse_optional_bool(payload.get("force"))
    require(force is not None or "force" not in payload, "force must be a boolean")
    require(
        "if_version" not in payload,
        "if_version is not supported for batch forget; "
        "use DELETE /api/memory/:id for version-guarded deletes",
    )
    confirmed = not requires_confirm or opt_str(payload.get("confirm_token")) == token
    message = "confirm_token is required for large forget operations; run preview first"
    require(confirmed, message, **counted, count=len(candidates))
    actor = resolve_actor(req, payload.get("changed_by"))
    results = [forget_tx(ctx, mid, bool(force), None, actor, reason) for mid in candidate_ids]
    deleted = sum(1 for r in results if r["status"] == "deleted")
    executed = {"mode": "execute", "requested": len(candidate_ids), "deleted": deleted}
    return json_response({**executed, "results": results})
