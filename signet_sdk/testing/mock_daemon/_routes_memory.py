# long module: the daemon's memory routes replicate TS 0.109 handler by handler, byte for byte
"""``/api/memory/*``: remember, recall, get, modify and forget (single and batch).

These routes parse their own bodies (malformed JSON is a 400 here, unlike
the hooks' 500) and report mutations with ``status`` strings and versions,
so the SDK's optimistic-concurrency and confirm-token flows can be tested
against the mock exactly as against the daemon.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ._context import Context
from ._recall import RecallParams, fts_query, recall
from ._rules import (
    infer_type,
    iso,
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
from ._store import PUBLIC_MEMORY_COLUMNS, MemoryFilters
from ._web import BadJson, RouteSpec, body_json, json_response, optional_json_object, query_arg

MAX_MUTATION_BATCH = 200
FORGET_CONFIRM_THRESHOLD = 25
_ACTOR_TYPES = frozenset({"operator", "pipeline", "harness", "sdk", "daemon"})


class JsTypeError(TypeError):
    """What JavaScript would throw (``null.content``, ``(5).trim()``).

    Outside a handler's own try/catch it becomes Hono's plain-text 500.
    """


def _filters_from(body: dict[str, Any], agent_id: str, *, with_extras: bool) -> MemoryFilters:
    """Recall filters from a request body (hook recall passes fewer of them)."""

    def text(name: str) -> str | None:
        value = body.get(name)
        return str(value) if js_truthy(value) else None

    tags_raw = text("tags")
    tags = tuple(t.strip() for t in tags_raw.split(",") if t.strip()) if tags_raw else ()
    importance_min = None
    scope: str | None = None
    scope_given = False
    pinned = False
    if with_extras:
        value = body.get("importance_min")
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            importance_min = float(value)
        pinned = js_truthy(body.get("pinned"))
        if "scope" in body:
            scope_given = True
            scope = None if body["scope"] is None else str(body["scope"])
    return MemoryFilters(
        agent_id=agent_id,
        type=text("type"),
        tags=tags,
        who=text("who"),
        pinned=pinned,
        importance_min=importance_min,
        since=text("since"),
        until=text("until"),
        project=text("project"),
        scope=scope,
        scope_given=scope_given,
    )


def recall_limit(value: Any) -> int:
    """``limit`` as the daemon passes it to SQL: default 10, not clamped."""
    if isinstance(value, bool) or value is None:
        return 10
    if isinstance(value, int | float) and math.isfinite(value):
        return int(value)
    number = parse_optional_number(value)
    return int(number) if number is not None else 10


def recall_params(body: dict[str, Any], agent_id: str, *, with_extras: bool) -> RecallParams:
    """Everything a recall route reads from its body."""
    keyword = body.get("keywordQuery")
    return RecallParams(
        query=str(body.get("query", "")).strip(),
        keyword_query=keyword if isinstance(keyword, str) and keyword.strip() else None,
        limit=recall_limit(body.get("limit")),
        filters=_filters_from(body, agent_id, with_extras=with_extras),
        expand=js_truthy(body.get("expand")),
    )


# -- remember ------------------------------------------------------------------


def _optional_trimmed(body: dict[str, Any], name: str) -> str | None:
    """``body.x?.trim() || null``; a non-string value throws in JavaScript."""
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise JsTypeError(f"body.{name}.trim is not a function")
    return value.strip() or None


def _hints_written(body: dict[str, Any]) -> int:
    structured = body.get("structured")
    if not isinstance(structured, dict):
        return 0
    hints: list[Any] = []
    for source in (structured.get("hints"), body.get("hints")):
        if isinstance(source, list):
            hints.extend(source)
    return sum(1 for h in hints if isinstance(h, str) and 5 <= len(h.strip()) <= 300)


def remember_memory(ctx: Context, body: Any, session_key_header: str | None) -> Response:
    """``POST /api/memory/remember`` after JSON parsing (the hook proxies here).

    Content longer than 800 characters is stored whole; the daemon would
    split it into sentence chunks (``chunked:true``), which the mock skips.
    """
    if body is None:
        raise JsTypeError("Cannot read properties of null (reading 'content')")
    if not isinstance(body, dict):
        body = {}
    content = body.get("content")
    if content is None:
        return json_response({"error": "content is required"}, 400)
    if not isinstance(content, str):
        raise JsTypeError("body.content.trim is not a function")
    raw = content.strip()
    if not raw:
        return json_response({"error": "content is required"}, 400)
    created_at: str | None = None
    if "createdAt" in body:
        ts = parse_iso(body["createdAt"])
        if ts is None:
            return json_response({"error": "createdAt must be a valid ISO timestamp"}, 400)
        created_at = iso(ts)
    scope = None if body.get("scope") is None else str(body["scope"])
    agent_id = ctx.agent(body.get("agentId"), session_key_header)
    visibility = "private" if body.get("visibility") == "private" else "global"
    has_tags = "tags" in body
    tags_ok, body_tags = parse_tags_mutation(body.get("tags"))
    if has_tags and not tags_ok:
        return json_response({"error": "tags must be a string, string array, or null"}, 400)

    who_raw = body.get("who")
    who = "daemon" if who_raw is None else str(who_raw)
    project = None if body.get("project") is None else str(body["project"])
    source_type = _optional_trimmed(body, "sourceType") or "manual"
    source_id = _optional_trimmed(body, "sourceId")
    parsed = parse_prefixes(raw)
    importance_raw = body.get("importance")
    if isinstance(importance_raw, int | float) and not isinstance(importance_raw, bool):
        importance = float(importance_raw)
    else:
        importance = parsed.importance
    pinned_raw = body.get("pinned")
    pinned = js_truthy(parsed.pinned if pinned_raw is None else pinned_raw)
    tags = body_tags if has_tags else parsed.tags
    mem_type = infer_type(parsed.content)
    storage, _normalized, digest = normalize_content(parsed.content)
    if not storage:
        return json_response({"error": "content is required"}, 400)

    existing = ctx.store.find_by_source(source_type, source_id, scope) if source_id else None
    if existing is None:
        existing = ctx.store.find_by_hash(digest, scope)
    if existing is not None:
        return json_response(
            {
                "id": existing["id"],
                "type": existing["type"],
                "tags": existing["tags"] or "",
                "pinned": bool(existing["pinned"]),
                "importance": existing["importance"],
                "content": existing["content"],
                "embedded": True,
                "deduped": True,
            }
        )

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
        visibility=visibility,
        created_at=created_at,
        extraction_status="pending" if ctx.pipeline_enabled else "none",
    )
    transcript = body.get("transcript")
    if isinstance(transcript, str) and transcript and source_id:
        ctx.store.upsert_transcript(
            source_id, agent_id, transcript, harness=source_type, project=project
        )
    ctx.logs.log(
        "info", "memory", "Memory saved", {"id": mem_id, "type": mem_type, "pinned": pinned}
    )
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


def _remember_route(ctx: Context, req: Request) -> Response:
    try:
        body = body_json(req)
    except BadJson:
        return json_response({"error": "Invalid JSON body"}, 400)
    return remember_memory(ctx, body, req.headers.get("x-signet-session-key"))


# -- recall and get ------------------------------------------------------------


def _recall_route(ctx: Context, req: Request) -> Response:
    try:
        body = body_json(req)
    except BadJson:
        return json_response({"error": "Invalid JSON body"}, 400)
    if body is None:
        raise JsTypeError("Cannot read properties of null (reading 'query')")
    if not isinstance(body, dict):
        body = {}
    query = body.get("query")
    if query is not None and not isinstance(query, str):
        raise JsTypeError("body.query.trim is not a function")
    if not (query or "").strip():
        return json_response({"error": "query is required"}, 400)
    agent_id = ctx.agent(body.get("agentId"), req.headers.get("x-signet-session-key"))
    try:
        result = recall(ctx.store, recall_params(body, agent_id, with_extras=True))
    except Exception as exc:
        ctx.logs.log("error", "memory", "Recall failed", error=exc)
        return json_response({"error": "Recall failed", "results": []}, 500)
    return json_response(result)


def _memory_id(req: Request) -> str | None:
    return req.path_params.get("id", "").strip() or None


def _get_route(ctx: Context, req: Request) -> Response:
    memory_id = _memory_id(req)
    if memory_id is None:
        return json_response({"error": "memory id is required"}, 400)
    out = ctx.store.get_memory(memory_id, columns=PUBLIC_MEMORY_COLUMNS)
    if out is None:
        return json_response({"error": "not found"}, 404)
    session_id = out["session_id"]
    if not isinstance(session_id, str) and str(out["source_type"] or "").startswith("session"):
        session_id = out["source_id"]
    if isinstance(session_id, str):
        out["sessionId"] = session_id
    return json_response(out)


# -- modify --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Actor:
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


def parse_modify_patch(payload: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """``parseModifyPatch``: ``(patch, None)`` or ``(None, error message)``."""
    patch: dict[str, Any] = {}
    if "content" in payload:
        if not isinstance(payload["content"], str):
            return None, "content must be a string"
        storage, _, _ = normalize_content(payload["content"])
        if not storage:
            return None, "content must not be empty"
        patch["content"] = storage
    if "type" in payload:
        kind = opt_str(payload["type"])
        if not kind:
            return None, "type must be a non-empty string"
        patch["type"] = kind
    if "tags" in payload:
        ok, tags = parse_tags_mutation(payload["tags"])
        if not ok:
            return None, "tags must be a string, string array, or null"
        patch["tags"] = tags
    if "importance" in payload:
        importance = parse_optional_number(payload["importance"])
        if importance is None or not 0 <= importance <= 1:
            return None, "importance must be a finite number between 0 and 1"
        patch["importance"] = importance
    if "pinned" in payload:
        pinned = parse_optional_bool(payload["pinned"])
        if pinned is None:
            return None, "pinned must be a boolean"
        patch["pinned"] = 1 if pinned else 0
    if not patch:
        return None, "at least one of content, type, tags, importance, pinned is required"
    return patch, None


def modify_tx(
    ctx: Context,
    memory_id: str,
    patch: dict[str, Any],
    if_version: int | None,
    actor: Actor,
    reason: str,
) -> dict[str, Any]:
    """``txModifyMemory``: the mutation result with its ``status``."""
    row = ctx.store.get_memory(memory_id, include_deleted=True)
    if row is None:
        return {"id": memory_id, "status": "not_found"}
    version = int(row["version"])
    if row["is_deleted"]:
        return {"id": memory_id, "status": "deleted", "currentVersion": version}
    if if_version is not None and if_version != version:
        return {"id": memory_id, "status": "version_conflict", "currentVersion": version}
    changes = {k: v for k, v in patch.items() if row[k] != v}
    content_changed = "content" in changes
    if content_changed:
        _, _, digest = normalize_content(changes["content"])
        duplicate = ctx.store.find_by_hash(digest, row["scope"], exclude_id=memory_id)
        if duplicate is not None:
            return {
                "id": memory_id,
                "status": "duplicate_content_hash",
                "currentVersion": version,
                "duplicateMemoryId": duplicate["id"],
            }
    if not changes:
        return {"id": memory_id, "status": "no_changes", "currentVersion": version}
    new_version = ctx.store.update_memory(
        memory_id, changes, changed_by=actor.changed_by, actor_type=actor.actor_type, reason=reason
    )
    return {
        "id": memory_id,
        "status": "updated",
        "currentVersion": version,
        "newVersion": new_version,
        "contentChanged": content_changed,
    }


_MODIFY_ERRORS = {
    "not_found": (404, "Not found"),
    "deleted": (409, "Cannot modify deleted memory"),
    "version_conflict": (409, "Version conflict"),
    "duplicate_content_hash": (409, "Duplicate content hash"),
}


def _json_object(req: Request) -> dict[str, Any] | None:
    """The body when it is a JSON object (else the route's ``Invalid JSON body``)."""
    try:
        payload = body_json(req)
    except BadJson:
        return None
    return payload if isinstance(payload, dict) else None


def _read_modify(
    item: dict[str, Any], reason: str | None
) -> tuple[str, int | None, dict[str, Any]] | str:
    """One modify request's reason, ``if_version`` and patch, or the error message."""
    reason = opt_str(item.get("reason")) or reason
    if not reason:
        return "reason is required"
    if_version = parse_optional_int(item.get("if_version"))
    if "if_version" in item and if_version is None:
        return "if_version must be a positive integer"
    patch, error = parse_modify_patch(item)
    return (reason, if_version, patch) if patch is not None else str(error)


def _patch_route(ctx: Context, req: Request) -> Response:
    payload = _json_object(req)
    if payload is None:
        return json_response({"error": "Invalid JSON body"}, 400)
    memory_id = _memory_id(req)
    if memory_id is None:
        return json_response({"error": "memory id is required"}, 400)
    read = _read_modify(payload, None)
    if isinstance(read, str):
        return json_response({"error": read}, 400)
    reason, if_version, patch = read
    actor = resolve_actor(req, payload.get("changed_by"))
    result = modify_tx(ctx, memory_id, patch, if_version, actor, reason)
    status = result["status"]
    if status in _MODIFY_ERRORS:
        code, message = _MODIFY_ERRORS[status]
        return json_response({**result, "error": message}, code)
    return json_response(result)


def _batch_modify_route(ctx: Context, req: Request) -> Response:
    payload = _json_object(req)
    if payload is None:
        return json_response({"error": "Invalid JSON body"}, 400)
    patches = payload.get("patches")
    if not isinstance(patches, list) or not patches:
        return json_response({"error": "patches[] is required"}, 400)
    if len(patches) > MAX_MUTATION_BATCH:
        return json_response(
            {"error": f"patches[] exceeds maximum batch size ({MAX_MUTATION_BATCH})"}, 400
        )
    actor = resolve_actor(req, payload.get("changed_by"))
    results: list[dict[str, Any]] = []
    for item in patches:
        memory_id = opt_str(item.get("id")) if isinstance(item, dict) else None
        if not isinstance(item, dict) or not memory_id:
            error = (
                "Patch id is required" if isinstance(item, dict) else "Each patch must be an object"
            )
            results.append({"id": None, "status": "invalid_request", "error": error})
            continue
        read = _read_modify(item, opt_str(payload.get("reason")))
        if isinstance(read, str):
            results.append({"id": memory_id, "status": "invalid_request", "error": read})
            continue
        reason, if_version, patch = read
        results.append(modify_tx(ctx, memory_id, patch, if_version, actor, reason))
    updated = sum(1 for r in results if r["status"] == "updated")
    return json_response({"total": len(results), "updated": updated, "results": results})


# -- forget ----------------------------------------------------------------------


def forget_tx(
    ctx: Context, memory_id: str, *, force: bool, if_version: int | None, actor: Actor, reason: str
) -> dict[str, Any]:
    """``txForgetMemory``: soft-delete one memory, or say why not."""
    row = ctx.store.get_memory(memory_id, include_deleted=True)
    if row is None:
        return {"id": memory_id, "status": "not_found"}
    version = int(row["version"])
    if row["is_deleted"]:
        return {"id": memory_id, "status": "already_deleted", "currentVersion": version}
    if if_version is not None and if_version != version:
        return {"id": memory_id, "status": "version_conflict", "currentVersion": version}
    if row["pinned"] and not force:
        return {"id": memory_id, "status": "pinned_requires_force", "currentVersion": version}
    if row["pinned"] and actor.actor_type == "pipeline":
        return {"id": memory_id, "status": "autonomous_force_denied", "currentVersion": version}
    new_version = ctx.store.soft_delete(
        memory_id, changed_by=actor.changed_by, actor_type=actor.actor_type, reason=reason
    )
    return {
        "id": memory_id,
        "status": "deleted",
        "currentVersion": version,
        "newVersion": new_version,
    }


_FORGET_ERRORS: dict[str, tuple[int, str | None]] = {
    "not_found": (404, "Not found"),
    "already_deleted": (409, None),
    "version_conflict": (409, "Version conflict"),
    "pinned_requires_force": (409, "Pinned memories require force=true"),
    "autonomous_force_denied": (403, "Autonomous agents cannot force-delete pinned memories"),
}


def _delete_route(ctx: Context, req: Request) -> Response:
    payload = optional_json_object(req)
    if payload is None:
        return json_response({"error": "Invalid JSON body"}, 400)
    memory_id = _memory_id(req)
    if memory_id is None:
        return json_response({"error": "memory id is required"}, 400)
    reason = opt_str(payload.get("reason")) or opt_str(query_arg(req, "reason"))
    if not reason:
        return json_response({"error": "reason is required"}, 400)
    force_body = parse_optional_bool(payload.get("force"))
    if "force" in payload and force_body is None:
        return json_response({"error": "force must be a boolean"}, 400)
    force_query = parse_optional_bool(query_arg(req, "force"))
    force = force_body if force_body is not None else bool(force_query)
    if_version_body = parse_optional_int(payload.get("if_version"))
    if "if_version" in payload and if_version_body is None:
        return json_response({"error": "if_version must be a positive integer"}, 400)
    raw_query_version = query_arg(req, "if_version")
    if_version_query = parse_optional_int(raw_query_version)
    if raw_query_version is not None and if_version_query is None:
        return json_response({"error": "if_version must be a positive integer"}, 400)
    if_version = if_version_body if if_version_body is not None else if_version_query
    actor = resolve_actor(req, payload.get("changed_by"))
    result = forget_tx(
        ctx, memory_id, force=force, if_version=if_version, actor=actor, reason=reason
    )
    status = result["status"]
    if status in _FORGET_ERRORS:
        code, message = _FORGET_ERRORS[status]
        return json_response(result if message is None else {**result, "error": message}, code)
    return json_response(result)


def confirm_token(ids: Sequence[str]) -> str:
    """The batch-forget confirm token: sha256 over sorted, unique ids joined by ``|``."""
    canonical = "|".join(sorted(set(ids)))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]


def _batch_forget_route(ctx: Context, req: Request) -> Response:
    payload = _json_object(req)
    if payload is None:
        return json_response({"error": "Invalid JSON body"}, 400)
    mode = opt_str(payload.get("mode")) or "preview"
    if mode not in ("preview", "execute"):
        return json_response({"error": "mode must be preview or execute"}, 400)
    parsed_limit = parse_optional_int(payload.get("limit"))
    if "limit" in payload and parsed_limit is None:
        return json_response({"error": "limit must be a positive integer"}, 400)
    limit = max(1, min(parsed_limit or 20, MAX_MUTATION_BATCH))
    ids: list[str] = []
    if "ids" in payload:
        if not isinstance(payload["ids"], list):
            return json_response({"error": "ids must be an array of strings"}, 400)
        for value in payload["ids"]:
            if not isinstance(value, str) or not value.strip():
                return json_response({"error": "ids must contain non-empty strings"}, 400)
            ids.append(value.strip())
    query = opt_str(payload.get("query")) or ""
    fields = {
        name: opt_str(payload.get(name)) or ""
        for name in ("type", "tags", "who", "source_type", "since", "until")
    }
    scope = opt_str(payload.get("scope"))
    if not ids and not query and not any(fields.values()) and scope is None:
        return json_response(
            {
                "error": "query, ids, or at least one filter "
                "(type/tags/who/source_type/since/until) is required"
            },
            400,
        )

    candidates: list[dict[str, Any]]
    if ids:
        wanted = list(dict.fromkeys(ids))[:limit]
        live = ctx.store.live_rows_by_id(wanted)
        candidates = [{**live[i], "score": 0.0} for i in wanted if i in live]
    else:
        match = fts_query(query) if query else None
        if query and not match:
            rows: list[dict[str, Any]] = []
        else:
            rows = ctx.store.forget_candidates_by_filter(
                match=match,
                type=fields["type"] or None,
                tags=[t.strip() for t in fields["tags"].split(",") if t.strip()],
                who=fields["who"] or None,
                source_type=fields["source_type"] or None,
                since=fields["since"] or None,
                until=fields["until"] or None,
                scope=scope,
                limit=limit,
            )
        candidates = [{**r, "score": 1 / (1 + abs(r["raw_score"])) if match else 0.0} for r in rows]
    candidate_ids = [c["id"] for c in candidates]
    token = confirm_token(candidate_ids)
    requires_confirm = len(candidate_ids) > FORGET_CONFIRM_THRESHOLD

    if mode == "preview":
        return json_response(
            {
                "mode": "preview",
                "count": len(candidates),
                "requiresConfirm": requires_confirm,
                "confirmToken": token,
                "candidates": [
                    {
                        "id": c["id"],
                        "score": round(c["score"], 3),
                        "pinned": c["pinned"] == 1,
                        "version": c["version"],
                    }
                    for c in candidates
                ],
            }
        )

    reason = opt_str(payload.get("reason"))
    if not reason:
        return json_response({"error": "reason is required for execute mode"}, 400)
    force = parse_optional_bool(payload.get("force"))
    if "force" in payload and force is None:
        return json_response({"error": "force must be a boolean"}, 400)
    if "if_version" in payload:
        return json_response(
            {
                "error": "if_version is not supported for batch forget; "
                "use DELETE /api/memory/:id for version-guarded deletes"
            },
            400,
        )
    if requires_confirm and opt_str(payload.get("confirm_token")) != token:
        return json_response(
            {
                "error": "confirm_token is required for large forget operations; run preview first",
                "requiresConfirm": True,
                "confirmToken": token,
                "count": len(candidates),
            },
            400,
        )
    actor = resolve_actor(req, payload.get("changed_by"))
    results = [
        forget_tx(ctx, mid, force=bool(force), if_version=None, actor=actor, reason=reason)
        for mid in candidate_ids
    ]
    return json_response(
        {
            "mode": "execute",
            "requested": len(candidate_ids),
            "deleted": sum(1 for r in results if r["status"] == "deleted"),
            "results": results,
        }
    )


def routes(ctx: Context) -> list[RouteSpec]:
    """Memory routes, in TS 0.109's registration order (``:id`` before ``search``)."""
    return [
        ("POST", "/api/memory/remember", _remember_route, "remember"),
        ("GET", "/api/memory/{id}", _get_route, "recall"),
        ("PATCH", "/api/memory/{id}", _patch_route, "modify"),
        ("DELETE", "/api/memory/{id}", _delete_route, "forget"),
        ("POST", "/api/memory/forget", _batch_forget_route, "forget"),
        ("POST", "/api/memory/modify", _batch_modify_route, "modify"),
        ("POST", "/api/memory/recall", _recall_route, "recall"),
    ]
