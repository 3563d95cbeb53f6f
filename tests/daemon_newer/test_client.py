"""Every client method, sync and async, against answers of daemons newer than 0.145.8.

Each row calls one public method and replays one answer from
:mod:`test_answers` (shaped as upstream's source writes it, the
source cited there); the result must be the typed model with the newer
fields read. Then the statuses those daemons add: a 409
``episodic_content_immutable`` raises ``ConflictError`` naming the code, and a
503 that sheds load (over 8 prompt submissions or 8 memory captures in
flight) is asked once, never again within the call.
"""

from __future__ import annotations

import inspect
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
from signet_sdk.models import (
    HookNotifications,
    NotificationsParams,
    NotificationsResult,
)
from signet_sdk.wire.lifecycle import LifecycleCall

from ..client.client_support import EndpointCall
from .test_answers import (
    ANSWERS,
    CLOCK,
    IMMUTABLE,
    NOTIFICATION_INJECT,
    OVERLOADED_CAPTURE,
    OVERLOADED_PROMPT,
    STABLE,
    Answer,
)

BASE = "http://127.0.0.1:3998"
HOOK = {"harness": "claude-code", "runtimePath": "legacy", "agentId": "alice"}


@dataclass
class Row(EndpointCall):
    """A call, the newer daemon's answer it replays (a key of ``ANSWERS``), what the
    result must show, and the JSON body it must send."""

    answer: str
    check: Callable[[Any], bool]
    body: dict[str, Any] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)


ROWS = [
    Row(
        "on_session_start",
        lambda: (s.SessionStartParams(session_key="session-7", claim_only=False),),
        "POST",
        "/api/hooks/session-start",
        "session_start",
        lambda r: r.stable_system_prompt == STABLE and r.context_version == 1,
        {"sessionKey": "session-7", "claimOnly": False, **HOOK},
    ),
    Row(
        "on_user_prompt_submit",
        lambda: (s.UserPromptSubmitParams(session_key="session-7", user_message="deploy?"),),
        "POST",
        "/api/hooks/user-prompt-submit",
        "user_prompt_submit",
        lambda r: r.clock_context == CLOCK and r.memory_count == 1 and r.context_hash,
        {"sessionKey": "session-7", "userMessage": "deploy?", **HOOK},
    ),
    Row(
        "on_session_end",
        lambda: (
            s.SessionEndParams(session_key="session-7", captured_at="2026-11-27T09:14:05.512Z"),
        ),
        "POST",
        "/api/hooks/session-end",
        "session_end",
        lambda r: r.transcript_capture_job_id.startswith("tcj_"),
        {"sessionKey": "session-7", "capturedAt": "2026-11-27T09:14:05.512Z", **HOOK},
    ),
    Row(
        "on_session_checkpoint",
        lambda: (s.CheckpointExtractParams(session_key="session-7"),),
        "POST",
        "/api/hooks/session-checkpoint-extract",
        "session_checkpoint_extract",
        lambda r: r.did_nothing,
        {"sessionKey": "session-7", **HOOK},
    ),
    Row(
        "on_pre_compaction",
        lambda: (s.PreCompactionParams(session_key="session-7"),),
        "POST",
        "/api/hooks/pre-compaction",
        "pre_compaction",
        lambda r: r.guidelines == "Summarize decisions.",
        {"sessionKey": "session-7", **HOOK},
    ),
    Row(
        "on_compaction_complete",
        lambda: (s.CompactionCompleteParams(summary="Moved deploys.", session_key="session-7"),),
        "POST",
        "/api/hooks/compaction-complete",
        "compaction_complete",
        lambda r: r.context_epoch == 3 and r.success,
        {"summary": "Moved deploys.", "sessionKey": "session-7", **HOOK},
    ),
    Row(
        "remember",
        lambda: (s.RememberParams(content="Atlas deploys go through `make ship`."),),
        "POST",
        "/api/hooks/remember",
        "remember",
        lambda r: r.entities_linked == 0 and r.model_extra == {"structured_applied": False},
        {"content": "Atlas deploys go through `make ship`.", **HOOK},
    ),
    Row(
        "recall",
        lambda: (s.RecallParams(query="atlas deploy"),),
        "POST",
        "/api/hooks/recall",
        "recall",
        lambda r: r.count == 1 and r.results[0].score == 0.91,
        {"query": "atlas deploy", **HOOK},
    ),
    Row(
        "call_lifecycle",
        lambda: (LifecycleCall("user_prompt_submit", {"userPrompt": "status?"}),),
        "POST",
        "/api/hooks/user-prompt-submit",
        "user_prompt_submit_notifications_only",
        lambda r: (
            isinstance(r.notifications, HookNotifications) and r.inject == NOTIFICATION_INJECT
        ),
        {"userPrompt": "status?", **HOOK},
    ),
    Row(
        "hook_notifications",
        lambda: (NotificationsParams(hook="PreToolUse", session_key="session-7"),),
        "POST",
        "/api/hooks/notifications",
        "hook_notifications",
        lambda r: isinstance(r, NotificationsResult) and r.notifications.hook == "PreToolUse",
        {"hook": "PreToolUse", "sessionKey": "session-7", **HOOK},
    ),
    Row(
        "synthesis_config",
        lambda: (),
        "GET",
        "/api/hooks/synthesis/config",
        "synthesis_config",
        lambda r: r.enabled,
    ),
    Row(
        "request_synthesis",
        lambda: (models.SynthesisRequest(trigger="manual"),),
        "POST",
        "/api/hooks/synthesis",
        "synthesis_request",
        lambda r: r.file_count == 2,
        {"trigger": "manual", "agentId": "alice"},
    ),
    Row(
        "complete_synthesis",
        lambda: (models.SynthesisCompleteRequest(content="# MEMORY"),),
        "POST",
        "/api/hooks/synthesis/complete",
        "synthesis_complete",
        lambda r: r.success,
        {"content": "# MEMORY", "agentId": "alice"},
    ),
    Row(
        "list_sessions",
        lambda: (),
        "GET",
        "/api/sessions",
        "list_sessions",
        lambda r: r.sessions[0].runtime_path == "plugin",
    ),
    Row(
        "get_session",
        lambda: ("session-6",),
        "GET",
        "/api/sessions/session-6",
        "get_session",
        lambda r: r.runtime_path == "transcript" and r.model_extra["status"] == "stored",
    ),
    Row(
        "get_session_transcript",
        lambda: ("session-6",),
        "GET",
        "/api/sessions/session-6/transcript",
        "get_session_transcript",
        lambda r: r.content == "user: ship it\n",
    ),
    Row(
        "search_sessions",
        lambda: (models.SessionSearchRequest(query="atlas"),),
        "POST",
        "/api/sessions/search",
        "search_sessions",
        lambda r: r.hits == [] and r.count == 0,
        {"query": "atlas"},
    ),
    Row(
        "list_session_summaries",
        lambda: (),
        "GET",
        "/api/sessions/summaries",
        "list_session_summaries",
        lambda r: r.summaries[0].source_type == "compaction" and r.total == 1,
    ),
    Row(
        "expand_session_summary",
        lambda: (models.SummaryExpandRequest(id="session-7:compaction:1795645920000"),),
        "POST",
        "/api/sessions/summaries/expand",
        "expand_session_summary",
        lambda r: r.node.source_ref == "session-7" and r.linked_memories[0].deleted is False,
        {"id": "session-7:compaction:1795645920000"},
    ),
    Row(
        "set_session_bypass",
        lambda: ("session-7", True),
        "POST",
        "/api/sessions/session-7/bypass",
        "set_session_bypass",
        lambda r: r.bypassed,
        {"enabled": True},
    ),
    Row(
        "renew_session",
        lambda: ("session-7",),
        "POST",
        "/api/sessions/session-7/renew",
        "renew_session",
        lambda r: r.renewed and r.expires_at,
        {},
    ),
    Row(
        "memory_recall",
        lambda: (models.MemoryRecallRequest(query="atlas deploy", min_score=0.5),),
        "POST",
        "/api/memory/recall",
        "memory_recall",
        lambda r: r.meta.no_hits is False and len(r.results) == 1,
        {"query": "atlas deploy", "minScore": 0.5},
    ),
    Row(
        "memory_remember",
        lambda: (
            models.MemoryRememberRequest(
                content="Atlas deploys go through `make ship`.",
                supersedes="0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b",
                reason="the target moved",
                review_after="2027-01-01T00:00:00.000Z",
            ),
        ),
        "POST",
        "/api/memory/remember",
        "memory_remember",
        lambda r: r.superseded == "superseded",
        {
            "content": "Atlas deploys go through `make ship`.",
            "reviewAfter": "2027-01-01T00:00:00.000Z",
            "supersedes": "0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b",
            "reason": "the target moved",
        },
    ),
    Row(
        "get_memory",
        lambda: ("0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b",),
        "GET",
        "/api/memory/0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b",
        "get_memory",
        lambda r: r.model_extra["memory_kind"] == "episodic" and r.version == 1,
    ),
    Row(
        "modify_memory",
        lambda: (
            "0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b",
            models.ModifyMemoryRequest(reason="r", tags="x"),
        ),
        "PATCH",
        "/api/memory/0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b",
        "modify_memory",
        lambda r: r.status == "updated" and r.new_version == 2,
        {"reason": "r", "tags": "x"},
    ),
    Row(
        "modify_memories",
        lambda: (
            models.BatchModifyRequest(
                patches=[
                    models.MemoryPatch(id="0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b", content="new")
                ],
                reason="r",
            ),
        ),
        "POST",
        "/api/memory/modify",
        "modify_memories",
        lambda r: [i.status for i in r.results] == ["episodic_content_immutable", "updated"],
        {
            "patches": [{"id": "0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b", "content": "new"}],
            "reason": "r",
        },
    ),
    Row(
        "forget_memory",
        lambda: ("0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b", models.ForgetMemoryRequest(reason="r")),
        "DELETE",
        "/api/memory/0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b",
        "forget_memory",
        lambda r: r.status == "deleted",
        {"reason": "r"},
    ),
    Row(
        "forget_memories",
        lambda: (models.BatchForgetRequest(query="atlas"),),
        "POST",
        "/api/memory/forget",
        "forget_memories",
        lambda r: r.candidates[0].score == 0.875,
        {"query": "atlas"},
    ),
    Row(
        "secrets_exec_start",
        lambda: (models.SecretsExecRequest(command="gh auth status", secrets={"GH_TOKEN": "gh"}),),
        "POST",
        "/api/secrets/exec",
        "secrets_exec_start",
        lambda r: r.status == "queued" and not r.finished,
        {"command": "gh auth status", "secrets": {"GH_TOKEN": "gh"}},
    ),
    Row(
        "secrets_exec_status",
        lambda: ("job-1",),
        "GET",
        "/api/secrets/exec/job-1",
        "secrets_exec_status",
        lambda r: r.finished and r.result.stdout == "ok\n",
    ),
    Row(
        "health",
        lambda: (),
        "GET",
        "/health",
        "health",
        lambda r: r.degraded and r.pipeline is None and r.workspace.status == "incomplete",
    ),
    Row("logs", lambda: (), "GET", "/api/logs", "logs", lambda r: r.count == 1),
]

#: Methods that are no daemon call of their own, or that chain rows above.
NOT_ONE_CALL = {"close", "aclose", "with_options", "daemon_version", "secrets_exec", "stream_logs"}


def test_every_public_method_is_replayed() -> None:
    for cls in (AdapterClient, AsyncAdapterClient):
        public = {n for n, _ in inspect.getmembers(cls, inspect.isfunction) if n[0] != "_"}
        assert public - NOT_ONE_CALL == {r.method for r in ROWS}, cls.__name__


def _respond(mock: respx.MockRouter, row: Row) -> respx.Route:
    answer = ANSWERS[row.answer]
    return row.route(mock).respond(answer.status, json=answer.body)


def _assert_sent(route: respx.Route, row: Row) -> None:
    assert route.call_count == 1
    request = route.calls[0].request
    if row.body is None:
        assert request.content == b""
    else:
        assert json.loads(request.content) == row.body


def client_options() -> dict[str, Any]:
    return {"agent_id": "alice", "runtime_path": "legacy"}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.method)
def test_sync_method_reads_the_newer_answer(row: Row) -> None:
    with respx.mock(base_url=BASE, assert_all_called=True) as mock:
        route = _respond(mock, row)
        with AdapterClient("claude-code", BASE, **client_options()) as client:
            result = getattr(client, row.method)(*row.args(), **row.kwargs)
    _assert_sent(route, row)
    assert row.check(result), result


@pytest.mark.anyio
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.method)
async def test_async_method_reads_the_newer_answer(row: Row) -> None:
    with respx.mock(base_url=BASE, assert_all_called=True) as mock:
        route = _respond(mock, row)
        async with (
            httpx.AsyncClient() as http,
            AsyncAdapterClient("claude-code", BASE, http_client=http, **client_options()) as c,
        ):
            result = await getattr(c, row.method)(*row.args(), **row.kwargs)
    _assert_sent(route, row)
    assert row.check(result), result


def test_secrets_exec_polls_a_newer_daemons_job_to_its_result() -> None:
    with respx.mock(base_url=BASE, assert_all_called=True) as mock:
        start = mock.post("/api/secrets/exec").respond(202, json=ANSWERS["secrets_exec_start"].body)
        poll = mock.get("/api/secrets/exec/job-1").respond(
            200, json=ANSWERS["secrets_exec_status"].body
        )
        with AdapterClient("claude-code", BASE) as client:
            client._sleep = lambda seconds: None  # type: ignore[method-assign,assignment]
            done = client.secrets_exec(models.SecretsExecRequest(command="env", secrets={"K": "k"}))
    assert (start.call_count, poll.call_count) == (1, 1)
    assert (done.stdout, done.code, done.timed_out) == ("ok\n", 0, False)


def test_a_job_is_looked_at_again_while_the_daemon_is_away_never_reported_as_not_sent() -> None:
    # The command has started: a NotSentError ("safe to retry") would invite
    # running it twice. A look that cannot connect is made again instead.
    refused = httpx.ConnectError("[Errno 111] Connection refused")
    with respx.mock(base_url=BASE, assert_all_called=True) as mock:
        mock.post("/api/secrets/exec").respond(202, json=ANSWERS["secrets_exec_start"].body)
        poll = mock.get("/api/secrets/exec/job-1").mock(
            side_effect=[
                refused,
                refused,
                httpx.Response(200, json=ANSWERS["secrets_exec_status"].body),
            ]
        )
        with AdapterClient("claude-code", BASE, max_retries=0) as client:
            client._sleep = lambda seconds: None  # type: ignore[method-assign,assignment]
            done = client.secrets_exec(models.SecretsExecRequest(command="env", secrets={"K": "k"}))
    assert poll.call_count == 3
    assert (done.stdout, done.code) == ("ok\n", 0)


def test_a_daemon_that_runs_the_command_within_the_request_gets_the_commands_time() -> None:
    # 0.109 answers only once the command is done: the one request's deadline
    # is the write timeout plus the command's timeoutMs, as on a newer daemon.
    seen: list[Any] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return httpx.Response(
            200, json={"stdout": "ok\n", "stderr": "", "code": 0, "timedOut": False}
        )

    with respx.mock(base_url=BASE, assert_all_called=True) as mock:
        mock.post("/api/secrets/exec").mock(side_effect=answer)
        with AdapterClient("claude-code", BASE, timeout=2.0) as client:
            done = client.secrets_exec(
                models.SecretsExecRequest(command="make", secrets={"K": "k"}, timeout_ms=60000)
            )
    assert done.stdout == "ok\n"
    assert [t["read"] for t in seen] == [62.0]


def test_log_stream_of_a_newer_daemon() -> None:
    entry = ANSWERS["logs"].body["logs"][0]
    sse = f'data: {{"type":"connected"}}\n\ndata: {json.dumps(entry)}\n\n'
    with respx.mock(base_url=BASE) as mock:
        mock.get("/api/logs/stream").respond(200, text=sse)
        with AdapterClient("claude-code", BASE) as client:
            got = list(client.stream_logs())
    assert [(e.level, e.category, e.message) for e in got] == [
        ("info", "hooks", "Session start completed")
    ]


def test_daemon_version_is_read_from_a_health_answer_without_a_pipeline_block() -> None:
    with respx.mock(base_url=BASE) as mock:
        mock.get("/health").respond(200, json=ANSWERS["health"].body)
        with AdapterClient("claude-code", BASE) as client:
            assert client.daemon_version() == "0.207.1"


# -- the notifications route on daemons that lack it --------------------------


@pytest.mark.parametrize(("version", "unsupported"), [("0.145.8", True), ("0.207.1", False)])
def test_notifications_on_a_daemon_without_the_route(version: str, unsupported: bool) -> None:
    with respx.mock(base_url=BASE) as mock:
        mock.post("/api/hooks/notifications").respond(
            404, text="404 Not Found", headers={"content-type": "text/plain"}
        )
        mock.get("/health").respond(200, json={"status": "healthy", "version": version})
        with AdapterClient("claude-code", BASE) as client, pytest.raises(s.NotFoundError) as info:
            client.hook_notifications(NotificationsParams(hook="PreToolUse"))
    assert isinstance(info.value, s.UnsupportedByDaemonError) is unsupported
    if unsupported:
        assert "needs Signet 0.145.9 or newer" in str(info.value)


def test_notifications_params_need_a_hook() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as info:
        NotificationsParams(hook="")
    assert info.value.errors()[0]["loc"] == ("hook",)


# -- 409 episodic_content_immutable --------------------------------------------


def _immutable(mock: respx.MockRouter) -> respx.Route:
    answer = ANSWERS["modify_memory_immutable"]
    return mock.patch("/api/memory/m1").respond(answer.status, json=answer.body)


def test_patching_remembered_content_raises_conflict_naming_the_code() -> None:
    with respx.mock(base_url=BASE) as mock:
        route = _immutable(mock)
        with AdapterClient("claude-code", BASE) as client, pytest.raises(s.ConflictError) as info:
            client.modify_memory("m1", models.ModifyMemoryRequest(reason="fix", content="new text"))
    err = info.value
    assert route.call_count == 1  # never repeated: the answer would be the same
    assert err.code == "episodic_content_immutable" and err.immutable_content
    assert err.claimed_by is None and err.error == IMMUTABLE
    assert str(err) == (
        f"PATCH {BASE}/api/memory/m1 -> 409 episodic_content_immutable: {IMMUTABLE}"
    )


@pytest.mark.anyio
async def test_patching_remembered_content_raises_conflict_naming_the_code_async() -> None:
    with respx.mock(base_url=BASE) as mock:
        route = _immutable(mock)
        async with (
            httpx.AsyncClient() as http,
            AsyncAdapterClient("claude-code", BASE, http_client=http) as client,
        ):
            with pytest.raises(s.ConflictError) as info:
                await client.modify_memory(
                    "m1", models.ModifyMemoryRequest(reason="fix", type="rule")
                )
    assert route.call_count == 1 and info.value.code == "episodic_content_immutable"


def test_other_conflict_codes_are_named_too() -> None:
    from signet_sdk.wire.errors import status_error

    body = {
        "id": "m1",
        "status": "version_conflict",
        "currentVersion": 2,
        "error": "Version conflict",
    }
    err = status_error(method="PATCH", url="u", status_code=409, body=body, headers={})
    assert isinstance(err, s.ConflictError) and err.code == "version_conflict"
    assert (
        not err.immutable_content
        and str(err) == "PATCH u -> 409 version_conflict: Version conflict"
    )
    claim = {"error": "session claimed by plugin path"}
    err = status_error(method="POST", url="u", status_code=409, body=claim, headers={})
    assert err.code is None and str(err) == "POST u -> 409: session claimed by plugin path"


# -- 503 that sheds load: asked once, never again within the call -------------


SHED = [
    ("on_user_prompt_submit", "/api/hooks/user-prompt-submit", "user_prompt_submit_overloaded"),
    ("remember", "/api/hooks/remember", "remember_overloaded"),
    ("memory_remember", "/api/memory/remember", "remember_overloaded"),
]


def _shed_args(method: str) -> tuple[Any, ...]:
    if method == "on_user_prompt_submit":
        return (s.UserPromptSubmitParams(user_message="deploy?"),)
    if method == "remember":
        return (s.RememberParams(content="keep me"),)
    return (models.MemoryRememberRequest(content="keep me"),)


@pytest.mark.parametrize(("method", "path", "answer"), SHED, ids=[m for m, _, _ in SHED])
def test_an_overloaded_503_is_not_repeated_within_the_call(
    method: str, path: str, answer: str
) -> None:
    reply: Answer = ANSWERS[answer]
    with respx.mock(base_url=BASE) as mock:
        route = mock.post(path).respond(reply.status, json=reply.body)
        with (
            AdapterClient("claude-code", BASE, max_retries=5) as client,
            pytest.raises(s.ServiceUnavailableError) as info,
        ):
            getattr(client, method)(*_shed_args(method))
    assert route.call_count == 1
    assert info.value.overloaded and not info.value.permanent
    assert info.value.error in (OVERLOADED_PROMPT, OVERLOADED_CAPTURE)


@pytest.mark.anyio
async def test_an_overloaded_503_is_not_repeated_within_the_call_async() -> None:
    reply = ANSWERS["user_prompt_submit_overloaded"]
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/api/hooks/user-prompt-submit").respond(503, json=reply.body)
        async with (
            httpx.AsyncClient() as http,
            AsyncAdapterClient("claude-code", BASE, http_client=http, max_retries=5) as client,
        ):
            with pytest.raises(s.ServiceUnavailableError) as info:
                await client.on_user_prompt_submit(s.UserPromptSubmitParams(user_message="x"))
    assert route.call_count == 1 and info.value.overloaded


def test_a_503_that_does_not_shed_load_is_still_asked_again() -> None:
    """The rule is narrow: "server initializing" turned the call away once, then serves."""
    with respx.mock(base_url=BASE) as mock:
        route = mock.post("/api/hooks/user-prompt-submit").mock(
            side_effect=[
                httpx.Response(503, json={"error": "server initializing"}),
                httpx.Response(200, json=ANSWERS["user_prompt_submit"].body),
            ]
        )
        with AdapterClient("claude-code", BASE) as client:
            client._sleep = lambda seconds: None  # type: ignore[method-assign,assignment]
            result = client.on_user_prompt_submit(s.UserPromptSubmitParams(user_message="x"))
    assert route.call_count == 2 and result.clock_context == CLOCK
