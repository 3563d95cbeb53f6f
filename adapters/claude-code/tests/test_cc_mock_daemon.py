"""A whole session of vectors through the real hook command against the SDK's mock daemon.

The mock is stateful and strict where the daemons differ (it applies the
/tmp/signet and 400 000-byte transcript rule with the Rust daemon's 403/413),
so every call answering 200 shows the bodies and the staged transcripts are
acceptable to both daemons.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from signet_adapter_claude_code import PLUGIN
from signet_e2e.fixtures import served_mock_daemon

from signet_sdk.testing import load_vectors, outbox_left, run_hook, write_jsonl

VECTORS = {v["name"]: v for v in load_vectors(PLUGIN)}

SEQUENCE = [
    "session-start-startup",
    "user-prompt-submit",
    "stop-checkpoint",
    "pre-compact-manual",
    "post-compact",
    "session-start-compact",
    "subagent-start",
    "subagent-stop-compaction-fork",
    "session-end-prompt-input-exit",
]


#: The mock daemon answering as 0.109, and its URL.
daemon = served_mock_daemon("0.109")


def test_a_session_of_vectors_is_accepted_by_the_mock_daemon(
    daemon: tuple[Any, str], isolated: Path
) -> None:
    mock, url = daemon
    turns = [
        {"type": "user", "message": {"role": "user", "content": f"question {i} " + "x" * 80}}
        for i in range(10)
    ]
    transcript = write_jsonl(isolated / ".claude" / "projects" / "atlas" / "session.jsonl", turns)

    for name in SEQUENCE:
        vector = VECTORS[name]
        payload = dict(vector["payload"], transcript_path=str(transcript))
        mock.clear_requests()
        run = run_hook("claude-code", vector["event"], payload, daemon_url=url)
        assert (run.returncode, run.stderr) == (0, b""), name
        assert outbox_left() == [], name
        got = [r for r in mock.requests if r.path.startswith("/api/hooks/")]
        assert [r.path for r in got] == [c["path"] for c in vector["calls"]], name
        for request, call in zip(got, vector["calls"], strict=True):
            assert request.status == 200, (name, request.response_json)
            body = dict(request.json)
            expected = dict(call["body"])
            if "transcriptPath" in expected:
                expected.pop("transcriptPath")
                assert body.pop("transcriptPath").startswith("/tmp/signet/")
            assert body == expected, name
        if vector["event"] in ("SessionStart", "UserPromptSubmit", "SubagentStart"):
            output = json.loads(run.stdout)["hookSpecificOutput"]
            assert output["hookEventName"] == vector["event"]
            assert output["additionalContext"].strip()
        else:
            assert run.stdout == b""
