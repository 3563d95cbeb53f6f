"""The Codex contract vectors, run two ways.

1. Pure: ``translate`` gives the vector's calls (the wire body built by the
   core every transport uses) and ``render`` of the vector's answers gives
   the vector's stdout byte for byte.
2. For real: ``signet-sdk hook codex <Event>`` in a subprocess against a fake
   daemon replaying the vector's answers: the daemon receives the vector's
   bodies (the transcript staged under /tmp/signet) and Codex would read
   exactly the vector's stdout, exit 0, nothing on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from signet_adapter_codex import PLUGIN, TRANSLATOR

from signet_sdk.testing import Reply, ScriptedDaemon, load_vectors, outbox_left, run_hook
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.request import build_request

VECTORS = load_vectors(PLUGIN)
IDS = [v["name"] for v in VECTORS]
#: The only keys Codex's hook output schema accepts (deny_unknown_fields).
CODEX_TOP_KEYS = {"continue", "stopReason", "suppressOutput", "systemMessage", "decision",
                  "reason", "hookSpecificOutput"}  # fmt: skip


def test_vector_set_covers_every_event_and_source() -> None:
    seen = {(v["event"], v["payload"].get("source")) for v in VECTORS}
    for event in PLUGIN.events:
        assert any(e == event for e, _ in seen), event
    for source in ("startup", "resume", "clear", "compact"):
        assert ("SessionStart", source) in seen
    for v in VECTORS:
        assert v["harness"] == "codex"
        assert v["output"]["exit_code"] == 0


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_output_is_what_codex_accepts(vector: dict[str, Any]) -> None:
    """Either no stdout, or the one context envelope with exactly the accepted keys."""
    stdout = vector["output"]["stdout"]
    if not stdout:
        return
    out = json.loads(stdout)
    assert set(out) <= CODEX_TOP_KEYS
    assert set(out) == {"hookSpecificOutput"}
    assert set(out["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert out["hookSpecificOutput"]["hookEventName"] == vector["event"]
    assert vector["event"] in ("SessionStart", "UserPromptSubmit", "SubagentStart")


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_translate_and_render(vector: dict[str, Any]) -> None:
    if "error" in vector:
        with pytest.raises(PayloadError) as caught:
            TRANSLATOR.translate(vector["event"], vector["payload"])
        assert caught.value.field == vector["error"]["field"]
        return
    config = resolve_config(harness="codex", runtime_path="legacy", env={})
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
    out = TRANSLATOR.render(
        vector["event"], vector["payload"], [a["body"] for a in vector["answers"]]
    )
    assert out.data == vector["output"]["data"]
    assert out.text == vector["output"]["stdout"]
    assert out.exit_code == vector["output"]["exit_code"]


def _rollout(codex_home: Path) -> tuple[Path, bytes]:
    folder = codex_home / "sessions" / "2026" / "11" / "24"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "rollout-2026-11-24T09-12-29-019a2f0b.jsonl"
    lines = [
        {"type": "session_meta", "payload": {"id": "019a2f0b", "cwd": "/home/dev/projects/atlas"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": []}},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_through_hook_command(
    vector: dict[str, Any], scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    transcript, data = _rollout(isolated)
    payload = dict(vector["payload"])
    if payload.get("transcript_path"):
        payload["transcript_path"] = str(transcript)
    scripted_daemon.replies = [Reply(a["status"], a["body"]) for a in vector["answers"]]

    run = run_hook("codex", vector["event"], payload, daemon_url=scripted_daemon.url)

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
            assert request.staged == data
            assert not Path(staged).exists()
        assert body == expected
        assert request.headers["x-signet-runtime-path"] == "legacy"
