"""The pi adapter's contract vectors, run three ways.

1. Pure: ``translate`` gives the vector's calls (wire bodies built by the same
   sans-I/O core every transport uses) and ``render`` of its answers gives
   its output.
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
from pi_support import (
    AdapterServer,
    Recorded,
    Reply,
    ScriptedDaemon,
    load_vectors,
    run_hook,
    wait_outbox_empty,
)
from signet_adapter_pi import PLUGIN, TRANSLATOR

from signet_sdk.testing.parity import run_parity
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.request import build_request

VECTORS = load_vectors()
IDS = [v["name"] for v in VECTORS]


def test_vector_set_covers_every_event_and_the_one_prompt_call() -> None:
    events = {v["event"] for v in VECTORS}
    assert events == set(PLUGIN.events)
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


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_translate_and_render(vector: dict[str, Any]) -> None:
    if "error" in vector:
        from signet_sdk.wire.errors import PayloadError

        with pytest.raises(PayloadError) as caught:
            TRANSLATOR.translate(vector["event"], vector["payload"])
        assert caught.value.field == vector["error"]["field"]
        return
    config = resolve_config(harness="pi", runtime_path="plugin", env={})
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
    answers = [a["body"] for a in vector["answers"] if 200 <= a["status"] < 300]
    if len(answers) == len(vector["answers"]):
        out = TRANSLATOR.render(vector["event"], vector["payload"], answers)
        assert out.data == vector["output"]["data"]
        assert out.text == vector["output"]["stdout"]


def test_parity_column_is_ok() -> None:
    report = run_parity(harnesses=["pi"])
    (column,) = report.harnesses
    assert column.ok, [v.problems for v in column.vectors if v.problems]
    assert all(status != "missing" for status, _ in column.rows.values())
    assert {r for r, (s, _) in column.rows.items() if s == "covered"} == {
        "session-start",
        "prompt-submit",
        "session-end",
        "pre-compaction",
        "compaction-complete",
        # through the memory tools the extension registers (run against the daemon)
        "memory-search",
        "memory-store",
        "memory-get",
        "memory-modify",
        "memory-forget",
        "secret-injection",
    }


# -- through the real paths ------------------------------------------------


def _session_file(agent: Path, name: str) -> tuple[str, bytes]:
    """A real pi session file under the agent directory's sessions root."""
    folder = agent / "sessions" / "--home-dev-projects-atlas--"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    lines = [
        {"type": "session", "version": 3, "id": "s", "cwd": "/home/dev/projects/atlas"},
        {"type": "message", "id": "a1", "message": {"role": "user", "content": "Deploy atlas?"}},
        {"type": "message", "id": "a2", "message": {"role": "assistant", "content": "make ship"}},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    path.write_bytes(data)
    return str(path), data


def _with_real_file(vector: dict[str, Any], agent: Path) -> tuple[dict[str, Any], bytes | None]:
    payload = json.loads(json.dumps(vector["payload"]))
    session = payload.get("session") or {}
    if not session.get("onDisk") or not session.get("file"):
        return payload, None
    session["file"], data = _session_file(agent, Path(session["file"]).name)
    return payload, data


def _check_received(got: list[Recorded], vector: dict[str, Any], data: bytes | None) -> None:
    assert [r.path for r in got] == [c["path"] for c in vector["calls"]]
    for request, call in zip(got, vector["calls"], strict=True):
        expected, body = dict(call["body"]), dict(request.json)
        if "transcriptPath" in expected:
            del expected["transcriptPath"]
            assert body.pop("transcriptPath").startswith("/tmp/signet/")
            assert request.staged == data  # the daemon could read the whole session file
        assert body == expected
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
    root = tmp_path_factory.mktemp("pi-server")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIGNET_", "PI_"))}
    env.update(
        HOME=str(root / "home"),
        XDG_STATE_HOME=str(root / "state"),
        PI_CODING_AGENT_DIR=str(root / "home" / ".pi" / "agent"),
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
    payload, data = _with_real_file(vector, Path(server_env["PI_CODING_AGENT_DIR"]))
    scripted.reset([Reply(a["status"], a["body"]) for a in vector.get("answers", [])])

    answer = server.post(vector["event"], payload)

    if "error" in vector:
        assert answer["data"] is None
        assert vector["error"]["field"] in answer["degraded"]
        assert scripted.requests == []
        return
    assert answer["data"] == vector["output"]["data"]
    assert answer["exitCode"] == 0
    got = scripted.wait_for(len(vector["calls"]))
    assert wait_outbox_empty(server_env) == []  # detached writes were delivered
    _check_received(got, vector, data)


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_through_hook_process(
    vector: dict[str, Any], scripted: ScriptedDaemon, isolated: Path
) -> None:
    env = dict(os.environ, SIGNET_DAEMON_URL=scripted.url)
    payload, data = _with_real_file(vector, Path(env["PI_CODING_AGENT_DIR"]))
    scripted.reset([Reply(a["status"], a["body"]) for a in vector.get("answers", [])])

    run = run_hook(vector["event"], payload, env)

    assert run.returncode == 0
    assert run.stderr == b""
    if "error" in vector:
        assert run.stdout == b""
        assert scripted.requests == []
        return
    assert run.stdout == vector["output"]["stdout"].encode("utf-8")
    got = scripted.wait_for(len(vector["calls"]))
    assert wait_outbox_empty(env) == []
    _check_received(got, vector, data)
