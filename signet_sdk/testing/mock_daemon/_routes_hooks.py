# long module: the daemon's hook routes replicate TS 0.109 handler by handler, byte for byte
"""``/api/hooks/*``: the lifecycle hooks, hook remember/recall and synthesis.

Each hook keeps TS 0.109's observable order of checks: ``x-signet-no-hooks``
before JSON parsing, required fields, the runtime-path claim, presence, the
bypass check, then the handler. Malformed JSON (any failure inside) is a 500
with the route's own message, never a 400.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ._context import Context
from ._routes_memory import (
    JsTypeError,
    aggregate_145,
    check_recall_options,
    recall_145,
    recall_params,
    remember_memory,
)
from ._rules import (
    TranscriptRejected,
    is_noise_session,
    iso,
    js_truthy,
    normalize_session_key,
    opt_str,
    read_transcript,
    truncate_for_job,
)
from ._state import RuntimePath
from ._store import (
    STOP_WORDS,
    MemoryFilters,
    RecallParams,
    empty_hook_recall,
    hook_recall_payload,
    query_terms,
    recall,
)
from ._web import BadJson, Reply, Routes, body_json, error, json_response, require, text_response

PROMPT_RECALL_LIMIT = 10
PROMPT_INJECT_CHARS = 500
START_MEMORY_LIMIT = 50
START_INJECT_CHARS = 12_000 * 4
MIN_SUMMARY_CHARS = 500
MIN_CHECKPOINT_BYTES = 500
_BANNER = "[memory active | /remember | /recall]"
_BRIEF = ("id", "content", "type", "importance", "created_at")  # an injected memory's fields

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
#: Hook routes, in TS 0.109's registration order.
ROUTES = Routes()

Body = dict[str, Any]
HookFn = Callable[[Context, Request, Body], Response]


def _key(value: Any) -> str | None:
    """A session key as the routes use it: truthy string, else absent."""
    if js_truthy(value) and not isinstance(value, str):
        raise JsTypeError("sessionKey.trim is not a function")
    return value if js_truthy(value) else None


def _runtime_path(req: Request, body: Body) -> RuntimePath | None:
    """Header wins the ``||`` even when invalid, hiding a valid body value."""
    value = req.headers.get("x-signet-runtime-path") or body.get("runtimePath")
    return "plugin" if value == "plugin" else "legacy" if value == "legacy" else None


def _unless_bypassed(ctx: Context, body: Body, **noop: Any) -> None:
    """``checkBypass`` (``sessionKey ?? sessionId`` names the session): a bypassed
    session gets the hook's no-op body with ``bypassed:true``."""
    raw = body.get("sessionKey")
    key = _key(body.get("sessionId") if raw is None else raw)
    if key is not None and ctx.tracker.is_bypassed(key):
        raise Reply(json_response({**noop, "bypassed": True}))


def _agent(body: Body) -> str:
    """The agent a claim or presence row is written under: ``body.agentId ?? "default"``."""
    return opt_str(body.get("agentId")) or "default"


def _claim_or_skip(
    ctx: Context, key: str | None, path: RuntimePath | None, agent_id: str, hook: str, **noop: Any
) -> None:
    """``claimAutomaticSessionOrSkip``: claim, or answer the hook's no-op body with the skip."""
    claimed_by = ctx.tracker.claim(key, path, agent_id) if key and path else None
    if claimed_by is not None:
        data = {"hook": hook, "sessionKey": key, "runtimePath": path, "claimedBy": claimed_by}
        ctx.logs.log("info", "hooks", "Duplicate runtime hook skipped", data)
        skip = {"skipped": True, "duplicateRuntimePath": True, "claimedBy": claimed_by}
        raise Reply(json_response({**noop, **skip}))


def _conflict(ctx: Context, req: Request, body: Body, **bypass: Any) -> None:
    """``checkSessionClaim`` (check only, no claim: remember and recall answer the 409),
    then the bypass no-op."""
    key, path = _key(body.get("sessionKey")), _runtime_path(req, body)
    owner = ctx.tracker.owner(key) if key and path else None
    require(not owner or owner == path, f"session claimed by {owner} path", 409)
    _unless_bypassed(ctx, body, **bypass)


def _hook(
    path: str,
    required: tuple[str, ...] = ("harness",),
    internal: Body | None = None,
    message: str = "Hook execution failed",
) -> Callable[[HookFn], HookFn]:
    """Register a hook route: the ``x-signet-no-hooks`` no-op, the body, its required
    fields, and the try/catch that turns every failure into ``500 {"error": message}``."""

    def register(fn: HookFn) -> HookFn:
        def handler(ctx: Context, req: Request) -> Response:
            if internal is not None and req.headers.get("x-signet-no-hooks") == "1":
                return json_response(internal)
            try:
                body = body_json(req)
                if body is None:
                    raise JsTypeError("Cannot read properties of null")
                body = body if isinstance(body, dict) else {}  # a non-object lacks every field
                verb = "is" if len(required) == 1 else "are"
                given = all(js_truthy(body.get(name)) for name in required)
                require(given, f"{' and '.join(required)} {verb} required")
                return fn(ctx, req, body)
            except Reply:
                raise
            except TranscriptRejected as exc:
                return error(exc.error, exc.status)
            except Exception as exc:  # a bug in the mock answers like the daemon too
                ctx.logs.log("error", "hooks", message, {"path": req.state.path}, error=exc)
                if not isinstance(exc, BadJson | JsTypeError):  # a bug in the mock: say where
                    _log.exception("hook %s failed", req.state.path)
                return error(message, 500)

        ROUTES.append(("POST", f"/api/hooks/{path}", handler, None))
        return fn

    return register


def _date_header(ts: float) -> str:
    dt = datetime.fromtimestamp(ts, UTC)
    return f"# Current Date & Time\n{dt:%A, %B} {dt.day}, {dt:%Y, %H:%M} UTC"


@_hook("session-start", internal={"inject": "", "memories": []})
def _session_start(ctx: Context, req: Request, body: Body) -> Response:
    path = _runtime_path(req, body)
    key = _key(body.get("sessionKey"))
    if key and path:
        claimed_by = ctx.tracker.claim(key, path, ctx.agent(body.get("agentId"), key))
        require(claimed_by is None, f"session claimed by {claimed_by} path", 409)
    presence_key = opt_str(body.get("sessionKey"))
    if presence_key:
        ctx.presence.upsert(presence_key, body, path)
    _unless_bypassed(ctx, body, inject="", memories=[])
    agent_id = ctx.agent(body.get("agentId"), key)
    warning = ctx.tracker.expiry_warning(key) if key else None
    warnings = {"warnings": [warning]} if warning else {}
    header = _date_header(ctx.now())
    source = body.get("source")
    if key and ctx.v145 and isinstance(source, str) and source.strip().lower() == "clear":
        ctx.tracker.reset(key, start=True)  # 0.145: a cleared session injects afresh
    if key and not ctx.tracker.start(key):
        inject = f"{_BANNER}\n{header}\n"
        stub = {"identity": {"name": "Agent"}, "memories": [], "inject": inject}
        return json_response({**stub, **warnings})
    project = opt_str(body.get("project"))
    rows = ctx.store.top_memories(agent_id, START_MEMORY_LIMIT)
    # Same-project memories first, pinned ones before everything (stable sort).
    rows.sort(key=lambda r: (not r["pinned"], project is None or r["project"] != project))
    description = "Signet agent (served by the signet-sdk mock daemon)"
    identity = {"name": "Agent", "description": description}
    lines = [_BANNER, header, "", "# Identity", f"Agent: {description}"]
    memories = []
    if rows:
        lines += ["", "# Memories"]
        used = sum(len(x) + 1 for x in lines)
        for row in rows:
            line = f"- {row['content']}"
            used += len(line) + 1
            if used > START_INJECT_CHARS:
                break
            lines.append(line)
            memories.append({k: row[k] for k in _BRIEF})
    result: Body = {"identity": identity, "memories": memories}
    memory_md = ctx.store.memory_md(agent_id)
    if memory_md:
        result["recentContext"] = memory_md[:10_000]
        lines += ["", "# Recent Context", memory_md[:10_000]]
    return json_response({**result, "inject": "\n".join(lines) + "\n", **warnings})


@_hook("user-prompt-submit", (), {"inject": "", "memoryCount": 0})
def _prompt(ctx: Context, req: Request, body: Body) -> Response:
    given = [body.get(n) for n in ("userMessage", "userPrompt")]
    message = next((m for m in given if isinstance(m, str) and m.strip()), "")
    ok = js_truthy(body.get("harness")) and message
    require(ok, "harness and userMessage or userPrompt are required")
    path = _runtime_path(req, body)
    key = opt_str(body.get("sessionKey"))
    known = ctx.tracker.owner(key) is not None if key else False
    noop = {"inject": "", "memoryCount": 0, "sessionKnown": known}
    _claim_or_skip(ctx, key, path, _agent(body), "user-prompt-submit", **noop)
    if key and not ctx.presence.touch(key):
        ctx.presence.upsert(key, body, path)
    _unless_bypassed(ctx, body, inject="", memoryCount=0)
    agent_id = ctx.agent(body.get("agentId"), body.get("sessionKey"))
    transcript = read_transcript(body, prefer_inline=False) if key else None
    if key and transcript:
        project, harness = opt_str(body.get("project")), str(body.get("harness"))
        norm = normalize_session_key(key)
        ctx.store.upsert_transcript(norm, agent_id, transcript, harness, project)
    warning = ctx.tracker.expiry_warning(key) if key else None
    if ctx.v145:
        return json_response({**_entity_prompt(message, warning), "sessionKnown": known})
    exclude = ctx.tracker.recently_injected(key) if key else frozenset()
    # The daemon also matches by meaning (embeddings); without them, any
    # shared word is the closest stand-in.
    filters = MemoryFilters(agent_id=agent_id)
    params = RecallParams(message, limit=PROMPT_RECALL_LIMIT, filters=filters, match_any=True)
    found = recall(ctx.store, dataclasses.replace(params, exclude_ids=exclude))["results"]
    # The best hit is always injected (cut to the budget); others while they fit.
    picked: list[Body] = []
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
    if picked:
        lines = [header, "", f"# Relevant Memories ({len(picked)})"]
        lines += [f"- {p['content']} [{p['type']}, {str(p['created_at'])[:10]}]" for p in picked]
        result: Body = {"inject": "\n".join(lines) + "\n", "memoryCount": len(picked)}
    else:
        guidance = (
            "# Memory Check\n"
            "No stored memory matched this prompt. If earlier context matters, search with "
            "/recall <query>; save anything worth keeping with /remember <fact>."
        )
        result = {"inject": f"{header}\n\n{guidance}\n", "memoryCount": 0}
    if terms:
        result["queryTerms"] = terms
    if picked:
        result["engine"] = "hybrid"
    if key:
        ctx.tracker.record_turn(key, frozenset(p["id"] for p in picked))
    if warning:
        result["warnings"] = [warning]
    return json_response({**result, "sessionKnown": known})


#: Prompts 0.145 never looks up entities for (after lower-casing and squeezing).
_LOW = "cool|got it|go ahead|great|k|kk|nice|ok|okay|okay cool|sounds good|sure|thanks|thank you"
LOW_SIGNAL_PROMPTS = frozenset([*_LOW.split("|"), "yes", "yes please", "yep"])


#: The daemon's hyphenated identifiers (``[a-zA-Z][a-zA-Z0-9]*-[a-zA-Z0-9]+(?:-...)*``),
#: tried only where a run of letters and digits begins: the same matches, but a
#: prompt of one 100,000-letter word takes linear time, not quadratic.
_HYPHENATED = re.compile(
    r"(?<![a-zA-Z0-9])[0-9]*([a-zA-Z][a-zA-Z0-9]*-[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*)"
)


def _entity_prompt(message: str, warning: str | None) -> Body:
    """0.145's prompt-submit: context only for a prompt naming a known entity (one with
    aspects, which only the extraction pipeline writes; the mock has none), so the
    answer is an empty inject and why: ``low-signal`` or ``no-entity``."""
    normalized = " ".join(re.sub(r"[^a-z0-9]+", " ", message.lower()).split())
    # Substantive words: hyphenated identifiers first, then words of three letters or more.
    hyphenated = re.findall(_HYPHENATED, message)
    words = [w for w in re.split(r"\W+", message.lower()) if len(w) >= 3 and not w.isdigit()]
    candidates = [h.lower() for h in hyphenated] + [w for w in words if w not in STOP_WORDS]
    terms = list(dict.fromkeys(candidates))
    low = not normalized or normalized in LOW_SIGNAL_PROMPTS or not terms
    result: Body = {"inject": "", "memoryCount": 0}
    if terms:
        result["queryTerms"] = " ".join(terms)[:80]
    result["engine"] = "low-signal" if low else "no-entity"
    if warning:
        result["warnings"] = [warning]
    return result


def _session_end_result(ctx: Context, body: Body, key: str | None) -> Body:
    agent_id = ctx.agent(body.get("agentId"), key)
    if key:
        ctx.tracker.reset(key, start=True)
    if body.get("reason") == "clear":
        return {"memoriesSaved": 0}
    harness = str(body.get("harness"))
    project = opt_str(body.get("cwd"))
    text = read_transcript(body, prefer_inline=False) or ""
    norm = normalize_session_key(key) if key else None
    stored = ctx.store.get_transcript(norm, agent_id) if norm else None
    if stored and len(stored["content"]) > len(text):
        text = str(stored["content"])
    session_id = opt_str(body.get("sessionId"))
    noise = is_noise_session(project, key, session_id, harness)
    if norm and text and not noise:
        ctx.store.upsert_transcript(norm, agent_id, text, harness, project)
    if not ctx.pipeline_enabled or len(text) < MIN_SUMMARY_CHARS:
        return {"memoriesSaved": 0}
    if noise:
        return {"memoriesSaved": 0, "queued": False}
    job = ("session_end", norm, session_id or norm, agent_id, harness, project)
    job_id = ctx.store.add_job(*job, truncate_for_job(text))
    data = {"jobId": job_id, "sessionKey": norm}
    ctx.logs.log("info", "hooks", "Session summary job queued", data)
    return {"memoriesSaved": 0, "queued": True, "jobId": job_id}


@_hook("session-end", internal={"memoriesSaved": 0})
def _session_end(ctx: Context, req: Request, body: Body) -> Response:
    path = _runtime_path(req, body)
    key = _key(body.get("sessionKey")) or _key(body.get("sessionId"))
    if key and path:
        ended = ctx.tracker.ended(key)
        skip = {"memoriesSaved": 0, "skipped": True}
        if ended:
            ctx.logs.log("info", "hooks", "Duplicate session-end skipped", {"sessionKey": key})
            return json_response({**skip, "duplicateSessionEnd": True, "endedBy": ended})
        owner = ctx.tracker.owner(key) if ended is None else None
        if owner and owner != path:
            return json_response({**skip, "duplicateRuntimePath": True, "claimedBy": owner})
    _claim_or_skip(ctx, key, path, _agent(body), "session-end", memoriesSaved=0)
    if key and ctx.tracker.is_bypassed(key):
        result: Body = {"memoriesSaved": 0, "bypassed": True}
    else:
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


@_hook("session-checkpoint-extract", ("harness", "sessionKey"), {"skipped": True})
def _checkpoint(ctx: Context, req: Request, body: Body) -> Response:
    key = _key(body.get("sessionKey")) or ""
    path = _runtime_path(req, body)
    _claim_or_skip(ctx, key, path, _agent(body), "session-checkpoint-extract", skipped=True)
    skip = json_response({"skipped": True})
    if ctx.tracker.is_bypassed(key):
        return skip
    ctx.tracker.renew(key)
    if not ctx.pipeline_enabled:
        return skip
    agent_id = ctx.agent(body.get("agentId"), key)
    norm = normalize_session_key(key)
    inline = body.get("transcript")
    from_inline = isinstance(inline, str) and bool(inline.strip())
    text = read_transcript(body, prefer_inline=True)
    harness, project = str(body.get("harness")), opt_str(body.get("project"))
    if text:
        ctx.store.upsert_transcript(norm, agent_id, text, harness, project)
    else:
        stored = ctx.store.get_transcript(norm, agent_id)
        text = str(stored["content"]) if stored else None
    if not text:
        return skip
    data = text.encode("utf-8")
    cursor = ctx.store.cursor(norm, agent_id)
    delta = data if from_inline or cursor > len(data) else data[cursor:]
    if len(delta) < MIN_CHECKPOINT_BYTES:
        return skip
    ctx.store.cursor(norm, agent_id, move_to=len(data))
    job = ("checkpoint_extract", norm, norm, agent_id, harness, project)
    job_id = ctx.store.add_job(*job, truncate_for_job(delta.decode("utf-8", errors="ignore")))
    return json_response({"queued": True, "jobId": job_id})


@_hook("remember", ("harness", "content"), {"success": True, "memories": []})
def _remember(ctx: Context, req: Request, body: Body) -> Response:
    _conflict(ctx, req, body, success=True, memories=[])
    # The daemon re-posts the body to /api/memory/remember from loopback,
    # forwarding only Authorization: that call's remember guard sees the
    # caller's token (if any) as a loopback caller.
    denied = ctx.auth.require("remember", req.state.role, True)
    require(denied is None, str(denied), 403)
    try:
        return remember_memory(ctx, body, None)
    except JsTypeError:
        # The proxied route throws outside its own try/catch: Hono's plain 500.
        return text_response("Internal Server Error", 500)


@_hook("recall", ("harness", "query"), empty_hook_recall("", internal=True))
def _recall(ctx: Context, req: Request, body: Body) -> Response:
    if ctx.v145:
        check_recall_options(body)
    _conflict(ctx, req, body, **empty_hook_recall(body.get("query")))
    if not isinstance(body["query"], str):
        raise JsTypeError("query.trim is not a function")
    agent = req.headers.get("x-signet-agent-id")
    if ctx.v145 and body.get("agentId") is not None:
        agent = body["agentId"]
    agent_id = ctx.agent(agent, body.get("sessionKey"))
    params = recall_params(body, agent_id, with_extras=False)
    params = dataclasses.replace(params, query=body["query"])
    if ctx.v145 and body.get("aggregate") is True:
        return json_response(hook_recall_payload(aggregate_145(ctx, params, body)))
    if ctx.v145:
        included = body.get("includeRecalled") is True
        result = recall_145(ctx, params, body.get("sessionKey"), included, body.get("time"))
        return json_response(hook_recall_payload(result))
    return json_response(hook_recall_payload(recall(ctx.store, params)))


@_hook("pre-compaction")
def _pre_compaction(ctx: Context, req: Request, body: Body) -> Response:
    key = _key(body.get("sessionKey"))
    noop = {"guidelines": "", "instructions": "", "summaryPrompt": ""}
    path = _runtime_path(req, body)
    _claim_or_skip(ctx, key, path, ctx.agent(None, key), "pre-compaction", **noop)
    _unless_bypassed(ctx, body, instructions="")
    agent_id = ctx.agent(body.get("agentId"), key)
    lines = [
        "## Memory flush before compaction",
        "",
        "The context window is about to be compacted. Write a summary that lets this "
        "session continue without the dropped messages.",
        "",
        PRE_COMPACTION_GUIDELINES,
    ]
    recent = ctx.store.top_memories(agent_id, 5, newest=True)
    if recent:
        lines += ["", "## Recent memories"] + [f"- {r['content']}" for r in recent]
    session_context = body.get("sessionContext")
    if isinstance(session_context, str) and session_context.strip():
        lines += ["", "## Session context", session_context.strip()]
    prompt = "\n".join(lines) + "\n"
    return json_response({"summaryPrompt": prompt, "guidelines": PRE_COMPACTION_GUIDELINES})


@_hook("compaction-complete", ("harness", "summary"), message="Failed to save summary")
def _compaction_complete(ctx: Context, req: Request, body: Body) -> Response:
    key = _key(body.get("sessionKey"))
    path, agent = _runtime_path(req, body), _agent(body)
    _claim_or_skip(ctx, key, path, agent, "compaction-complete", success=True)
    _unless_bypassed(ctx, body, success=True)
    now = ctx.now()
    stamp = iso(now)
    agent_id = ctx.agent(body.get("agentId"), key)
    harness = str(body["harness"])
    summary = body["summary"] if isinstance(body["summary"], str) else str(body["summary"])
    norm = normalize_session_key(key) if key else None
    stored = ctx.store.get_transcript(norm, agent_id) if norm else None
    project = (stored["project"] if stored else None) or opt_str(body.get("project"))
    noise = is_noise_session(project, key, key or f"compaction:{stamp}", harness)
    memory_id: str | None = None
    if not noise:
        memory_id = ctx.store.add_memory(
            summary,
            agent_id=agent_id,
            type="session_summary",
            tags=f"session,summary,{harness}",
            who="system",
            project=project,
            source_type=harness,
            source_id=key,
            created_at=stamp,
            session_id=key if ctx.v145 else None,
        )
        node = {
            "id": f"{key}:compaction:{int(now * 1000)}" if key else str(uuid.uuid4()),
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
        }
        # 0.145 no longer links the summary memory to its node.
        ctx.store.add_summary_node(node, [] if ctx.v145 else [memory_id])
    message = "skipped (noise session)" if noise else "saved"
    data = {"harness": harness, "memoryId": memory_id or "skipped-temp-session"}
    ctx.logs.log("info", "hooks", f"Compaction summary {message}", data)
    epoch = ctx.advance_epoch(key, agent_id) if ctx.v145 else None
    if key and norm:
        ctx.tracker.reset(key)
        ctx.store.delete_transcript(norm, agent_id)
    answer: Body = {"success": True, "memoryId": memory_id}
    if epoch is not None:
        answer["contextEpoch"] = epoch  # 0.145: recall dedupe starts a new epoch
    return json_response(answer)


def _synthesis_agent(ctx: Context, req: Request, body: Body) -> str:
    agent, key = body.get("agentId"), body.get("sessionKey")
    return ctx.agent(
        req.headers.get("x-signet-agent-id") if agent is None else agent,
        req.headers.get("x-signet-session-key") if key is None else key,
    )


@ROUTES.add("GET", "/api/hooks/synthesis/config")
def _synthesis_config(ctx: Context, req: Request) -> Response:
    provider = ctx.synthesis_provider
    config = {"enabled": provider != "none", "provider": provider, **SYNTHESIS_CONFIG}
    if ctx.v145:
        del config["structuredOutput"]
    return json_response(config)


@_hook("synthesis", (), message="Synthesis request failed")
def _synthesis(ctx: Context, req: Request, body: Body) -> Response:
    agent_id = _synthesis_agent(ctx, req, body)
    rows = ctx.store.top_memories(agent_id, 100)
    lines = [f"# MEMORY.md ({agent_id})", "", f"_Rendered {iso(ctx.now())}_"]
    for title, pinned in (("Pinned", True), ("Working memory", False)):
        group = [f"- {r['content']}" for r in rows if bool(r["pinned"]) is pinned]
        if group:
            lines += ["", f"## {title}", *group]
    answer: Body = {"harness": "daemon", "model": "projection", "prompt": "\n".join(lines) + "\n"}
    if not ctx.v145:
        return json_response({**answer, "fileCount": 1})
    # 0.145 ends the prompt with a temporal index of the summary nodes, and sends it too.
    nodes, _total = ctx.store.list_summaries(agent_id, None, None, 50, 0)
    index = ["## Temporal Index", ""]
    for n in nodes:
        index.append(
            f"- id={n['id']} kind={n['kind']} source={n['source_type']} depth={n['depth']} "
            f"session={n['session_key']} project={n['project']} latest={n['latest_at']}"
        )
        index.append(f"  summary: {' '.join(str(n['content']).split())[:200]}")
    if not nodes:
        index.append("- no summaries yet")
    block = "\n".join(index)
    answer["prompt"] += "\n" + block
    return json_response({**answer, "fileCount": 1, "indexBlock": block})


@_hook("synthesis/complete", ("content",), message="Failed to save MEMORY.md")
def _synthesis_complete(ctx: Context, req: Request, body: Body) -> Response:
    require(ctx.synthesis_worker, "Synthesis worker not running", 503)
    agent_id = _synthesis_agent(ctx, req, body)
    ctx.store.memory_md(agent_id, str(body["content"]))
    ctx.logs.log("info", "hooks", "MEMORY.md synthesized", {"agentId": agent_id})
    return json_response({"success": True})
