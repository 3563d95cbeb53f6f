"""The Hermes adapter's contract vectors, run two ways.

1. Pure (the kit's ``check_vector``): the event makes the vector's daemon
   requests (wire bodies built by the same sans-I/O core every transport
   uses) and gives its output; the parity column has no MISSING row.
2. Through the provider's own path (dispatch with the sync client for reads
   and the durable outbox plus its writer thread for writes), against a
   daemon on 127.0.0.1 replaying the vector's answers: the daemon must
   receive the vector's bodies and the provider must get the vector's output.
"""

from __future__ import annotations

import os
from typing import Any

from signet_adapter_hermes import PLUGIN as SIGNET_PLUGIN
from signet_adapter_hermes.provider import SignetMemoryProvider
from signet_e2e.fixtures import module_scripted_daemon

from signet_sdk.testing import (
    Reply,
    ScriptedDaemon,
    assert_parity,
    assert_received,
    check_vector,
    load_vectors,
    outbox_entries,
)

VECTORS = load_vectors(SIGNET_PLUGIN)


def test_vector_set_covers_every_hook() -> None:
    assert {v["event"] for v in VECTORS} == set(SIGNET_PLUGIN.events)
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


def test_vector(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


def test_parity_column_is_ok() -> None:
    """Every row covered (the memory tools through the provider's tools) but the health check."""
    assert_parity("hermes-agent")
    assert set(SIGNET_PLUGIN.not_applicable) == {"health"}


#: One scripted daemon for the module.
scripted = module_scripted_daemon()


def test_vector_through_the_provider(
    signet_vector: dict[str, Any], scripted: ScriptedDaemon
) -> None:
    vector = signet_vector
    env = dict(os.environ, SIGNET_DAEMON_URL=scripted.url)
    answers = zip(vector.get("calls", []), vector.get("answers", []), strict=True)
    scripted.script([Reply(a["status"], a["body"], path=c["path"]) for c, a in answers])
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
    assert_received(got, vector["calls"], runtime_path="plugin")
    # A remember goes through the outbox, stamped with its entry id: a resend is the same memory.
    assert all("idempotencyKey" in r.json for r in got if r.path == "/api/memory/remember")


def _order(vector: dict[str, Any], path: str) -> int:
    """Reads reach the daemon before the writes queued ahead of them: compare in vector order."""
    return [c["path"] for c in vector["calls"]].index(path)
