"""The OpenClaw adapter's contract vectors, run three ways.

1. Pure: ``translate`` gives the vector's calls (wire bodies built by the same
   sans-I/O core every transport uses) and ``render`` of its answers gives
   its output.
2. Through the adapter server the plugin posts to (``signet-sdk serve`` as a
   process, ``POST /v1/openclaw/events/<hook>``), against a daemon replaying
   the vector's answers.
3. Through ``signet-sdk hook openclaw <hook>``, the transport's fallback while
   no server runs.

In 2 and 3 the daemon must receive the vector's bodies and the answer must
carry the vector's output.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from oc_support import (
    AdapterServer,
    Recorded,
    Reply,
    ScriptedDaemon,
    load_vectors,
    run_hook,
    wait_outbox_empty,
)
from signet_adapter_openclaw import PLUGIN, SHIM_EVENTS, TRANSLATOR

from signet_sdk.testing.parity import run_parity
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.request import build_request

VECTORS = load_vectors()
IDS = [v["name"] for v in VECTORS]
BY_NAME = {v["name"]: v for v in VECTORS}


def _actions(name: str) -> list[str]:
    return [c["action"] for c in BY_NAME[name]["calls"]]


def test_vector_set_covers_every_hook_and_the_rules_of_a_turn() -> None:
    assert {v["event"] for v in VECTORS} == set(PLUGIN.events) == set(SHIM_EVENTS)
    for v in VECTORS:
        assert v["harness"] == "openclaw"
        assert "error" in v or v["output"]["exit_code"] == 0
    # --local has no session_start: the first prompt starts the session, then recalls.
    assert _actions("before-prompt-build-first-local") == ["session_start", "user_prompt_submit"]
    # After the gateway's session_start, the first prompt only recalls, and delivers both.
    assert _actions("before-prompt-build-after-session-start") == ["user_prompt_submit"]
    both = BY_NAME["before-prompt-build-after-session-start"]["output"]["data"]["result"]
    assert 'source="session-start"' in both["prependContext"]
    assert 'source="prompt-recall"' in both["prependContext"]
    # before_agent_start for a turn before_prompt_build handled: no second call.
    assert _actions("before-agent-start-same-turn") == []
    assert _actions("session-start-already-started") == []
    assert _actions("before-prompt-build-after-compaction") == [
        "compaction_complete",
        "user_prompt_submit",
    ]
    assert _actions("after-compaction-pending") == []
    ended = BY_NAME["session-end-shutdown"]["calls"][0]["body"]
    assert "How do atlas deploys work?" in ended["transcript"]


def test_prompt_carry_marks_the_turn_the_other_prompt_hook_then_skips() -> None:
    first = BY_NAME["before-prompt-build-after-session-start"]
    carry = first["output"]["data"]["carry"]
    payload = {k: v for k, v in first["payload"].items() if k != "carry"}
    again = TRANSLATOR.translate("before_agent_start", {**payload, "carry": carry})
    assert again == []
    later = dict(payload, prompt="a new turn", messageCount=2)
    calls = TRANSLATOR.translate("before_agent_start", {**later, "carry": carry})
    assert [c.action for c in calls] == ["user_prompt_submit"]


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_translate_and_render(vector: dict[str, Any]) -> None:
    if "error" in vector:
        with pytest.raises(PayloadError) as caught:
            TRANSLATOR.translate(vector["event"], vector["payload"])
        assert caught.value.field == vector["error"]["field"]
        return
    config = resolve_config(harness="openclaw", runtime_path="plugin", env={})
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
    report = run_parity(harnesses=["openclaw"])
    (column,) = report.harnesses
    assert column.ok, [v.problems for v in column.vectors if v.problems]
    assert all(status != "missing" for status, _ in column.rows.values())
    assert {r for r, (s, _) in column.rows.items() if s == "covered"} == {
        "session-start",
        "prompt-submit",
        "session-end",
        "pre-compaction",
        "compaction-complete",
        # through the memory tools the plugin registers (run against the daemon)
        "memory-search",
        "memory-store",
        "memory-get",
        "memory-modify",
        "memory-forget",
        "secret-injection",
    }


# -- through the real paths ------------------------------------------------


def _check_received(got: list[Recorded], vector: dict[str, Any]) -> None:
    assert [r.path for r in got] == [c["path"] for c in vector["calls"]]
    for request, call in zip(got, vector["calls"], strict=True):
        assert request.json == call["body"]
        assert request.headers["x-signet-runtime-path"] == "plugin"


@pytest.fixture(scope="module")
def scripted() -> Iterator[ScriptedDaemon]:
    daemon = ScriptedDaemon()
    try:
        yield daemon
    finally:
        daemon.close()


@pytest.fixture(scope="module")
def server_env(
    tmp_path_factory: pytest.TempPathFactory, scripted: ScriptedDaemon
) -> dict[str, str]:
    root = tmp_path_factory.mktemp("openclaw-server")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIGNET_", "OPENCLAW_"))}
    env.update(
        HOME=str(root / "home"),
        XDG_STATE_HOME=str(root / "state"),
        SIGNET_DAEMON_URL=scripted.url,
        SIGNET_OUTBOX_FLUSH_SECONDS="5",
    )
    return env


@pytest.fixture(scope="module")
def server(server_env: dict[str, str]) -> Iterator[AdapterServer]:
    with AdapterServer(server_env) as running:
        yield running


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_through_adapter_server(
    vector: dict[str, Any],
    scripted: ScriptedDaemon,
    server: AdapterServer,
    server_env: dict[str, str],
) -> None:
    scripted.reset([Reply(a["status"], a["body"]) for a in vector.get("answers", [])])

    answer = server.post(vector["event"], vector["payload"])

    if "error" in vector:
        assert answer["data"] is None
        assert vector["error"]["field"] in answer["degraded"]
        assert scripted.requests == []
        return
    got = scripted.wait_for(len(vector["calls"]))
    assert wait_outbox_empty(server_env) == []  # detached writes were delivered
    _check_received(got, vector)
    # A detached write answers before the daemon does; the output does not depend on it.
    assert answer["data"] == vector["output"]["data"]
    assert answer["exitCode"] == 0


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_through_hook_process(
    vector: dict[str, Any], scripted: ScriptedDaemon, isolated: Path
) -> None:
    env = dict(os.environ, SIGNET_DAEMON_URL=scripted.url)
    scripted.reset([Reply(a["status"], a["body"]) for a in vector.get("answers", [])])

    run = run_hook(vector["event"], vector["payload"], env)

    assert run.returncode == 0
    assert run.stderr == b""
    if "error" in vector:
        assert run.stdout == b""
        assert scripted.requests == []
        return
    got = scripted.wait_for(len(vector["calls"]))
    assert wait_outbox_empty(env) == []
    _check_received(got, vector)
    assert run.stdout == vector["output"]["stdout"].encode("utf-8")
