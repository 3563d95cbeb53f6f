"""The OpenClaw adapter's contract vectors, run three ways.

1. Pure (the kit's ``check_vector``): the event makes the vector's daemon
   requests (wire bodies built by the same sans-I/O core every transport
   uses) and gives its output; the parity column has no MISSING row.
2. Through the adapter server the plugin posts to (``signet-sdk serve`` as a
   process, ``POST /v1/openclaw/events/<hook>``), against a daemon replaying
   the vector's answers (``check_vector_through_server``).
3. Through ``signet-sdk hook openclaw <hook>``, the transport's fallback while
   no server runs (``check_vector_through_hook``).

In 2 and 3 the daemon must receive the vector's bodies and the answer must
carry the vector's output.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from signet_adapter_openclaw import PLUGIN as SIGNET_PLUGIN
from signet_adapter_openclaw import SHIM_EVENTS, TRANSLATOR
from signet_e2e.fixtures import adapter_server_env, module_scripted_daemon

from signet_sdk.testing import (
    ScriptedDaemon,
    ServeProcess,
    check_vector,
    check_vector_through_hook,
    check_vector_through_server,
    load_vectors,
)
from signet_sdk.testing.parity import run_parity
from signet_sdk.wire.endpoints import DEPENDENCY_MAP_ROWS

VECTORS = load_vectors(SIGNET_PLUGIN)
BY_NAME = {v["name"]: v for v in VECTORS}


def _actions(name: str) -> list[str]:
    return [c["action"] for c in BY_NAME[name]["calls"]]


def test_vector_set_covers_every_hook_and_the_rules_of_a_turn() -> None:
    assert {v["event"] for v in VECTORS} == set(SIGNET_PLUGIN.events) == set(SHIM_EVENTS)
    assert SIGNET_PLUGIN.runtime_path == "plugin"
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


def test_vector_translate_and_render(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


def test_parity_column_is_ok() -> None:
    """Every row covered but the health check; the memory tools through the plugin's tools."""
    report = run_parity(harnesses=["openclaw"])
    (column,) = report.harnesses
    assert column.ok, [v.problems for v in column.vectors if v.problems]
    assert all(status != "missing" for status, _ in column.rows.values())
    assert set(SIGNET_PLUGIN.not_applicable) == {"health"}
    covered = {r for r, (s, _) in column.rows.items() if s == "covered"}
    assert covered == set(DEPENDENCY_MAP_ROWS) - {"health"}


# -- through the real paths ------------------------------------------------


#: One scripted daemon for the module (the adapter server's, too).
scripted = module_scripted_daemon()


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, scripted: ScriptedDaemon
) -> Iterator[ServeProcess]:
    root = tmp_path_factory.mktemp("openclaw-server")
    with ServeProcess(adapter_server_env(root, scripted.url, "OPENCLAW_")) as running:
        yield running


def test_vector_through_adapter_server(
    signet_vector: dict[str, Any], scripted: ScriptedDaemon, server: ServeProcess
) -> None:
    # A detached write answers before the daemon does; the output does not depend on it.
    check_vector_through_server(SIGNET_PLUGIN, signet_vector, scripted, server)


def test_vector_through_hook_process(
    signet_vector: dict[str, Any], scripted_daemon: ScriptedDaemon
) -> None:
    check_vector_through_hook(SIGNET_PLUGIN, signet_vector, scripted_daemon)
