"""Every client method against the real Signet daemons, each supported version.

One scenario drives both clients: a generator yields ``(method, args)``
steps, a driver sends each to an ``AdapterClient`` or ``AsyncAdapterClient``
and hands back the result (or throws the error in), and the scenario
asserts what a user relies on: what was stored comes back, what was
changed reads changed, a newer route on an older daemon is a typed
``UnsupportedByDaemonError``, a secrets exec returns its redacted output on
both the synchronous (0.109) and the job (0.145) daemon.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Generator
from typing import Any

import pytest

import signet_sdk as s
import signet_sdk.models as models
import signet_sdk.plugin as plugin_api
from signet_sdk.testing.real_daemon import RealDaemon

Step = tuple[str, tuple[Any, ...], dict[str, Any]]
Scenario = Generator[Step, Any, None]

#: Public client methods the scenario does not call, with the test that covers them.
NOT_IN_SCENARIO = {
    "base_url": "a property",
    "config": "a property",
    "harness": "a property",
    "close": "the driver closes every client",
    "with_options": "secrets_exec polls through it",
    "stream_logs": "test_stream_logs_yields_what_the_daemon_logs",
}


class Error:
    """What a step raised, handed back to the scenario instead of a result."""

    def __init__(self, exc: s.SignetError) -> None:
        self.exc = exc


def scenario(daemon: RealDaemon, called: set[str]) -> Scenario:
    newer = daemon.minor != "0.109"
    key = f"real-{uuid.uuid4().hex[:10]}"
    marker = uuid.uuid4().hex[:8]

    def step(method: str, *args: Any, **kwargs: Any) -> Step:
        called.add(method)
        return (method, args, kwargs)

    version = yield step("daemon_version")
    assert version == daemon.version
    health = yield step("health")
    assert health.status == "healthy" and health.version == daemon.version

    notes = yield step(
        "hook_notifications", models.NotificationsParams(hook="PreToolUse", session_key=key)
    )
    # Served only after 0.145.8: both tested daemons answer 404, typed as too old.
    assert isinstance(notes, Error) and isinstance(notes.exc, s.UnsupportedByDaemonError)

    start = yield step("on_session_start", s.SessionStartParams(session_key=key, project="/repo"))
    assert not start.did_nothing and "signet" in (start.inject or "").lower()
    turn = yield step(
        "on_user_prompt_submit",
        s.UserPromptSubmitParams(session_key=key, user_message=f"how do we deploy {marker}?"),
    )
    assert not turn.did_nothing
    if newer:  # 0.145 injects per prompt only for a named entity
        assert turn.engine == "no-entity" and turn.inject == ""
    else:
        assert turn.inject

    fact = f"staging {marker} runs on pg-staging-2"
    stored = yield step("remember", s.RememberParams(content=fact, session_key=key))
    assert stored.id and stored.content == fact
    found = yield step("recall", s.RecallParams(query=f"staging {marker}", session_key=key))
    assert [hit.id for hit in found.results] == [stored.id]

    remembered = yield step(
        "memory_remember",
        models.MemoryRememberRequest(
            content=f"deploys {marker} go through argo",
            occurred_at="2026-06-01T10:00:00Z",
            idempotency_key=f"key-{marker}",
        ),
    )
    mid = remembered.id
    again = yield step(
        "memory_remember",
        models.MemoryRememberRequest(
            content=f"deploys {marker} go through argo", idempotency_key=f"key-{marker}"
        ),
    )
    assert again.id == mid and again.deduped is True  # same content: stored once either way
    hits = yield step("memory_recall", models.MemoryRecallRequest(query=f"argo {marker}"))
    assert mid in [hit.id for hit in hits.results]
    if newer:
        assert hits.meta is not None and hits.meta.timings is not None

    row = yield step("get_memory", mid)
    assert row.content == f"deploys {marker} go through argo"
    changed = yield step(
        "modify_memory",
        mid,
        models.ModifyMemoryRequest(content=f"deploys {marker} go through argo cd", reason="fix"),
    )
    assert changed.status == "updated"
    row = yield step("get_memory", mid)
    assert row.content == f"deploys {marker} go through argo cd"
    batch = yield step(
        "modify_memories",
        models.BatchModifyRequest(
            patches=[models.MemoryPatch(id=mid, importance=0.9, reason="bump")]
        ),
    )
    assert batch.results and batch.results[0].id == mid
    gone = yield step("forget_memory", mid, models.ForgetMemoryRequest(reason="obsolete"))
    assert gone.status == "deleted"
    missing = yield step("get_memory", mid)
    assert isinstance(missing, Error) and isinstance(missing.exc, s.NotFoundError)
    preview = yield step(
        "forget_memories", models.BatchForgetRequest(ids=[stored.id], mode="preview")
    )
    assert preview.mode == "preview"

    checkpoint = yield step(
        "on_session_checkpoint",
        s.CheckpointExtractParams(session_key=key, transcript="user: hi\nassistant: hello"),
    )
    assert checkpoint is not None
    prompt = yield step("on_pre_compaction", s.PreCompactionParams(session_key=key))
    assert "summar" in (prompt.summary_prompt or "").lower()
    compacted = yield step(
        "on_compaction_complete",
        s.CompactionCompleteParams(
            session_key=key, summary=f"we talked about {marker}", project=f"/repo/{marker}"
        ),
    )
    assert compacted.success is True
    assert (compacted.context_epoch is not None) is newer

    sessions = yield step("list_sessions")
    assert key in [row.key for row in sessions.sessions]
    info = yield step("get_session", key)
    assert info.key == key and info.bypassed is False
    # The daemon filters summaries by agent and project (sessionKey only picks the agent).
    summaries = yield step("list_session_summaries", project=f"/repo/{marker}")
    assert [row.content for row in summaries.summaries] == [f"we talked about {marker}"]
    expanded = yield step(
        "expand_session_summary", models.SummaryExpandRequest(id=summaries.summaries[0].id)
    )
    assert expanded is not None
    transcript = yield step("get_session_transcript", key)
    searched = yield step("search_sessions", models.SessionSearchRequest(query=marker))
    if newer:
        # No transcript was stored under this key yet: a plain "not found", not "unsupported".
        assert isinstance(transcript, Error)
        assert type(transcript.exc) is s.NotFoundError
        assert not isinstance(searched, Error)
    else:
        for answer in (transcript, searched):
            assert isinstance(answer, Error)
            err = answer.exc
            assert isinstance(err, s.UnsupportedByDaemonError)
            assert (err.daemon_version, err.since) == ("0.109.15", "0.145.8")

    config = yield step("synthesis_config")
    assert config.provider == "none"
    synthesis = yield step("request_synthesis", models.SynthesisRequest(trigger="manual"))
    assert f"we talked about {marker}" in (synthesis.prompt or "")
    completed = yield step(
        "complete_synthesis", models.SynthesisCompleteRequest(content="# Summary")
    )
    assert completed is not None

    renewed = yield step("renew_session", key)
    assert renewed.renewed is True
    bypass = yield step("set_session_bypass", key, True)
    assert bypass.bypassed is True
    skipped = yield step(
        "call_lifecycle",
        plugin_api.LifecycleCall("user_prompt_submit", {"sessionKey": key, "userMessage": "x"}),
    )
    assert isinstance(skipped, s.UserPromptSubmitResult) and skipped.did_nothing
    ended = yield step(
        "on_session_end", s.SessionEndParams(session_key=key, transcript="user: hi\n")
    )
    assert ended.bypassed is True

    run = models.SecretsExecRequest(
        command="printenv REAL_TOKEN", secrets={"REAL_TOKEN": "REAL_DAEMON_SECRET"}
    )
    result = yield step("secrets_exec", run)
    assert (result.code, result.stdout) == (0, "[REDACTED]\n")
    job = yield step("secrets_exec_start", run)
    if newer:
        assert job.id and job.status in ("queued", "running", "completed")
        status = yield step("secrets_exec_status", job.id)
        assert status.id == job.id
    else:
        assert job.finished and job.id is None and job.result.stdout == "[REDACTED]\n"
        status = yield step("secrets_exec_status", "no-such-job")
        assert isinstance(status, Error)
        assert isinstance(status.exc, s.UnsupportedByDaemonError)
    failing = models.SecretsExecRequest(command="/no/such/cmd", secrets={"X": "REAL_DAEMON_SECRET"})
    failed = yield step("secrets_exec", failing)
    if newer:
        assert isinstance(failed, Error) and isinstance(failed.exc, s.JobFailedError)
        assert "ENOENT" in failed.exc.reason
    else:
        assert isinstance(failed, Error) or failed.code != 0

    logs = yield step("logs", limit=5)
    assert logs.logs and all(entry.timestamp for entry in logs.logs)


async def _drive(plan: Scenario, client: Any) -> None:
    """Make each call ``plan`` yields on ``client`` (awaiting an async client's answers) and send
    the answer, or the :class:`Error` it raised, back into the plan."""
    answer: Any = None
    while True:
        try:
            method, args, kwargs = plan.send(answer)
        except StopIteration:
            return
        try:
            answer = getattr(client, method)(*args, **kwargs)
            if isinstance(client, s.AsyncAdapterClient):
                answer = await answer  # the sync client's answers are used as they come
        except s.SignetError as exc:
            answer = Error(exc)


def _sync_run(daemon: RealDaemon, called: set[str]) -> None:
    with s.AdapterClient("real-sync", daemon.url) as client:
        asyncio.run(_drive(scenario(daemon, called), client))


async def _async_run(daemon: RealDaemon, called: set[str]) -> None:
    async with s.AsyncAdapterClient("real-async", daemon.url) as client:
        await _drive(scenario(daemon, called), client)


@pytest.fixture
def daemon(real_daemon: RealDaemon) -> RealDaemon:
    real_daemon.store_secret("REAL_DAEMON_SECRET", "real-daemon-secret-value")
    return real_daemon


def test_every_sync_client_method(daemon: RealDaemon) -> None:
    called: set[str] = set()
    _sync_run(daemon, called)
    public = {m for m in dir(s.AdapterClient) if not m.startswith("_")}
    assert public - called == set(NOT_IN_SCENARIO)


def test_every_async_client_method(daemon: RealDaemon) -> None:
    called: set[str] = set()
    asyncio.run(_async_run(daemon, called))
    public = {m for m in dir(s.AsyncAdapterClient) if not m.startswith("_")}
    assert public - called == set(NOT_IN_SCENARIO) - {"close"} | {"aclose"}


def test_stream_logs_yields_what_the_daemon_logs(daemon: RealDaemon) -> None:
    marker = uuid.uuid4().hex[:8]
    seen: list[models.LogEntry] = []

    async def watch() -> None:
        async with s.AsyncAdapterClient("real-logs", daemon.url) as client:
            async for entry in client.stream_logs():
                seen.append(entry)
                if marker in str(entry.data):
                    return

    def write_soon() -> None:
        with s.AdapterClient("real-logs", daemon.url) as client:
            for _ in range(20):
                client.on_session_start(s.SessionStartParams(session_key=f"log-{marker}"))
                if seen:
                    return
                threading.Event().wait(0.25)

    async def main() -> None:
        writer = threading.Thread(target=write_soon)
        writer.start()
        try:
            await asyncio.wait_for(watch(), timeout=20)
        finally:
            writer.join()

    asyncio.run(main())
    assert any(marker in str(entry.data) for entry in seen)
