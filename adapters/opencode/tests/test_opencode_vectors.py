"""The OpenCode adapter's contract vectors: translate gives the calls, render the output.

Each vector's calls are compared as the daemon receives them (wire bodies
built by the same sans-I/O core every transport uses); rendering the
vector's answers must give its output. The parity column must show every
row covered. The real paths (adapter server, hook process) are exercised by
the end-to-end tests with the real OpenCode.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from signet_adapter_opencode import PLUGIN, TRANSLATOR

from signet_sdk.testing.parity import run_parity
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.request import build_request

VECTORS = [
    json.loads(p.read_text(encoding="utf-8"))
    for p in sorted((Path(PLUGIN.vector_files()[0]).parent).glob("*.json"))
]
IDS = [v["name"] for v in VECTORS]


def test_vector_set_covers_every_event() -> None:
    assert {v["event"] for v in VECTORS} == set(PLUGIN.events)
    by_name = {v["name"]: v for v in VECTORS}
    first = [c["action"] for c in by_name["chat-message-first"]["calls"]]
    assert first == ["session_start", "user_prompt_submit"]
    assert [c["action"] for c in by_name["chat-message-later"]["calls"]] == ["user_prompt_submit"]
    assert by_name["session-created"]["calls"] == []
    assert by_name["session-idle-nothing-new"]["calls"] == []
    assert {v["harness"] for v in VECTORS} == {"opencode"}


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_translate_and_render(vector: dict[str, Any]) -> None:
    if "error" in vector:
        with pytest.raises(PayloadError) as caught:
            TRANSLATOR.translate(vector["event"], vector["payload"])
        assert caught.value.field == vector["error"]["field"]
        return
    config = resolve_config(harness="opencode", runtime_path="plugin", env={})
    wire = []
    for call in TRANSLATOR.translate(vector["event"], vector["payload"]):
        request = build_request(config, endpoint(call.action), body=call.body)
        assert request.content is not None
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


def test_the_first_prompt_holds_context_for_the_main_model_only() -> None:
    (vector,) = [v for v in VECTORS if v["name"] == "chat-message-first"]
    system = vector["output"]["data"]["system"]
    sid = vector["payload"]["sessionID"]
    start, recall = system[f"session:{sid}"], system[f"recall:{sid}"]
    assert start["uses"] == 1 and "until" not in start
    assert recall["until"] == "chat.message" and "uses" not in recall
    assert start["model"] == recall["model"] == "anthropic/claude-sonnet-4-5"
    assert "Atlas deploys go through make ship" in start["text"]


def test_a_failed_call_gives_neutral_output_and_no_marker() -> None:
    (vector,) = [v for v in VECTORS if v["name"] == "chat-message-first"]
    from signet_sdk.runtime.dispatch import dispatch
    from signet_sdk.wire.errors import APIConnectionError

    def down(call: Any) -> Any:
        raise APIConnectionError("daemon down", method="POST", url=call.action)

    run = dispatch(TRANSLATOR, "chat.message", vector["payload"], down)
    assert run.output.data is None  # no "started" marker: the next prompt starts again
    assert [c.action for c in run.calls] == ["session_start", "user_prompt_submit"]


def test_parity_column_is_ok() -> None:
    report = run_parity(harnesses=["opencode"])
    (column,) = report.harnesses
    assert column.ok, [v.problems for v in column.vectors if v.problems]
    assert all(status != "missing" for status, _ in column.rows.values())
    covered = {r for r, (s, _) in column.rows.items() if s == "covered"}
    assert {
        "session-start",
        "prompt-submit",
        "session-end",
        "pre-compaction",
        "compaction-complete",
        "memory-search",
        "memory-store",
    } <= covered
