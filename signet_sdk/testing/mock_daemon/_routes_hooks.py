# long module: the daemon's hook routes replicate TS 0.109 handler by handler, byte for byte
"""``/api/hooks/*``: the lifecycle hooks, hook remember/recall and synthesis.

Each hook follows TS 0.109's order of checks exactly, because that order is
observable: ``x-signet-no-hooks`` before JSON parsing, required fields, then
the runtime-path claim, presence, the bypass check, and only then the
handler. Malformed JSON (and any failure inside) is a 500 with the route's
own message, never a 400.
"""

from __future__ import annotations

import dataclasses
import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ._context import Context
from ._recall import RecallParams, empty_hook_recall, hook_recall_payload, query_terms, recall
from ._routes_memory import JsTypeError, recall_params, remember_memory
from ._rules import is_noise_session, iso, js_truthy, normalize_session_key, opt_str
from ._state import RuntimePath
from ._store import MemoryFilters
from ._transcripts import (
    TranscriptRejected,
    normalize_transcript,
    read_transcript_path,
    truncate_for_job,
)
from ._web import BadJson, RouteSpec, body_json, json_response, text_response

PROMPT_RECALL_LIMIT = 10
PROMPT_INJECT_CHARS = 500
START_MEMORY_LIMIT = 50
START_INJECT_CHARS = 12_000 * 4
MIN_SUMMARY_CHARS = 500
MIN_CHECKPOINT_BYTES = 500

PRE_COMPACTION_GUIDELINES = (
    "Summarize this session so it can continue after compaction:\n"
    "- decisions made and why\n"
    "- open tasks and next steps\n"
    "- facts learned about the user, the project and its constraints\n"
    "- files, commands and identifiers that matter\n"
    "Be concrete and brief; omit pleasantries and anything already resolved."
)

#: The synthesis block; ``enabled`` and ``provider`` follow the daemon's settings.
SYNTHESIS_CONFIG: dict[str, Any] = {
    "model": "projection",
    "timeout": 120_000,
    "maxTokens": 8000,
    "idleGapMinutes": 15,
    "structuredOutput": False,
}


_log = logging.getLogger("signet_sdk.testing.mock_daemon")


class HookFailure(Exception):
    """A failure the hook's try/catch turns into its 500 body."""


def _body(req: Request) -> dict[str, Any]:
    """The parsed hook body. Non-objects read as "every field missing"; ``null`` throws."""
    value = body_json(req)
    if value is None:
        raise HookFailure("Cannot read properties of null")
    return value if isinstance(value, dict) else {}


def _key(value: Any) -> str | None:
    """A session key as the routes use it: truthy string, else absent."""
    if not js_truthy(value):
        return None
    if not isinstance(value, str):
        raise HookFailure("sessionKey.trim is not a function")
    return value


def _runtime_path(req: Request, body: dict[str, Any]) -> RuntimePath | None:
    """Header wins the ``||`` even when invalid, hiding a valid body value."""
    header = req.headers.get("x-signet-runtime-path")
    value = header if header else body.get("runtimePath")
    if value == "plugin":
        return "plugin"
    if value == "legacy":
        return "legacy"
    return None


def _internal(req: Request) -> bool:
    return req.headers.get("x-signet-no-hooks") == "1"


def _bypassed(ctx: Context, body: dict[str, Any]) -> bool:
    """``checkBypass``: ``sessionKey ?? sessionId`` names the session."""
    raw = body.get("sessionKey")
    key = _key(body.get("sessionId") if raw is None else raw)
    return key is not None and ctx.tracker.is_bypassed(key)


def _claim_or_skip(
    ctx: Context, key: str | None, path: RuntimePath | None, agent_id: str, hook: str, **noop: Any
) -> Response | None:
    """``claimAutomaticSessionOrSkip``: claim, or answer the hook's no-op body with the skip."""
    if not key or not path:
        return None
    result = ctx.tracker.claim(key, path, agent_id)
    if result.ok:
        return None
    ctx.logs.log(
        "info",
        "hooks",
        "Duplicate runtime hook skipped",
        {"hook": hook, "sessionKey": key, "runtimePath": path, "claimedBy": result.claimed_by},
    )
    return json_response(
        {**noop, "skipped": True, "duplicateRuntimePath": True, "claimedBy": result.claimed_by}
    )


def _agent(body: dict[str, Any]) -> str:
    """The agent a claim or presence row is written under: ``body.agentId ?? "default"``."""
    return opt_str(body.get("agentId")) or "default"


def _present(ctx: Context, key: str, body: dict[str, Any], path: RuntimePath | None) -> None:
    """Create or refresh the session's cross-agent presence row."""
    project = opt_str(body.get("project"))
    harness = str(body["harness"])
    ctx.presence.upsert(
        key, agent_id=_agent(body), harness=harness, project=project, runtime_path=path
    )


def _conflict(ctx: Context, key: str | None, path: RuntimePath | None) -> Response | None:
    """``checkSessionClaim``: the 409 for remember and recall (check only, no claim)."""
    if not key or not path:
        return None
    owner = ctx.tracker.owner(key)
    if owner and owner != path:
        return json_response({"error": f"session claimed by {owner} path"}, 409)
    return None


def _hook(
    message: str, fn: Callable[[Context, Request], Response]
) -> Callable[[Context, Request], Response]:
    """Wrap a hook in its try/catch: every failure is ``500 {"error": message}``."""

    def handler(ctx: Context, req: Request) -> Response:
        try:
            return fn(ctx, req)
        except TranscriptRejected as exc:
            return json_response({"error": exc.error}, exc.status)
        except (BadJson, HookFailure, JsTypeError) as exc:
            ctx.logs.log("error", "hooks", message, {"path": req.state.path}, error=exc)
            return json_response({"error": message}, 500)
        except Exception as exc:  # a bug in the mock still answers like the daemon
            ctx.logs.log("error", "hooks", message, {"path": req.state.path}, error=exc)
            _log.exception("hook %s failed", req.state.path)
            return json_response({"error": message}, 500)

    return handler


def _date_header(ts: float) -> str:
    dt = datetime.fromtimestamp(ts, UTC)
    return f"# Current Date & Time\n{dt:%A, %B} {dt.day}, {dt:%Y, %H:%M} UTC"


def _read_transcript(body: dict[str, Any], *, prefer_inline: bool) -> str | None:
    """The transcript a hook was given, normalized; ``None`` when there is none."""
    inline = body.get("transcript")
    inline_text = inline if isinstance(inline, str) and inline.strip() else None
    if prefer_inline and inline_text is not None:
        return normalize_transcript(inline_text)
    from_file = read_transcript_path(body.get("transcriptPath"))
    if from_file is not None and from_file.strip():
        return normalize_transcript(from_file)
    return normalize_transcript(inline_text) if inline_text is not None else None


# -- session-start -------------------------------------------------------------


def _memory_brief(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "content": row["content"],
        "type": row["type"],
        "importance": row["importance"],
        "created_at": row["created_at"],
    }


def _session_start_result(ctx: Context, body: dict[str, Any], key: str | None) -> dict[str, Any]:
    agent_id = ctx.agent(body.get("agentId"), key)
    warning = ctx.tracker.expiry_warning(key) if key else None
    now = ctx.now()
    if key:
        norm = normalize_session_key(key)
        if norm in ctx.hooks.started:
            stub: dict[str, Any] = {
                "identity": {"name": "Agent"},
                "memories": [],
                "inject": f"[memory active | /remember | /recall]\n{_date_header(now)}\n",
            }
            if warning:
                stub["warnings"] = [warning]
            return stub
        ctx.hooks.started.add(norm)

    project = opt_str(body.get("project"))
    rows = ctx.store.top_memories(agent_id, START_MEMORY_LIMIT)
    # Same-project memories first, pinned ones before everything (stable sort).
    rows.sort(key=lambda r: (not r["pinned"], project is None or r["project"] != project))
    identity = {
        "name": "Agent",
        "description": "Signet agent (served by the signet-sdk mock daemon)",
    }
    lines = [
        "[memory active | /remember | /recall]",
        _date_header(now),
        "",
        "# Identity",
        f"{identity['name']}: {identity['description']}",
    ]
    memories = []
    if rows:
        lines += ["", "# Memories"]
        used = sum(len(x) + 1 for x in lines)
        for row in rows:
            line = f"- {row['content']}"
            if used + len(line) + 1 > START_INJECT_CHARS:
                break
            used += len(line) + 1
            lines.append(line)
            memories.append(_memory_brief(row))
    result: dict[str, Any] = {"identity": identity, "memories": memories}
    memory_md = ctx.store.get_memory_md(agent_id)
    if memory_md:
        result["recentContext"] = memory_md[:10_000]
        lines += ["", "# Recent Context", memory_md[:10_000]]
    result["inject"] = "\n".join(lines) + "\n"
    if warning:
        result["warnings"] = [warning]
    return result


def _session_start(ctx: Context, req: Request) -> Response:
    body = _body(req)
    if not js_truthy(body.get("harness")):
        return json_response({"error": "harness is required"}, 400)
    path = _runtime_path(req, body)
    key = _key(body.get("sessionKey"))
    if key and path:
        result = ctx.tracker.claim(key, path, ctx.agent(body.get("agentId"), key))
        if not result.ok:
            return json_response({"error": f"session claimed by {result.claimed_by} path"}, 409)
    presence_key = opt_str(body.get("sessionKey"))
    if presence_key:
        _present(ctx, presence_key, body, path)
    if _bypassed(ctx, body):
        return json_response({"inject": "", "memories": [], "bypassed": True})
    return json_response(_session_start_result(ctx, body, key))


def _session_start_route(ctx: Context, req: Request) -> Response:
    if _internal(req):
        return json_response({"inject": "", "memories": []})
    return _session_start(ctx, req)


# -- user-prompt-submit -----------------------------------------------------------


def _prompt_result(
    ctx: Context, body: dict[str, Any], key: str | None, message: str
) -> dict[str, Any]:
    agent_id = ctx.agent(body.get("agentId"), body.get("sessionKey"))
    project = opt_str(body.get("project"))
    if key:
        transcript = _read_transcript(body, prefer_inline=False)
        if transcript:
            ctx.store.upsert_transcript(
                normalize_session_key(key),
                agent_id,
                transcript,
                harness=str(body.get("harness")),
                project=project,
            )
    warning = ctx.tracker.expiry_warning(key) if key else None
    exclude = ctx.hooks.recently_injected(key) if key else frozenset()
    found = recall(
        ctx.store,
        RecallParams(
            query=message,
            limit=PROMPT_RECALL_LIMIT,
            filters=MemoryFilters(agent_id=agent_id),
            exclude_ids=exclude,
            # The daemon also matches by meaning (embeddings); without them,
            # any shared word is the closest stand-in.
            match_any=True,
        ),
    )["results"]
    # The best hit is always injected (cut to the budget); others while they fit.
    picked: list[dict[str, Any]] = []
    budget = PROMPT_INJECT_CHARS
    for item in found:
        text = " ".join(str(item["content"]).split())
        if not picked:
            text = text[:PROMPT_INJECT_CHARS]
        elif len(text) > budget:
            break
        picked.append({**item, "content": text})
        budget -= len(text)
    terms = " ".join(query_terms(message))[:80]
    header = _date_header(ctx.now())
    result: dict[str, Any]
    if picked:
        lines = [header, "", f"# Relevant Memories ({len(picked)})"]
        lines += [f"- {p['content']} [{p['type']}, {str(p['created_at'])[:10]}]" for p in picked]
        result = {"inject": "\n".join(lines) + "\n", "memoryCount": len(picked)}
        if terms:
            result["queryTerms"] = terms
        result["engine"] = "hybrid"
    else:
        guidance = (
            "# Memory Check\n"
            "No stored memory matched this prompt. If earlier context matters, search with "
            "/recall <query>; save anything worth keeping with /remember <fact>."
        )
        result = {"inject": f"{header}\n\n{guidance}\n", "memoryCount": 0}
        if terms:
            result["queryTerms"] = terms
    if key:
        ctx.hooks.record_turn(key, frozenset(p["id"] for p in picked))
    if warning:
        result["warnings"] = [warning]
    return result


def _prompt_route(ctx: Context, req: Request) -> Response:
    if _internal(req):
        return json_response({"inject": "", "memoryCount": 0})
    body = _body(req)
    user_message = body.get("userMessage")
    user_prompt = body.get("userPrompt")
    has_message = isinstance(user_message, str) and bool(user_message.strip())
    has_prompt = isinstance(user_prompt, str) and bool(user_prompt.strip())
    if not js_truthy(body.get("harness")) or not (has_message or has_prompt):
        return json_response({"error": "harness and userMessage or userPrompt are required"}, 400)
    path = _runtime_path(req, body)
    key = opt_str(body.get("sessionKey"))
    known = ctx.tracker.has(key) if key else False
    noop = {"inject": "", "memoryCount": 0, "sessionKnown": known}
    duplicate = _claim_or_skip(ctx, key, path, _agent(body), "user-prompt-submit", **noop)
    if duplicate is not None:
        return duplicate
    if key and not ctx.presence.touch(key):
        _present(ctx, key, body, path)
    if _bypassed(ctx, body):
        return json_response({"inject": "", "memoryCount": 0, "bypassed": True})
    message = user_message if has_message else user_prompt
    assert isinstance(message, str)
    result = _prompt_result(ctx, body, key, message)
    return json_response({**result, "sessionKnown": known})


# -- session-end ----------------------------------------------------------------------


def _session_end_result(ctx: Context, body: dict[str, Any], key: str | None) -> dict[str, Any]:
    agent_id = ctx.agent(body.get("agentId"), key)
    if key:
        ctx.hooks.reset_start(key)
        ctx.hooks.reset_prompts(key)
    if body.get("reason") == "clear":
        return {"memoriesSaved": 0}
    harness = str(body.get("harness"))
    project = opt_str(body.get("cwd"))
    text = _read_transcript(body, prefer_inline=False) or ""
    norm = normalize_session_key(key) if key else None
    if norm:
        stored = ctx.store.get_transcript(norm, agent_id)
        if stored and len(stored["content"]) > len(text):
            text = str(stored["content"])
    session_id = opt_str(body.get("sessionId"))
    noise = is_noise_session(
        project=project, session_key=key, session_id=session_id, harness=harness
    )
    if norm and text and not noise:
        ctx.store.upsert_transcript(norm, agent_id, text, harness=harness, project=project)
    if not ctx.pipeline_enabled or len(text) < MIN_SUMMARY_CHARS:
        return {"memoriesSaved": 0}
    if noise:
        return {"memoriesSaved": 0, "queued": False}
    job_id = ctx.store.add_job(
        kind="session_end",
        session_key=norm,
        session_id=session_id or norm,
        agent_id=agent_id,
        harness=harness,
        project=project,
        transcript=truncate_for_job(text),
    )
    ctx.logs.log(
        "info", "hooks", "Session summary job queued", {"jobId": job_id, "sessionKey": norm}
    )
    return {"memoriesSaved": 0, "queued": True, "jobId": job_id}


def _session_end_route(ctx: Context, req: Request) -> Response:
    if _internal(req):
        return json_response({"memoriesSaved": 0})
    body = _body(req)
    if not js_truthy(body.get("harness")):
        return json_response({"error": "harness is required"}, 400)
    path = _runtime_path(req, body)
    key = _key(body.get("sessionKey")) or _key(body.get("sessionId"))
    if key and path:
        ended = ctx.tracker.ended(key)
        skip = {"memoriesSaved": 0, "skipped": True}
        if ended is not None and ended.runtime_path:
            ctx.logs.log("info", "hooks", "Duplicate session-end skipped", {"sessionKey": key})
            return json_response(
                {**skip, "duplicateSessionEnd": True, "endedBy": ended.runtime_path}
            )
        owner = ctx.tracker.owner(key) if ended is None else None
        if owner and owner != path:
            return json_response({**skip, "duplicateRuntimePath": True, "claimedBy": owner})
    duplicate = _claim_or_skip(ctx, key, path, _agent(body), "session-end", memoriesSaved=0)
    if duplicate is not None:
        return duplicate
    if key and ctx.tracker.is_bypassed(key):
        ctx.tracker.mark_ended(key, path)
        ctx.presence.remove(key)
        return json_response({"memoriesSaved": 0, "bypassed": True})
    try:
        result = _session_end_result(ctx, body, key)
    except BaseException:
        if key:
            ctx.tracker.release(key)
            ctx.presence.remove(key)
        raise
    if key:
        ctx.tracker.mark_ended(key, path)
        ctx.presence.remove(key)
    return json_response(result)


# -- session-checkpoint-extract ------------------------------------------------------


def _checkpoint_result(ctx: Context, body: dict[str, Any], key: str) -> dict[str, Any]:
    if not ctx.pipeline_enabled:
        return {"skipped": True}
    agent_id = ctx.agent(body.get("agentId"), key)
    norm = normalize_session_key(key)
    inline = body.get("transcript")
    from_inline = isinstance(inline, str) and bool(inline.strip())
    text = _read_transcript(body, prefer_inline=True)
    if text:
        ctx.store.upsert_transcript(
            norm,
            agent_id,
            text,
            harness=str(body.get("harness")),
            project=opt_str(body.get("project")),
        )
    else:
        stored = ctx.store.get_transcript(norm, agent_id)
        text = str(stored["content"]) if stored else None
    if not text:
        return {"skipped": True}
    data = text.encode("utf-8")
    cursor = ctx.store.get_cursor(norm, agent_id)
    delta = data if from_inline or cursor > len(data) else data[cursor:]
    if len(delta) < MIN_CHECKPOINT_BYTES:
        return {"skipped": True}
    ctx.store.set_cursor(norm, agent_id, len(data))
    job_id = ctx.store.add_job(
        kind="checkpoint_extract",
        session_key=norm,
        session_id=norm,
        agent_id=agent_id,
        harness=str(body.get("harness")),
        project=opt_str(body.get("project")),
        transcript=truncate_for_job(delta.decode("utf-8", errors="ignore")),
    )
    return {"queued": True, "jobId": job_id}


def _checkpoint_route(ctx: Context, req: Request) -> Response:
    if _internal(req):
        return json_response({"skipped": True})
    body = _body(req)
    if not js_truthy(body.get("harness")) or not js_truthy(body.get("sessionKey")):
        return json_response({"error": "harness and sessionKey are required"}, 400)
    path = _runtime_path(req, body)
    key = _key(body.get("sessionKey"))
    assert key is not None
    duplicate = _claim_or_skip(
        ctx, key, path, _agent(body), "session-checkpoint-extract", skipped=True
    )
    if duplicate is not None:
        return duplicate
    if ctx.tracker.is_bypassed(key):
        return json_response({"skipped": True})
    ctx.tracker.renew(key)
    return json_response(_checkpoint_result(ctx, body, key))


# -- remember and recall -----------------------------------------------------------------


def _remember_route(ctx: Context, req: Request) -> Response:
    if _internal(req):
        return json_response({"success": True, "memories": []})
    body = _body(req)
    if not js_truthy(body.get("harness")) or not js_truthy(body.get("content")):
        return json_response({"error": "harness and content are required"}, 400)
    path = _runtime_path(req, body)
    conflict = _conflict(ctx, _key(body.get("sessionKey")), path)
    if conflict is not None:
        return conflict
    if _bypassed(ctx, body):
        return json_response({"success": True, "memories": [], "bypassed": True})
    # The daemon re-posts the body to /api/memory/remember from loopback,
    # forwarding only Authorization: that call's remember guard sees the
    # caller's token (if any) as a loopback caller.
    denied = ctx.auth.require("remember", req.state.role, True)
    if denied is not None:
        return json_response({"error": denied}, 403)
    try:
        return remember_memory(ctx, body, None)
    except JsTypeError:
        # The proxied route throws outside its own try/catch: Hono's plain 500.
        return text_response("Internal Server Error", 500)


def _recall_route(ctx: Context, req: Request) -> Response:
    if _internal(req):
        return json_response(empty_hook_recall("", internal=True))
    body = _body(req)
    if not js_truthy(body.get("harness")) or not js_truthy(body.get("query")):
        return json_response({"error": "harness and query are required"}, 400)
    path = _runtime_path(req, body)
    conflict = _conflict(ctx, _key(body.get("sessionKey")), path)
    if conflict is not None:
        return conflict
    if _bypassed(ctx, body):
        return json_response(empty_hook_recall(body.get("query"), bypassed=True))
    if not isinstance(body["query"], str):
        raise HookFailure("query.trim is not a function")
    agent_id = ctx.agent(req.headers.get("x-signet-agent-id"), body.get("sessionKey"))
    params = dataclasses.replace(
        recall_params(body, agent_id, with_extras=False), query=body["query"]
    )
    return json_response(hook_recall_payload(recall(ctx.store, params)))


# -- compaction ----------------------------------------------------------------------------


def _pre_compaction_route(ctx: Context, req: Request) -> Response:
    body = _body(req)
    if not js_truthy(body.get("harness")):
        return json_response({"error": "harness is required"}, 400)
    path = _runtime_path(req, body)
    key = _key(body.get("sessionKey"))
    noop = {"guidelines": "", "instructions": "", "summaryPrompt": ""}
    duplicate = _claim_or_skip(ctx, key, path, ctx.agent(None, key), "pre-compaction", **noop)
    if duplicate is not None:
        return duplicate
    if _bypassed(ctx, body):
        return json_response({"instructions": "", "bypassed": True})
    agent_id = ctx.agent(body.get("agentId"), key)
    lines = [
        "## Memory flush before compaction",
        "",
        "The context window is about to be compacted. Write a summary that lets this "
        "session continue without the dropped messages.",
        "",
        PRE_COMPACTION_GUIDELINES,
    ]
    recent = ctx.store.recent_memories(agent_id, 5)
    if recent:
        lines += ["", "## Recent memories"] + [f"- {r['content']}" for r in recent]
    session_context = body.get("sessionContext")
    if isinstance(session_context, str) and session_context.strip():
        lines += ["", "## Session context", session_context.strip()]
    return json_response(
        {"summaryPrompt": "\n".join(lines) + "\n", "guidelines": PRE_COMPACTION_GUIDELINES}
    )


def _compaction_complete_route(ctx: Context, req: Request) -> Response:
    body = _body(req)
    if not js_truthy(body.get("harness")) or not js_truthy(body.get("summary")):
        return json_response({"error": "harness and summary are required"}, 400)
    path = _runtime_path(req, body)
    key = _key(body.get("sessionKey"))
    duplicate = _claim_or_skip(ctx, key, path, _agent(body), "compaction-complete", success=True)
    if duplicate is not None:
        return duplicate
    if _bypassed(ctx, body):
        return json_response({"success": True, "bypassed": True})
    now = ctx.now()
    stamp = iso(now)
    agent_id = ctx.agent(body.get("agentId"), key)
    harness = str(body["harness"])
    summary = body["summary"] if isinstance(body["summary"], str) else str(body["summary"])
    norm = normalize_session_key(key) if key else None
    stored = ctx.store.get_transcript(norm, agent_id) if norm else None
    project = (stored["project"] if stored else None) or opt_str(body.get("project"))
    session_id = key or f"compaction:{stamp}"
    noise = is_noise_session(
        project=project, session_key=key, session_id=session_id, harness=harness
    )
    memory_id: str | None = None
    if not noise:
        memory_id = ctx.store.add_memory(
            summary,
            agent_id=agent_id,
            type="session_summary",
            importance=0.8,
            tags=f"session,summary,{harness}",
            who="system",
            project=project,
            source_type=harness,
            source_id=key,
            created_at=stamp,
            updated_by="system",
        )
        node_id = f"{key}:compaction:{int(now * 1000)}" if key else str(uuid.uuid4())
        ctx.store.add_summary_node(
            {
                "id": node_id,
                "project": project,
                "depth": 0,
                "kind": "session",
                "content": summary,
                "token_count": -(-len(summary) // 4),
                "earliest_at": stamp,
                "latest_at": stamp,
                "session_key": key,
                "harness": harness,
                "agent_id": agent_id,
                "source_type": "compaction",
                "source_ref": key,
                "meta_json": '{"source":"compaction-complete"}',
                "created_at": stamp,
            },
            [memory_id],
        )
    ctx.logs.log(
        "info",
        "hooks",
        "Compaction summary skipped (noise session)" if noise else "Compaction summary saved",
        {"harness": harness, "memoryId": memory_id or "skipped-temp-session"},
    )
    if key and norm:
        ctx.hooks.reset_prompts(key)
        ctx.store.delete_transcript(norm, agent_id)
    return json_response({"success": True, "memoryId": memory_id})


# -- synthesis ------------------------------------------------------------------------------


def _synthesis_agent(ctx: Context, req: Request, body: dict[str, Any]) -> str:
    agent = body.get("agentId")
    key = body.get("sessionKey")
    return ctx.agent(
        req.headers.get("x-signet-agent-id") if agent is None else agent,
        req.headers.get("x-signet-session-key") if key is None else key,
    )


def _synthesis_config_route(ctx: Context, req: Request) -> Response:
    provider = ctx.synthesis_provider
    return json_response({"enabled": provider != "none", "provider": provider, **SYNTHESIS_CONFIG})


def _synthesis_route(ctx: Context, req: Request) -> Response:
    body = _body(req)
    agent_id = _synthesis_agent(ctx, req, body)
    rows = ctx.store.top_memories(agent_id, 100)
    pinned = [r for r in rows if r["pinned"]]
    others = [r for r in rows if not r["pinned"]]
    lines = [f"# MEMORY.md ({agent_id})", "", f"_Rendered {iso(ctx.now())}_"]
    for title, group in (("Pinned", pinned), ("Working memory", others)):
        if group:
            lines += ["", f"## {title}"] + [f"- {r['content']}" for r in group]
    return json_response(
        {
            "harness": "daemon",
            "model": "projection",
            "prompt": "\n".join(lines) + "\n",
            "fileCount": 1,
        }
    )


def _synthesis_complete_route(ctx: Context, req: Request) -> Response:
    body = _body(req)
    if not js_truthy(body.get("content")):
        return json_response({"error": "content is required"}, 400)
    if not ctx.synthesis_worker:
        return json_response({"error": "Synthesis worker not running"}, 503)
    agent_id = _synthesis_agent(ctx, req, body)
    ctx.store.set_memory_md(agent_id, str(body["content"]))
    ctx.logs.log("info", "hooks", "MEMORY.md synthesized", {"agentId": agent_id})
    return json_response({"success": True})


def routes(ctx: Context) -> list[RouteSpec]:
    """Hook routes, in TS 0.109's registration order."""
    failed = "Hook execution failed"
    return [
        ("POST", "/api/hooks/session-start", _hook(failed, _session_start_route), None),
        ("POST", "/api/hooks/user-prompt-submit", _hook(failed, _prompt_route), None),
        ("POST", "/api/hooks/session-end", _hook(failed, _session_end_route), None),
        ("POST", "/api/hooks/session-checkpoint-extract", _hook(failed, _checkpoint_route), None),
        ("POST", "/api/hooks/remember", _hook(failed, _remember_route), None),
        ("POST", "/api/hooks/recall", _hook(failed, _recall_route), None),
        ("POST", "/api/hooks/pre-compaction", _hook(failed, _pre_compaction_route), None),
        (
            "POST",
            "/api/hooks/compaction-complete",
            _hook("Failed to save summary", _compaction_complete_route),
            None,
        ),
        ("GET", "/api/hooks/synthesis/config", _synthesis_config_route, None),
        ("POST", "/api/hooks/synthesis", _hook("Synthesis request failed", _synthesis_route), None),
        (
            "POST",
            "/api/hooks/synthesis/complete",
            _hook("Failed to save MEMORY.md", _synthesis_complete_route),
            None,
        ),
    ]
