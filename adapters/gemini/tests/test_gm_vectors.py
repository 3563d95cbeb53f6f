"""The Gemini CLI contract vectors, run two ways.

1. Pure: ``translate`` gives the vector's calls (the wire body built by the
   core every transport uses) and ``render`` of the vector's answers gives
   the vector's stdout byte for byte.
2. For real: ``signet-sdk hook gemini <Event>`` in a subprocess against a
   fake daemon replaying the vector's answers: the daemon receives the
   vector's bodies (the chat file staged under /tmp/signet) and Gemini would
   read exactly the vector's stdout, exit 0, nothing on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gm_support import chat_file, message
from signet_adapter_gemini import PLUGIN, TRANSLATOR

from signet_sdk.testing import Reply, ScriptedDaemon, load_vectors, outbox_left, run_hook
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.request import build_request

VECTORS = load_vectors(PLUGIN)
IDS = [v["name"] for v in VECTORS]
#: Top-level keys Gemini's hook output reads (its docs' common output fields).
GEMINI_TOP_KEYS = {"systemMessage", "suppressOutput", "continue", "stopReason", "decision",
                   "reason", "hookSpecificOutput"}  # fmt: skip


def test_vector_set_covers_every_event_source_and_reason() -> None:
    seen = {(v["event"], v["payload"].get("source") or v["payload"].get("reason")) for v in VECTORS}
    for event in PLUGIN.events:
        assert any(e == event for e, _ in seen), event
    for source in ("startup", "resume", "clear"):
        assert ("SessionStart", source) in seen
    for reason in ("exit", "clear", "logout", "prompt_input_exit"):
        assert ("SessionEnd", reason) in seen
    triggers = {v["payload"].get("trigger") for v in VECTORS if v["event"] == "PreCompress"}
    assert triggers == {"manual", "auto"}
    for v in VECTORS:
        assert v["harness"] == "gemini"
        assert v["output"]["exit_code"] == 0


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_output_is_json_gemini_reads(vector: dict[str, Any]) -> None:
    """Always one JSON object: ``{}`` or the context envelope; never a decision."""
    out = json.loads(vector["output"]["stdout"])
    assert isinstance(out, dict)
    assert set(out) <= GEMINI_TOP_KEYS
    assert "decision" not in out and "continue" not in out
    if out:
        assert set(out) == {"hookSpecificOutput"}
        assert set(out["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
        assert out["hookSpecificOutput"]["hookEventName"] == vector["event"]
        assert vector["event"] in ("SessionStart", "BeforeAgent")


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_translate_and_render(vector: dict[str, Any]) -> None:
    if "error" in vector:
        with pytest.raises(PayloadError) as caught:
            TRANSLATOR.translate(vector["event"], vector["payload"])
        assert caught.value.field == vector["error"]["field"]
        assert TRANSLATOR.neutral(vector["event"]).text == vector["output"]["stdout"]
        return
    config = resolve_config(harness="gemini", runtime_path="legacy", env={})
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


def _chat(gemini_dir: Path) -> tuple[Path, bytes]:
    path = chat_file(
        gemini_dir,
        [
            {"sessionId": "7f3c2a91", "projectHash": "abc", "kind": "main"},
            message(1, "user", "how do we deploy atlas?", 10),
            message(2, "gemini", "Run make ship.", 11, tokens=1200),
        ],
    )
    return path, path.read_bytes()


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_vector_through_hook_command(
    vector: dict[str, Any], scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    transcript, data = _chat(isolated)
    payload = dict(vector["payload"])
    if payload.get("transcript_path"):
        payload["transcript_path"] = str(transcript)
    scripted_daemon.replies = [Reply(a["status"], a["body"]) for a in vector["answers"]]

    run = run_hook("gemini", vector["event"], payload, daemon_url=scripted_daemon.url)

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
