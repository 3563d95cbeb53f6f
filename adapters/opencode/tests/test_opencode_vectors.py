"""The OpenCode adapter's contract vectors: the event makes the calls and gives the output.

The kit's ``check_vector`` compares each vector's calls as the daemon
receives them (wire bodies built by the same sans-I/O core every transport
uses) and its output; the parity column must have no MISSING row. The real
paths (adapter server, hook process) are exercised by the end-to-end tests
with the real OpenCode.
"""

from __future__ import annotations

from typing import Any

from signet_adapter_opencode import PLUGIN as SIGNET_PLUGIN
from signet_adapter_opencode import TRANSLATOR

from signet_sdk.testing import assert_parity, check_vector, load_vectors

VECTORS = load_vectors(SIGNET_PLUGIN)


def test_vector_set_covers_every_event() -> None:
    assert {v["event"] for v in VECTORS} == set(SIGNET_PLUGIN.events)
    by_name = {v["name"]: v for v in VECTORS}
    first = [c["action"] for c in by_name["chat-message-first"]["calls"]]
    assert first == ["session_start", "user_prompt_submit"]
    assert [c["action"] for c in by_name["chat-message-later"]["calls"]] == ["user_prompt_submit"]
    assert by_name["session-created"]["calls"] == []
    assert by_name["session-idle-nothing-new"]["calls"] == []
    assert {v["harness"] for v in VECTORS} == {"opencode"}


def test_vector(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


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
    """Every row covered (the memory tools through ``signet-sdk mcp``) but the health check."""
    assert_parity("opencode")
    assert set(SIGNET_PLUGIN.not_applicable) == {"health"}
