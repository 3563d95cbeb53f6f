"""The Hermes adapter's contract vectors, run two ways.

1. Pure: ``translate`` gives the vector's calls (wire bodies built by the same
   sans-I/O core every transport uses) and ``render`` of its answers gives
   its output.
2. Through the provider's own path (dispatch with the sync client for reads
   and the durable outbox plus its writer thread for writes), against a
   daemon on 127.0.0.1 replaying the vector's answers: the daemon must
   receive the vector's bodies and the provider must get the vector's output.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hermes_support import Reply, ScriptedDaemon, load_vectors, outbox_entries
from signet_adapter_hermes import PLUGIN, TRANSLATOR
from signet_adapter_hermes.provider import SignetMemoryProvider

from signet_sdk.testing.parity import run_parity
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.request import build_request

VECTORS = load_vectors()
IDS = [v["name"] for v in VECTORS]


def test_vector_set_covers_every_hook() -> None:
    assert {v["event"] for v in VECTORS} == set(PLUGIN.events)
    named = {v["name"]: v for v in VECTORS}
    assert [c["action"] for c in named["prefetch"]["calls"]] == ["user_prompt_submit"]
    assert named["queue-prefetch-no-call"]["calls"] == []
    assert named["initialize-cron-skipped"]["calls"] == []
    assert named["initialize-flush-skipped"]["calls"] == []
    assert [c["action"] for c in named["on-session-switch-compression"]["calls"]] == [
        "session_end",
        "session_start",
    ]
    assert [c["action"] for c in named["sync-turn-after-compaction"]["calls"]] == [
        "compaction_complete",
        "session_checkpoint_extract",
    ]
    for v in VECTORS:
        assert v["harness"] == "hermes-agent"
        for call in v.get("calls", []):
            assert call["body"]["harness"] == "hermes-agent"


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_translate_and_render(vector: dict[str, Any]) -> None:
    if "error" in vector:
        with pytest.raises(PayloadError) as caught:
            TRANSLATOR.translate(vector["event"], vector["payload"])
        assert caught.value.field == vector["error"]["field"]
        return
    config = resolve_config(harness="hermes-agent", runtime_path="plugin", env={})
    wire = []
    for call in TRANSLATOR.translate(vector["event"], vector["payload"]):
        request = build_request(config, endpoint(call.action), body=call.body)
        assert request.content is not None
        assert request.headers["x-signet-runtime-path"] == "plugin"
        wire.append(
            {
                "action": call.action,
                "method": request.method,
                "path": request.url.removeprefix(config.base_url),
                "body": json.loads(request.content),
            }
        )
    assert wire == vector["calls"]
    answers = [a["body"] for a in vector["answers"]]
    out = TRANSLATOR.render(vector["event"], vector["payload"], answers)
    assert out.data == vector["output"]["data"]
    assert out.text == vector["output"]["stdout"]


def test_parity_column_is_ok() -> None:
    report = run_parity(harnesses=["hermes-agent"])
    (column,) = report.harnesses
    assert column.ok, [v.problems for v in column.vectors if v.problems]
    assert {r for r, (s, _) in column.rows.items() if s == "covered"} == {
        "session-start",
        "prompt-submit",
        "session-end",
        "pre-compaction",
        "compaction-complete",
        "memory-search",
        "memory-store",
        "memory-get",
        "memory-modify",
        "memory-forget",
        "secret-injection",
    }
    assert column.rows["health"][0] == "n/a"


@pytest.fixture(scope="module")
def scripted() -> Iterator[ScriptedDaemon]:
    daemon = ScriptedDaemon()
    try:
        yield daemon
    finally:
        daemon.close()


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_through_the_provider(vector: dict[str, Any], scripted: ScriptedDaemon) -> None:
    env = dict(os.environ, SIGNET_DAEMON_URL=scripted.url)
    answers = zip(vector.get("calls", []), vector.get("answers", []), strict=True)
    scripted.reset([Reply(a["status"], a["body"], path=c["path"]) for c, a in answers])
    provider = SignetMemoryProvider(env)

    data = provider._run(vector["event"], vector["payload"])

    assert provider.flush(10.0)
    assert outbox_entries(env) == []  # every write was delivered
    if "error" in vector:
        assert data is None
        assert scripted.requests == []
        return
    assert data == vector["output"]["data"]
    got = sorted(scripted.wait_for(len(vector["calls"])), key=lambda r: _order(vector, r.path))
    assert [r.path for r in got] == [c["path"] for c in vector["calls"]]
    for request, call in zip(got, vector["calls"], strict=True):
        received = dict(request.json)
        if call["action"] == "remember":
            # Sent through the outbox: stamped with its entry id, so that a
            # resend is recognised by the daemon as the same memory.
            key = received.pop("idempotencyKey")
            assert received.pop("sourceId") == f"signet-sdk:{key}"
        assert received == call["body"]
        assert request.headers["x-signet-runtime-path"] == "plugin"


def _order(vector: dict[str, Any], path: str) -> int:
    """Reads reach the daemon before the writes queued ahead of them: compare in vector order."""
    return [c["path"] for c in vector["calls"]].index(path)
