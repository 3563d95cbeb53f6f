"""The contract vectors under contract/vectors/claude-code, run two ways.

1. Pure: ``translate`` gives the vector's calls (wire body built by the same
   sans-I/O core every transport uses), and ``render`` of the vector's
   answers gives the vector's stdout byte for byte.
2. For real: the installed hook command, in a subprocess, against a fake
   daemon that replays the vector's answers. The daemon must receive the
   vector's bodies (with the transcript staged under /tmp/signet) and the
   command must print exactly the vector's stdout and exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from signet_adapter_claude_code import PLUGIN, TRANSLATOR

from signet_sdk.testing import Reply, ScriptedDaemon, load_vectors, outbox_left, run_hook
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.request import build_request

VECTORS = load_vectors(PLUGIN)
IDS = [v["name"] for v in VECTORS]


def test_vector_set_covers_every_event_source_and_reason() -> None:
    seen = {(v["event"], v["payload"].get("source"), v["payload"].get("reason")) for v in VECTORS}
    for event in PLUGIN.events:
        assert any(e == event for e, _, _ in seen), event
    for source in ("startup", "resume", "clear", "compact", "fork"):
        assert ("SessionStart", source, None) in seen
    reasons = {"clear", "resume", "logout", "prompt_input_exit", "other"}
    reasons.add("bypass_permissions_disabled")
    for reason in reasons:
        assert ("SessionEnd", None, reason) in seen
    for v in VECTORS:
        assert v["harness"] == "claude-code"
        assert v["output"]["exit_code"] == 0


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_translate_and_render(vector: dict[str, Any]) -> None:
    config = resolve_config(harness="claude-code", runtime_path="legacy", env={})
    calls = TRANSLATOR.translate(vector["event"], vector["payload"])
    wire = []
    for call in calls:
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
        assert request.headers["x-signet-runtime-path"] == "legacy"
        assert "agentId" not in call.body
    assert wire == vector["calls"]
    answers = [a["body"] for a in vector["answers"]]
    out = TRANSLATOR.render(vector["event"], vector["payload"], answers)
    assert out.data == vector["output"]["data"]
    assert out.text == vector["output"]["stdout"]
    assert out.exit_code == vector["output"]["exit_code"]


def _real_transcript(home: Path) -> tuple[Path, bytes]:
    folder = home / ".claude" / "projects" / "-home-dev-projects-atlas"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "session.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "How do we deploy atlas?"}},
        {"type": "assistant", "message": {"role": "assistant", "content": "With make ship."}},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_through_hook_command(
    vector: dict[str, Any], scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    transcript, data = _real_transcript(isolated)
    payload = dict(vector["payload"])
    payload["transcript_path"] = str(transcript)
    scripted_daemon.replies = [Reply(a["status"], a["body"]) for a in vector["answers"]]

    run = run_hook("claude-code", vector["event"], payload, daemon_url=scripted_daemon.url)

    assert run.returncode == 0
    assert run.stdout == vector["output"]["stdout"].encode("utf-8")
    assert run.stderr == b""
    got = scripted_daemon.wait_for(len(vector["calls"]))
    assert outbox_left() == []
    assert [r.path for r in got] == [c["path"] for c in vector["calls"]]
    for request, call in zip(got, vector["calls"], strict=True):
        expected = dict(call["body"])
        body = dict(request.json)
        if "transcriptPath" in expected:
            del expected["transcriptPath"]
            staged = body.pop("transcriptPath")
            assert staged.startswith("/tmp/signet/")
            assert request.staged == data  # the daemon could read the whole transcript
            assert not Path(staged).exists()  # and the staged copy is gone afterwards
        assert body == expected
        assert request.headers["x-signet-runtime-path"] == "legacy"
        assert "x-signet-no-hooks" not in request.headers
