"""Every endpoint through both clients: the exact request the daemon receives, and the result.

Each row names a client method, how to call it, and what must reach the wire
(method, path, query, JSON body). The same table runs against the sync and
the async client, so the two cannot drift in behaviour.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import respx

import signet_sdk as s
import signet_sdk.models as models
from signet_sdk import AdapterClient, AsyncAdapterClient

from .client_support import EndpointCall

BASE = "http://127.0.0.1:3999"
HOOK = {"harness": "openclaw", "runtimePath": "plugin", "agentId": "alice"}


@dataclass
class Row(EndpointCall):
    """A call, the JSON body it must send, the daemon's answer and the result type it gives."""

    body: dict[str, Any] | None
    answer: Any
    result: type
    query: dict[str, str] = field(default_factory=dict)
    check: Callable[[Any], bool] = lambda r: True


ROWS = [
    Row(
        "on_session_start",
        lambda: (s.SessionStartParams(session_key="s1", project="/repo"),),
        "POST",
        "/api/hooks/session-start",
        {"sessionKey": "s1", "project": "/repo", **HOOK},
        {"identity": {"name": "Mia"}, "memories": [], "inject": "hello", "newField": 1},
        s.SessionStartResult,
        check=lambda r: r.inject == "hello" and r.model_extra == {"newField": 1},
    ),
    Row(
        "on_user_prompt_submit",
        lambda: (
            s.UserPromptSubmitParams(
                session_key="s1", user_message="deploy?", memory_feedback={"m1": 0.5}
            ),
        ),
        "POST",
        "/api/hooks/user-prompt-submit",
        {"sessionKey": "s1", "userMessage": "deploy?", "memory_feedback": {"m1": 0.5}, **HOOK},
        {"inject": "ctx", "memoryCount": 2, "sessionKnown": False},
        s.UserPromptSubmitResult,
        check=lambda r: r.memory_count == 2 and r.session_known is False,
    ),
    Row(
        "on_session_end",
        lambda: (s.SessionEndParams(session_key="s1", cwd="/repo", reason="exit"),),
        "POST",
        "/api/hooks/session-end",
        {"sessionKey": "s1", "cwd": "/repo", "reason": "exit", **HOOK},
        {"memoriesSaved": 0, "skipped": True, "duplicateSessionEnd": True, "endedBy": "plugin"},
        s.SessionEndResult,
        check=lambda r: r.did_nothing and r.duplicate_session_end and r.ended_by == "plugin",
    ),
    Row(
        "on_session_checkpoint",
        lambda: (s.CheckpointExtractParams(session_key="s1", transcript="t"),),
        "POST",
        "/api/hooks/session-checkpoint-extract",
        {"sessionKey": "s1", "transcript": "t", **HOOK},
        {"queued": True, "jobId": "j1"},
        s.CheckpointExtractResult,
        check=lambda r: r.job_id == "j1",
    ),
    Row(
        "on_pre_compaction",
        lambda: (s.PreCompactionParams(session_key="s1", message_count=4),),
        "POST",
        "/api/hooks/pre-compaction",
        {"sessionKey": "s1", "messageCount": 4, **HOOK},
        {"summaryPrompt": "sum", "guidelines": "g"},
        s.PreCompactionResult,
        check=lambda r: r.summary_prompt == "sum",
    ),
    Row(
        "on_compaction_complete",
        lambda: (s.CompactionCompleteParams(session_key="s1", summary="S"),),
        "POST",
        "/api/hooks/compaction-complete",
        {"sessionKey": "s1", "summary": "S", **HOOK},
        {"success": True, "memoryId": None},
        s.CompactionCompleteResult,
        check=lambda r: r.success and r.memory_id is None,
    ),
    Row(
        "remember",
        lambda: (s.RememberParams(content="fact", tags=["a", "b"]),),
        "POST",
        "/api/hooks/remember",
        {"content": "fact", "tags": ["a", "b"], **HOOK},
        {"id": "m1", "deduped": True},
        s.RememberResult,
        check=lambda r: r.id == "m1" and r.deduped,
    ),
    Row(
        "recall",
        lambda: (s.RecallParams(query="deploy", limit=3),),
        "POST",
        "/api/hooks/recall",
        {"query": "deploy", "limit": 3, **HOOK},
        {
            "results": [{"id": "m1", "content": "c", "score": 0.9, "created_at": "2026-01-01"}],
            "query": "deploy",
            "method": "hybrid",
        },
        s.RecallResult,
        check=lambda r: r.results[0].created_at == "2026-01-01",
    ),
    Row(
        "synthesis_config",
        lambda: (),
        "GET",
        "/api/hooks/synthesis/config",
        None,
        {
            "enabled": True,
            "provider": "none",
            "model": "m",
            "timeout": 1,
            "maxTokens": 2000,
            "idleGapMinutes": 5,
        },
        models.SynthesisConfig,
    ),
    Row(
        "request_synthesis",
        lambda: (),
        "POST",
        "/api/hooks/synthesis",
        {"agentId": "alice"},
        {"harness": "daemon", "model": "projection", "prompt": "# M", "fileCount": 1},
        models.SynthesisResult,
    ),
    Row(
        "complete_synthesis",
        lambda: (models.SynthesisCompleteRequest(content="# MEMORY"),),
        "POST",
        "/api/hooks/synthesis/complete",
        {"content": "# MEMORY", "agentId": "alice"},
        {"success": True},
        models.SynthesisCompleteResult,
    ),
    Row(
        "list_sessions",
        lambda: (),
        "GET",
        "/api/sessions",
        None,
        {"sessions": [], "count": 0},
        models.SessionList,
    ),
    Row(
        "get_session",
        lambda: ("agent:alice:x/y",),
        "GET",
        "/api/sessions/agent%3Aalice%3Ax%2Fy",
        None,
        {
            "key": "agent:alice:x/y",
            "runtimePath": "plugin",
            "claimedAt": "t",
            "expiresAt": None,
            "bypassed": False,
        },
        models.SessionInfo,
    ),
    Row(
        "get_session_transcript",
        lambda: ("s1",),
        "GET",
        "/api/sessions/s1/transcript",
        None,
        {"sessionKey": "s1", "agentId": "alice", "content": "x"},
        models.SessionTranscript,
    ),
    Row(
        "search_sessions",
        lambda: (models.SessionSearchRequest(query="deploy"),),
        "POST",
        "/api/sessions/search",
        {"query": "deploy"},
        {"query": "deploy", "hits": [], "count": 0},
        models.SessionSearchResult,
    ),
    Row(
        "list_session_summaries",
        lambda: (),
        "GET",
        "/api/sessions/summaries",
        None,
        {"summaries": [], "total": 0},
        models.SessionSummaryList,
    ),
    Row(
        "expand_session_summary",
        lambda: (models.SummaryExpandRequest(id="n1"),),
        "POST",
        "/api/sessions/summaries/expand",
        {"id": "n1"},
        {"node": {"id": "n1"}, "parents": [], "children": [], "linkedMemories": []},
        models.SummaryExpandResult,
    ),
    Row(
        "set_session_bypass",
        lambda: ("s1", True),
        "POST",
        "/api/sessions/s1/bypass",
        {"enabled": True},
        {"key": "s1", "bypassed": True},
        models.SessionBypassResult,
    ),
    Row(
        "renew_session",
        lambda: ("s1",),
        "POST",
        "/api/sessions/s1/renew",
        {},
        {"key": "s1", "renewed": True},
        models.SessionRenewResult,
    ),
    Row(
        "memory_recall",
        lambda: (models.MemoryRecallRequest(query="q", importance_min=0.5),),
        "POST",
        "/api/memory/recall",
        {"query": "q", "importance_min": 0.5},
        {"results": [], "query": "q", "method": "keyword"},
        models.MemoryRecallResult,
    ),
    Row(
        "memory_remember",
        lambda: (models.MemoryRememberRequest(content="c", source_type="manual"),),
        "POST",
        "/api/memory/remember",
        {"content": "c", "sourceType": "manual"},
        {"id": "m2"},
        s.RememberResult,
    ),
    Row(
        "get_memory",
        lambda: ("m1",),
        "GET",
        "/api/memory/m1",
        None,
        {"id": "m1", "content": "c", "pinned": 0, "is_deleted": 0},
        models.MemoryRecord,
    ),
    Row(
        "modify_memory",
        lambda: ("m1", models.ModifyMemoryRequest(reason="fix", content="new", if_version=2)),
        "PATCH",
        "/api/memory/m1",
        {"reason": "fix", "content": "new", "if_version": 2},
        {"id": "m1", "status": "updated", "currentVersion": 2, "newVersion": 3},
        models.ModifyMemoryResult,
    ),
    Row(
        "modify_memories",
        lambda: (
            models.BatchModifyRequest(
                patches=[models.MemoryPatch(id="m1", pinned=True)], reason="r"
            ),
        ),
        "POST",
        "/api/memory/modify",
        {"patches": [{"id": "m1", "pinned": True}], "reason": "r"},
        {"total": 1, "updated": 1, "results": []},
        models.BatchModifyResult,
    ),
    Row(
        "forget_memory",
        lambda: ("m1", models.ForgetMemoryRequest(reason="wrong", force=True)),
        "DELETE",
        "/api/memory/m1",
        {"reason": "wrong", "force": True},
        {"id": "m1", "status": "deleted", "currentVersion": 1, "newVersion": 2},
        models.ForgetMemoryResult,
    ),
    Row(
        "forget_memories",
        lambda: (models.BatchForgetRequest(mode="preview", query="old"),),
        "POST",
        "/api/memory/forget",
        {"mode": "preview", "query": "old"},
        {
            "mode": "preview",
            "count": 0,
            "requiresConfirm": False,
            "confirmToken": "x",
            "candidates": [],
        },
        models.BatchForgetResult,
    ),
    Row(
        "secrets_exec",
        lambda: (models.SecretsExecRequest(command="env", secrets={"K": "k"}),),
        "POST",
        "/api/secrets/exec",
        {"command": "env", "secrets": {"K": "k"}},
        {"stdout": "", "stderr": "", "code": 0},
        models.SecretsExecResult,
    ),
    Row(
        "secrets_exec_status",
        lambda: ("job-1",),
        "GET",
        "/api/secrets/exec/job-1",
        None,
        {
            "id": "job-1",
            "status": "completed",
            "timeoutMs": 1000,
            "result": {"stdout": "ok", "stderr": "", "code": 0},
        },
        models.SecretsExecJob,
        check=lambda r: r.finished and r.result.stdout == "ok",
    ),
    Row(
        "health",
        lambda: (),
        "GET",
        "/health",
        None,
        {"status": "healthy", "uptime": 3},
        models.HealthStatus,
    ),
    Row("logs", lambda: (), "GET", "/api/logs", None, {"logs": [], "count": 0}, models.LogList),
]
ROWS[11].query = {"agent_id": "bob"}
ROWS[11].args = lambda: ()


def client_kwargs() -> dict[str, Any]:
    return dict(token="tok", agent_id="alice", runtime_path="plugin", actor="t", actor_type="sdk")


def assert_request(req: httpx.Request, row: Row) -> None:
    assert req.method == row.http
    assert req.url.raw_path.decode().split("?")[0] == row.path
    assert req.headers["authorization"] == "Bearer tok"
    assert req.headers["x-signet-agent-id"] == "alice"
    assert req.headers["x-signet-actor"] == "t"
    assert req.headers["x-signet-actor-type"] == "sdk"
    hook = row.path.startswith("/api/hooks/") and "synthesis" not in row.path
    assert req.headers.get("x-signet-runtime-path") == ("plugin" if hook else None)
    if row.body is None:
        assert req.content == b""
    else:
        assert req.headers["content-type"] == "application/json"
        assert json.loads(req.content) == row.body


SCOPED_BY_QUERY = {"get_session", "get_session_transcript", "set_session_bypass", "renew_session"}


def expected_query(row: Row) -> dict[str, str]:
    """Session routes are scoped by the ``agent_id`` query (the daemon reads no header there):
    the argument when given, else the client's agent."""
    if row.method == "list_sessions":
        return {"agent_id": "bob"}
    if row.method in SCOPED_BY_QUERY:
        return {"agent_id": "alice"}
    return {}


def call_args(row: Row) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if row.method == "list_sessions":
        return (), {"agent_id": "bob"}
    return row.args(), {}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.method)
def test_sync_endpoint(row: Row) -> None:
    with respx.mock(base_url=BASE, assert_all_called=True) as mock:
        route = row.route(mock).respond(200, json=row.answer)
        with AdapterClient("openclaw", BASE, **client_kwargs()) as client:
            args, kwargs = call_args(row)
            result = getattr(client, row.method)(*args, **kwargs)
        assert route.call_count == 1
        req = route.calls[0].request
    assert_request(req, row)
    assert dict(req.url.params) == expected_query(row)
    assert isinstance(result, row.result)
    assert row.check(result)


@pytest.mark.anyio
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.method)
async def test_async_endpoint(row: Row) -> None:
    with respx.mock(base_url=BASE, assert_all_called=True) as mock:
        route = row.route(mock).respond(200, json=row.answer)
        async with (
            httpx.AsyncClient() as http,
            AsyncAdapterClient("openclaw", BASE, http_client=http, **client_kwargs()) as client,
        ):
            args, kwargs = call_args(row)
            result = await getattr(client, row.method)(*args, **kwargs)
        req = route.calls[0].request
    assert_request(req, row)
    assert isinstance(result, row.result)
    assert row.check(result)


def test_every_public_endpoint_method_is_in_the_table() -> None:
    from signet_sdk.wire.endpoints import ENDPOINTS

    covered = {r.path.split("?")[0] for r in ROWS}
    templates = {e.path for e in ENDPOINTS if e.name != "logs_stream"}
    for t in templates:
        prefix = t.split("{")[0]
        assert any(p.startswith(prefix) for p in covered), t
