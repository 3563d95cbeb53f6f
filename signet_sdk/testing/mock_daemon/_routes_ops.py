"""Operational routes: ``/health``, ``/api/logs``, the log stream and ``/api/secrets/exec``.

The stream follows TS 0.109: a ``connected`` frame, then one ``data:`` frame
per entry, no ``event:``/``id:`` fields or keep-alives, until the client
leaves or the daemon closes its streams. Secrets exec never uses a shell (shell
metacharacters get a 200 ``code:1`` body) and redacts secret values longer
than three characters, so a test can prove a secret reached the process only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import subprocess
from collections.abc import AsyncIterator, Mapping
from typing import Any

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from ._context import Context, Subscriber
from ._jobs import NAME_RULE, SECRET_NAME, SHELL_META, QueueFull, normalize_timeout, redact
from ._rules import parse_leading_int
from ._web import BadJson, Reply, Routes, body_json, error, json_response, query_arg, require

#: Health and log routes; the secrets route is registered after the hooks; 0.145 adds
#: the job poll and storing a secret.
ROUTES, SECRET_ROUTES, NEWER_SECRET_ROUTES = Routes(), Routes(), Routes()


def _resources() -> dict[str, Any]:
    try:
        import resource
    except ImportError:  # not on Windows
        return {}
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"maxRssKb": usage.ru_maxrss, "userCpuSeconds": round(usage.ru_utime, 3)}


@ROUTES.add("GET", "/health")
def _health_route(ctx: Context, req: Request) -> Response:
    pending = sum(1 for job in ctx.store.jobs() if job["status"] == "pending")
    db_path = ctx.store.path
    return json_response(
        {
            "status": "healthy",
            "uptime": round(max(0.0, ctx.now() - ctx.started_at), 3),
            "pid": os.getpid(),
            "version": ".".join(map(str, ctx.version)),
            "port": ctx.port if ctx.port is not None else 3850,
            "agentsDir": os.path.dirname(os.path.abspath(db_path)) if db_path else ":memory:",
            "db": True,
            "shuttingDown": False,
            "updateAvailable": False,
            "pendingRestart": False,
            "pipeline": {
                "extractionRunning": ctx.pipeline_enabled,
                "extractionStalled": False,
                "extractionPending": pending,
                "extractionBackoffMs": 0,
            },
            "resources": _resources(),
        }
    )


@ROUTES.add("GET", "/api/logs")
def _logs_route(ctx: Context, req: Request) -> Response:
    limit = parse_leading_int(query_arg(req, "limit") or "100")
    names = ("level", "category", "since")
    level, category, since = (query_arg(req, name) or None for name in names)
    logs = ctx.logs.recent(100 if limit is None else limit, level, category, since)
    return json_response({"logs": logs, "count": len(logs)})


async def _frames(sub: Subscriber) -> AsyncIterator[bytes]:
    """Forward entries until the stream is closed (Starlette ends it when the client leaves)."""
    entry: dict[str, Any] | None = {"type": "connected"}
    while entry is not None:
        yield f"data: {json.dumps(entry, separators=(',', ':'), ensure_ascii=False)}\n\n".encode()
        entry = await sub[1].get()


@ROUTES.add("GET", "/api/logs/stream")
def _stream_route(ctx: Context, req: Request) -> Response:
    # The content type goes in as a header: Starlette would add a charset.
    head = {"content-type": "text/event-stream", "cache-control": "no-cache"}
    if req.method == "HEAD":  # headers only; a body would never end
        return Response(b"", headers=head)
    # Subscribe before the head is sent, so nothing logged after the client
    # sees "connected" can be missed.
    sub = ctx.logs.subscribe()
    done = BackgroundTask(ctx.logs.unsubscribe, sub)
    head["connection"] = "keep-alive"
    return StreamingResponse(_frames(sub), headers=head, background=done)


def split_command(command: str) -> list[str]:
    """Split on whitespace; single or double quotes group words, an unclosed quote runs to
    the end (backslashes never get here: they are shell metacharacters)."""
    for tail in ("", "'", '"'):
        with contextlib.suppress(ValueError):
            return shlex.split(command + tail)
    raise AssertionError("unreachable: one of the tails closes the open quote")


def _resolve(ref: object, store: Mapping[str, str]) -> str:
    """A secret reference's value, or the route's 500 naming what is wrong."""
    require(isinstance(ref, str), "secret reference must be a string", 500)
    no_op = "1Password is not configured (OP_SERVICE_ACCOUNT_TOKEN is not set)"
    require(not str(ref).startswith("op://"), no_op, 500)
    name = str(ref).removeprefix("local://")
    require(SECRET_NAME.match(name), f"Invalid secret name '{name}'", 500)
    require(name in store, f"Secret '{name}' not found", 500)
    return store[name]


def _exec_body(req: Request) -> dict[str, Any]:
    """The exec body: malformed JSON and ``null`` throw inside the route's try (500)."""
    try:
        body = body_json(req)
    except BadJson as exc:
        raise Reply(error(f"JSON Parse error: {exc}", 500)) from None
    require(body is not None, "Cannot read properties of null (reading 'command')", 500)
    return body if isinstance(body, dict) else {}


@SECRET_ROUTES.add("POST", "/api/secrets/exec", "admin")
async def _exec_route(ctx: Context, req: Request) -> Response:
    body = _exec_body(req)
    if ctx.v145:
        return _exec_job_route(ctx, body)
    command, refs = body.get("command"), body.get("secrets")
    require(isinstance(command, str) and command, "command is required")
    require(isinstance(refs, dict) and refs, "secrets map is required")
    assert isinstance(command, str) and isinstance(refs, dict)
    if SHELL_META.search(command):
        return json_response(
            {"stdout": "", "stderr": "command contains disallowed shell metacharacters", "code": 1}
        )
    with ctx.lock:
        store = dict(ctx.secrets)
    injected = {str(var): _resolve(ref, store) for var, ref in refs.items()}
    argv = split_command(command)
    require(argv, "spawn  ENOENT", 500)
    env = {**os.environ, **injected}
    try:
        done = await asyncio.to_thread(
            subprocess.run, argv, env=env, capture_output=True, stdin=subprocess.DEVNULL
        )
    except OSError as exc:
        kind = {FileNotFoundError: "ENOENT", PermissionError: "EACCES"}.get(type(exc))
        return error(f"spawn {argv[0]} {kind or f'failed: {exc.strerror}'}", 500)
    ctx.logs.log("info", "secrets", "Command executed with secrets", {"code": done.returncode})
    out, err = (
        redact(b.decode(errors="replace"), injected.values()) for b in (done.stdout, done.stderr)
    )
    return json_response({"stdout": out, "stderr": err, "code": done.returncode})


def _exec_job_route(ctx: Context, body: dict[str, Any]) -> Response:
    """0.145: validate, queue the job, answer it with 202 (429 when the queue is full)."""
    command, refs = body.get("command"), body.get("secrets")
    require(isinstance(command, str) and command.strip(), "command is required")
    values = refs.values() if isinstance(refs, dict) else [None]
    valid = refs and all(isinstance(v, str) and v.strip() for v in values)
    require(valid, "non-empty secrets map is required")
    assert isinstance(command, str) and isinstance(refs, dict)
    timeout_ms = normalize_timeout(body.get("timeoutMs"))
    with ctx.lock:
        store = dict(ctx.secrets)
    try:
        job = ctx.exec_jobs.start(command, refs, store, timeout_ms)
    except QueueFull as exc:
        ctx.logs.log("error", "secrets", "exec_with_secrets failed", error=exc)
        return error(str(exc), 429)
    data = {"jobId": job["id"], "secretCount": len(refs), "timeoutMs": timeout_ms}
    ctx.logs.log("info", "secrets", "exec_with_secrets queued", data)
    return json_response(job, 202)


@NEWER_SECRET_ROUTES.add("GET", "/api/secrets/exec/{jobId}", "admin")
def _exec_status_route(ctx: Context, req: Request) -> Response:
    job = ctx.exec_jobs.get(req.path_params["jobId"])
    require(job is not None, "secret exec job not found", 404)
    return json_response(job)


@SECRET_ROUTES.add("POST", "/api/secrets/{name}", "admin")
def _store_secret_route(ctx: Context, req: Request) -> Response:
    """Store a secret (as ``signet secret put`` does), so a scenario can exec with it;
    every failure inside is a 400 with its message."""
    name = req.path_params["name"]
    try:
        body = body_json(req)
    except BadJson as exc:
        return error(f"JSON Parse error: {exc}")
    value = body.get("value") if isinstance(body, dict) else None
    require(body is not None, "Cannot read properties of null (reading 'value')")
    require(isinstance(value, str) and value, "value is required")
    bad_name = f"Invalid secret name '{name}'. {NAME_RULE}"
    require(SECRET_NAME.match(name), bad_name)
    ctx.secrets[name] = str(value)
    ctx.logs.log("info", "secrets", "Secret stored", {"name": name})
    return json_response({"success": True, "name": name})
