"""The pi adapter's contract vectors, run three ways.

1. Pure (the kit's ``check_vector``): the event makes the vector's daemon
   requests (wire bodies built by the same sans-I/O core every transport
   uses) and gives its output; the parity column has no MISSING row.
2. Through the adapter server the shim posts to (``signet-sdk serve`` as a
   process, ``POST /v1/pi/events/<event>``), against a daemon replaying the
   vector's answers.
3. Through ``signet-sdk hook pi <event>``, the transport's fallback while no
   server runs.

In 2 and 3 the daemon must receive the vector's bodies (a session file staged
under /tmp/signet, whole) and the answer must carry the vector's output.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pi_support import AdapterServer
from signet_adapter_pi import PLUGIN as SIGNET_PLUGIN
from signet_e2e.fixtures import adapter_server_env, module_scripted_daemon

from signet_sdk.testing import (
    Reply,
    ScriptedDaemon,
    assert_parity,
    assert_received,
    check_vector,
    check_vector_through_hook,
    load_vectors,
    outbox_left,
    write_jsonl,
)

VECTORS = load_vectors(SIGNET_PLUGIN)


def test_vector_set_covers_every_event_and_the_one_prompt_call() -> None:
    events = {v["event"] for v in VECTORS}
    assert events == set(SIGNET_PLUGIN.events)
    for v in VECTORS:
        assert v["harness"] == "pi"
        assert "error" in v or v["output"]["exit_code"] == 0
    # input and before_agent_start fire for the same prompt: one call between them.
    prompt = {v["name"]: v for v in VECTORS}
    assert [c["action"] for c in prompt["input"]["calls"]] == ["user_prompt_submit"]
    assert prompt["before-agent-start-no-call"]["calls"] == []
    # pi fires session_before_compact twice for one compaction: the second makes no call.
    assert len(prompt["session-before-compact"]["calls"]) == 1
    assert prompt["session-before-compact-fired-again"]["calls"] == []
    reasons = {v["payload"].get("reason") for v in VECTORS if v["event"] == "session_start"}
    assert {"startup", "fork", "resume"} <= reasons


def test_vector(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


def test_parity_column_is_ok() -> None:
    """Every row covered (the memory tools through the extension's tools) but the health check."""
    assert_parity("pi")
    assert set(SIGNET_PLUGIN.not_applicable) == {"health"}


# -- through the real paths ------------------------------------------------


def _session_file(agent: Path, name: str) -> tuple[str, bytes]:
    """A real pi session file under the agent directory's sessions root."""
    lines = [
        {"type": "session", "version": 3, "id": "s", "cwd": "/home/dev/projects/atlas"},
        {"type": "message", "id": "a1", "message": {"role": "user", "content": "Deploy atlas?"}},
        {"type": "message", "id": "a2", "message": {"role": "assistant", "content": "make ship"}},
    ]
    path = write_jsonl(agent / "sessions" / "--home-dev-projects-atlas--" / name, lines)
    return str(path), path.read_bytes()


def _with_real_file(vector: dict[str, Any], agent: Path) -> tuple[dict[str, Any], bytes | None]:
    payload = json.loads(json.dumps(vector["payload"]))
    session = payload.get("session") or {}
    if not session.get("onDisk") or not session.get("file"):
        return payload, None
    session["file"], data = _session_file(agent, Path(session["file"]).name)
    return payload, data


#: One scripted daemon for the module (the adapter server's, too).
scripted = module_scripted_daemon()


@pytest.fixture(scope="module")
def server_env(
    tmp_path_factory: pytest.TempPathFactory, scripted: ScriptedDaemon
) -> dict[str, str]:
    root = tmp_path_factory.mktemp("pi-server")
    return adapter_server_env(root, scripted.url, "PI_", PI_CODING_AGENT_DIR=".pi/agent")


@pytest.fixture(scope="module")
def server(server_env: dict[str, str]) -> Iterator[AdapterServer]:
    with AdapterServer(server_env) as running:
        yield running


def test_vector_through_adapter_server(
    signet_vector: dict[str, Any],
    scripted: ScriptedDaemon,
    server: AdapterServer,
    server_env: dict[str, str],
) -> None:
    vector = signet_vector
    payload, data = _with_real_file(vector, Path(server_env["PI_CODING_AGENT_DIR"]))
    scripted.script([Reply(a["status"], a["body"]) for a in vector.get("answers", [])])

    answer = server.post(vector["event"], payload)

    if "error" in vector:
        assert answer["data"] is None
        assert vector["error"]["field"] in answer["degraded"]
        assert scripted.requests == []
        return
    assert answer["data"] == vector["output"]["data"]
    assert answer["exitCode"] == 0
    got = scripted.wait_for(len(vector["calls"]))
    assert outbox_left(env=server_env) == []  # detached writes were delivered
    assert_received(got, vector["calls"], staged=data, runtime_path="plugin")


def test_vector_through_hook_process(
    signet_vector: dict[str, Any], scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    payload, data = _with_real_file(signet_vector, Path(os.environ["PI_CODING_AGENT_DIR"]))

    check_vector_through_hook(SIGNET_PLUGIN, signet_vector, scripted_daemon, payload=payload)

    staged = [r.staged for r in scripted_daemon.requests if "transcriptPath" in r.json]
    assert all(copy == data for copy in staged)  # the daemon could read the whole session file
