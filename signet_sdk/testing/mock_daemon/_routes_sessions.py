"""``/api/sessions/*``: live sessions, bypass and renew, transcripts, summaries.

Live sessions merge tracker claims with presence rows, as TS 0.109 does, so a
session started without a runtime path shows up too (``expiresAt:null``);
lookups are scoped by ``?agent_id``. Transcript and search are later routes,
served only when imitating a release after 0.109 (else the plain 404).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ._context import Context
from ._rules import iso, js_number, normalize_session_key, parse_leading_int
from ._store import SUMMARY_COLUMNS, fts_query
from ._web import Routes, error, json_object, json_response, query_arg, require

#: Session routes; a version after 0.109 adds ``NEWER_ROUTES`` (search, transcripts).
ROUTES, NEWER_ROUTES = Routes(), Routes()


def list_live_sessions(ctx: Context, agent_id: str) -> list[dict[str, Any]]:
    """Claims of the agent plus its presence-only sessions, newest claim first."""
    by_key: dict[str, dict[str, Any]] = {}
    for claim in ctx.tracker.active():
        if claim.agent_id == agent_id:
            by_key[claim.key] = {
                "key": claim.key,
                "agentId": agent_id,
                "runtimePath": claim.runtime_path,
                "claimedAt": iso(claim.claimed_at),
                "expiresAt": iso(claim.expires_at),
            }
    for row in ctx.presence.live():
        if row.agent_id == agent_id and row.key not in by_key:
            path, claimed_at = row.runtime_path or "unknown", iso(row.started_at)
            by_key[row.key] = {"key": row.key, "runtimePath": path, "claimedAt": claimed_at}
            by_key[row.key]["expiresAt"] = None
    for session in by_key.values():
        session["bypassed"] = ctx.tracker.is_bypassed(session["key"])
    return sorted(by_key.values(), key=lambda s: str(s["claimedAt"]), reverse=True)


@ROUTES.add("GET", "/api/sessions")
def _list_route(ctx: Context, req: Request) -> Response:
    sessions = list_live_sessions(ctx, query_arg(req, "agent_id") or "default")
    return json_response({"sessions": sessions, "count": len(sessions)})


SessionFn = Callable[[Context, Request, str, dict[str, Any]], Response]


def _live(method: str, suffix: str = "") -> Callable[[SessionFn], SessionFn]:
    """Register a ``/api/sessions/:key`` handler for a live session of ``?agent_id``
    (else the 404)."""

    def register(fn: SessionFn) -> SessionFn:
        @ROUTES.add(method, "/api/sessions/{key}" + suffix)
        def handler(ctx: Context, req: Request) -> Response:
            key = normalize_session_key(req.path_params["key"])
            agent_id = query_arg(req, "agent_id") or "default"
            found = [s for s in list_live_sessions(ctx, agent_id) if s["key"] == key]
            return fn(ctx, req, key, found[0]) if found else error("Session not found", 404)

        return fn

    return register


@_live("GET")
def _get(ctx: Context, req: Request, key: str, session: dict[str, Any]) -> Response:
    return json_response(session)


@_live("POST", "/bypass")
def _bypass(ctx: Context, req: Request, key: str, session: dict[str, Any]) -> Response:
    enabled = json_object(req, blank=True, fallback={}).get("enabled")
    require(isinstance(enabled, bool), "enabled (boolean) is required")
    done = ctx.tracker.set_bypass(key, bool(enabled), allow_unknown=session["expiresAt"] is None)
    require(done, "Session not found or already released", 404)
    return json_response({"key": key, "bypassed": enabled})


@_live("POST", "/renew")
def _renew(ctx: Context, req: Request, key: str, session: dict[str, Any]) -> Response:
    if session["expiresAt"] is None:
        ctx.presence.touch(key)
        return json_response({"key": key, "renewed": True})
    expires = ctx.tracker.renew(key)
    require(expires is not None, "Session not found or expired", 404)
    return json_response({"key": key, "renewed": True, "expiresAt": iso(expires or 0)})


@NEWER_ROUTES.add("GET", "/api/sessions/{key}/transcript", "recall")
def _transcript_route(ctx: Context, req: Request) -> Response:
    key = normalize_session_key(req.path_params["key"])
    agent_id = ctx.agent(query_arg(req, "agent_id") or req.headers.get("x-signet-agent-id"), key)
    row = ctx.store.get_transcript(key, agent_id)
    require(row and row["content"], "Transcript not found", 404)
    assert row is not None
    return json_response({"sessionKey": key, "agentId": agent_id, "content": row["content"]})


def _str_field(body: dict[str, Any], *names: str) -> str | None:
    return next((v for n in names if isinstance(v := body.get(n), str)), None)


@NEWER_ROUTES.add("POST", "/api/sessions/search", "recall")
def _search_route(ctx: Context, req: Request) -> Response:
    body = json_object(req, blank=True)
    query = (_str_field(body, "query") or "").strip()
    require(query, "query is required")
    current = _str_field(body, "currentSessionKey", "current_session_key")
    session_key = _str_field(body, "sessionKey", "session_key")
    agent_id = ctx.agent(
        _str_field(body, "agentId", "agent_id") or query_arg(req, "agent_id"),
        current or session_key,
    )
    project = _str_field(body, "project") or query_arg(req, "project")
    raw_limit = js_number(body.get("limit"))
    parsed = parse_leading_int(query_arg(req, "limit")) if raw_limit is None else int(raw_limit)
    limit = max(1, min(20, parsed)) if parsed is not None else 10
    match = fts_query(query)
    keys = {
        "project": project,
        "session_key": normalize_session_key(session_key) if session_key else None,
        "exclude_key": normalize_session_key(current) if current else None,
    }
    rows = ctx.store.search_transcripts(match, agent_id, limit, **keys) if match else []
    hits = [_node(r, _HIT_COLUMNS) for r in rows]
    return json_response({"query": query, "hits": hits, "count": len(hits)})


@ROUTES.add("GET", "/api/sessions/summaries", "recall")
def _summaries_route(ctx: Context, req: Request) -> Response:
    agent_id = ctx.agent(
        query_arg(req, "agentId") or req.headers.get("x-signet-agent-id"),
        query_arg(req, "sessionKey") or req.headers.get("x-signet-session-key"),
    )
    depth_raw = query_arg(req, "depth")
    depth: int | None = None
    if depth_raw is not None:
        try:
            depth_num = float(depth_raw) if depth_raw.strip() else float("nan")
        except ValueError:
            depth_num = float("nan")
        valid = depth_num == depth_num and depth_num.is_integer() and depth_num >= 0
        require(valid, "depth must be a non-negative integer")
        depth = int(depth_num)
    limit_parsed = parse_leading_int(query_arg(req, "limit") or "50")
    offset_parsed = parse_leading_int(query_arg(req, "offset") or "0")
    limit = min(max(limit_parsed, 0), 200) if limit_parsed is not None else 50
    offset = max(offset_parsed, 0) if offset_parsed is not None else 0
    project = query_arg(req, "project") or None
    rows, total = ctx.store.list_summaries(agent_id, project, depth, limit, offset)
    return json_response({"summaries": rows, "total": total})


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _node(row: dict[str, Any], columns: str = SUMMARY_COLUMNS) -> dict[str, Any]:
    """A row's ``columns`` under camelCase names (a summary node by default)."""
    return {_camel(column): row[column] for column in columns.split(", ")}


_HIT_COLUMNS = "session_key, project, updated_at, excerpt, rank"


@ROUTES.add("POST", "/api/sessions/summaries/expand")
def _expand_route(ctx: Context, req: Request) -> Response:
    body = json_object(req, fallback={})
    node_id = body["id"].strip() if isinstance(body.get("id"), str) else ""
    require(node_id, "id is required")
    include = body.get("includeTranscript")
    include_transcript = include if isinstance(include, bool) else True
    raw_limit = js_number(body.get("transcriptCharLimit"))
    route_limit = 2000 if raw_limit is None else max(200, min(12_000, int(raw_limit)))
    char_limit = max(400, min(route_limit, 12_000))
    agent_raw = body.get("agentId")
    key_raw = body.get("sessionKey")
    agent_id = ctx.agent(
        agent_raw if isinstance(agent_raw, str) else req.headers.get("x-signet-agent-id"),
        key_raw if isinstance(key_raw, str) else req.headers.get("x-signet-session-key"),
    )
    row = ctx.store.get_summary_node(node_id, agent_id) or {}
    require(row, "summary node not found", 404)
    linked = [
        {**_node(m, "id, content, type, created_at"), "deleted": bool(m["is_deleted"])}
        for m in ctx.store.summary_memories(node_id, 25)
    ]
    result: dict[str, Any] = {
        "node": _node(row),
        # The mock never condenses summaries, so a node has no parents or children.
        "parents": [],
        "children": [],
        "linkedMemories": linked,
    }
    if include_transcript and row["session_key"]:
        stored = ctx.store.get_transcript(normalize_session_key(row["session_key"]), agent_id)
        if stored is not None:
            excerpt = str(stored["content"])[:char_limit]
            head = _node(stored, "session_key, harness, project, updated_at")
            result["transcript"] = {**head, "excerpt": excerpt}
    return json_response(result)
