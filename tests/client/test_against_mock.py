"""Every client method against the mock daemon: the models accept what it answers.

The respx tests pin the bytes the client sends; these run the same methods
over a real socket (sync) and in-process ASGI (async) against the stateful
mock, so the client, the models and the mock daemon agree with each other.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import signet_sdk as s
import signet_sdk.models as models
from signet_sdk.testing.mock_daemon import MockDaemon

LONG = "user: we ship the billing fix on Tuesday after review.\nassistant: noted.\n" * 10


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[MockDaemon, str]]:
    # A daemon newer than 0.109, with a synthesis worker: every route this file checks.
    mock = MockDaemon(
        secrets={"API_KEY": "sk-very-secret"}, version="0.110", synthesis_provider="ollama"
    )
    with mock.serve() as handle:
        yield mock, handle.url


@pytest.fixture
def client(served: tuple[MockDaemon, str]) -> Iterator[s.AdapterClient]:
    with s.AdapterClient("mock-check", served[1], runtime_path="plugin") as c:
        yield c


def test_lifecycle_round_trip(client: s.AdapterClient) -> None:
    key, project = "mock-life-1", "/srv/mock-life"
    start = client.on_session_start(s.SessionStartParams(session_key=key, project=project))
    assert start.identity is not None and not start.did_nothing
    stored = client.remember(s.RememberParams(content="mock life deploys on Tuesdays"))
    assert stored.id
    turn = client.on_user_prompt_submit(
        s.UserPromptSubmitParams(session_key=key, user_message="when do mock life deploys go?")
    )
    assert turn.session_known is True and "mock life deploys on Tuesdays" in turn.inject
    check = client.on_session_checkpoint(
        s.CheckpointExtractParams(session_key=key, transcript=LONG)
    )
    assert check.queued is True and check.job_id
    pre = client.on_pre_compaction(s.PreCompactionParams(session_key=key))
    assert pre.summary_prompt
    done = client.on_compaction_complete(
        s.CompactionCompleteParams(
            session_key=key, summary="Billing ships Tuesdays.", project=project
        )
    )
    assert done.success and done.memory_id
    end = client.on_session_end(s.SessionEndParams(session_key=key, cwd=project, transcript=LONG))
    assert end.queued is True
    again = client.on_session_end(s.SessionEndParams(session_key=key, cwd=project))
    assert again.duplicate_session_end and again.did_nothing and again.ended_by == "plugin"


def test_conflict_from_the_other_runtime_path(served: tuple[MockDaemon, str]) -> None:
    url = served[1]
    with (
        s.AdapterClient("a", url, runtime_path="plugin") as plugin,
        s.AdapterClient("b", url, runtime_path="legacy") as legacy,
    ):
        plugin.on_session_start(s.SessionStartParams(session_key="mock-claim-1"))
        outcome = legacy.on_session_start(s.SessionStartParams(session_key="mock-claim-1"))
        assert outcome.claimed_by == "plugin" and outcome.duplicate_runtime_path
        skipped = legacy.on_user_prompt_submit(
            s.UserPromptSubmitParams(session_key="mock-claim-1", user_prompt="hi")
        )
        assert skipped.skipped and skipped.claimed_by == "plugin"
        with pytest.raises(s.ConflictError) as info:
            legacy.remember(s.RememberParams(content="x", session_key="mock-claim-1"))
        assert info.value.claimed_by == "plugin"


def test_recall_and_memory_tools(client: s.AdapterClient) -> None:
    made = client.memory_remember(
        models.MemoryRememberRequest(content="the rollback key is in vault 7")
    )
    assert made.id
    hook_hits = client.recall(s.RecallParams(query="rollback vault"))
    assert any(h.id == made.id for h in hook_hits.results) and hook_hits.count
    hits = client.memory_recall(models.MemoryRecallRequest(query="rollback vault", limit=5))
    assert any(h.id == made.id for h in hits.results)
    record = client.get_memory(made.id)
    assert record.content == "the rollback key is in vault 7"
    changed = client.modify_memory(
        made.id,
        models.ModifyMemoryRequest(reason="moved", content="the rollback key is in vault 8"),
    )
    assert changed.status == "updated"
    batch = client.modify_memories(
        models.BatchModifyRequest(
            patches=[models.MemoryPatch(id=made.id, pinned=True)], reason="pin"
        )
    )
    assert batch.updated == 1
    with pytest.raises(s.ConflictError):  # pinned memories need force
        client.forget_memory(made.id, models.ForgetMemoryRequest(reason="cleanup"))
    gone = client.forget_memory(made.id, models.ForgetMemoryRequest(reason="cleanup", force=True))
    assert gone.status == "deleted"
    with pytest.raises(s.NotFoundError):
        client.get_memory(made.id)
    other = client.memory_remember(models.MemoryRememberRequest(content="obsolete staging note"))
    preview = client.forget_memories(models.BatchForgetRequest(mode="preview", ids=[str(other.id)]))
    assert preview.count == 1 and preview.confirm_token
    executed = client.forget_memories(
        models.BatchForgetRequest(mode="execute", ids=[str(other.id)], reason="obsolete")
    )
    assert executed.deleted == 1


def test_sessions_summaries_and_synthesis(client: s.AdapterClient) -> None:
    key = "mock/sess:1"
    client.on_session_start(s.SessionStartParams(session_key=key, project="/srv/sess"))
    client.on_session_checkpoint(s.CheckpointExtractParams(session_key=key, transcript=LONG))
    listed = client.list_sessions()
    assert any(row.key == key for row in listed.sessions)
    assert client.get_session(key).runtime_path == "plugin"
    assert client.set_session_bypass(key, True).bypassed is True
    assert client.on_user_prompt_submit(
        s.UserPromptSubmitParams(session_key=key, user_prompt="x")
    ).bypassed
    assert client.set_session_bypass(key, False).bypassed is False
    assert client.renew_session(key).renewed is True
    assert "billing fix" in client.get_session_transcript(key).content
    found = client.search_sessions(models.SessionSearchRequest(query="billing fix"))
    assert any(hit.session_key == key for hit in found.hits)
    client.on_compaction_complete(s.CompactionCompleteParams(session_key=key, summary="S1 summary"))
    summaries = client.list_session_summaries()
    assert summaries.total >= 1
    node = client.expand_session_summary(models.SummaryExpandRequest(id=summaries.summaries[0].id))
    assert node.node.id == summaries.summaries[0].id
    assert client.synthesis_config().provider
    assert client.request_synthesis().prompt
    assert client.complete_synthesis(models.SynthesisCompleteRequest(content="# MEMORY\n")).success


def test_what_0_109_does_not_serve(tmp_path: Path) -> None:
    """TS 0.109 has no session transcript route and, without a provider, no synthesis worker."""
    mock = MockDaemon(db_path=tmp_path / "old.sqlite3")
    with mock.serve() as handle, s.AdapterClient("old", handle.url, max_retries=2) as client:
        with pytest.raises(s.NotFoundError):
            client.get_session_transcript("k")
        with pytest.raises(s.ServiceUnavailableError):
            client.complete_synthesis(models.SynthesisCompleteRequest(content="# MEMORY\n"))
        completes = [r for r in mock.requests if r.path == "/api/hooks/synthesis/complete"]
        assert len(completes) == 1  # "not running" is permanent: never retried


def test_secrets_health_and_logs(client: s.AdapterClient, served: tuple[MockDaemon, str]) -> None:
    ran = client.secrets_exec(
        models.SecretsExecRequest(command="printenv KEY", secrets={"KEY": "API_KEY"})
    )
    assert ran.code == 0 and ran.stdout.strip() == "[REDACTED]"
    assert client.health().status == "healthy"
    assert client.logs(limit=5).count <= 5

    stream = client.stream_logs()
    trigger = threading.Timer(0.3, lambda: httpx.get(f"{served[1]}/health"))
    trigger.start()
    try:
        entry = next(stream)
    finally:
        stream.close()  # type: ignore[attr-defined]
        trigger.cancel()
    assert entry.message


@pytest.mark.anyio
async def test_async_client_in_process_over_asgi(tmp_path: Path) -> None:
    mock = MockDaemon(db_path=tmp_path / "d.sqlite3")
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=mock))
    async with s.AsyncAdapterClient("mock-async", "http://127.0.0.1:3850", http_client=http) as c:
        await c.remember(s.RememberParams(content="async memory about kites"))
        start = await c.on_session_start(s.SessionStartParams(session_key="mock-async-1"))
        assert "kites" in start.inject
        hits = await c.memory_recall(models.MemoryRecallRequest(query="kites"))
        assert hits.results and (await c.health()).status == "healthy"
    await http.aclose()
    assert [r.path for r in mock.requests][:2] == [
        "/api/hooks/remember",
        "/api/hooks/session-start",
    ]


@pytest.mark.parametrize("name", [".", ".."])
def test_a_dot_segment_key_is_refused_before_it_reaches_another_route(
    served: tuple[MockDaemon, str], name: str
) -> None:
    # Sent as is, the HTTP library resolved the dot segment: get_session(".")
    # fetched /api/sessions/ (the list) and secrets_exec_status("..") /api/secrets/.
    mock, url = served
    calls = [
        ("key", lambda c: c.get_session(name)),
        ("key", lambda c: c.set_session_bypass(name, True)),
        ("key", lambda c: c.renew_session(name)),
        ("id", lambda c: c.get_memory(name)),
        (
            "id",
            lambda c: c.modify_memory(name, models.ModifyMemoryRequest(content="x", reason="r")),
        ),
        ("jobId", lambda c: c.secrets_exec_status(name)),
    ]
    with s.AdapterClient("mock-check", url, max_retries=0) as client:
        client.health()
        before = len(mock.requests)
        for field, call in calls:
            with pytest.raises(s.ConfigError) as exc:
                call(client)
            assert exc.value.field == field and repr(name) in str(exc.value)
    assert len(mock.requests) == before


def test_a_hook_member_set_to_none_gets_the_clients_value(
    served: tuple[MockDaemon, str],
) -> None:
    # None went out as null: TS 0.109 then stored a hook remember under the
    # "default" agent though the client, and its header, said "alice".
    import json

    mock, url = served

    def sent(path: str) -> dict[str, object]:
        return json.loads([r for r in mock.requests if r.path == path][-1].body)  # type: ignore[no-any-return]

    with s.AdapterClient("mock-check", url, agent_id="alice", runtime_path="plugin") as client:
        client.remember(s.RememberParams(content="agent none check", agent_id=None))
        assert sent("/api/hooks/remember") == {
            "content": "agent none check",
            "harness": "mock-check",
            "runtimePath": "plugin",
            "agentId": "alice",
        }
        client.recall(s.RecallParams(query="agent none check", agent_id=None))
        omitted = sent("/api/hooks/recall")
        client.recall(s.RecallParams(query="agent none check"))
        assert omitted == sent("/api/hooks/recall")
        client.on_session_start({"sessionKey": "agent-none", "agentId": None})  # type: ignore[arg-type]
        assert sent("/api/hooks/session-start") == {
            "sessionKey": "agent-none",
            "harness": "mock-check",
            "runtimePath": "plugin",
            "agentId": "alice",
        }
