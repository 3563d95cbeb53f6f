"""The Codex hook as Codex runs it: PostCompact's summary from the rollout, failing open."""

from __future__ import annotations

import json
import time
from pathlib import Path

from signet_adapter_codex import TRANSLATOR, CodexTranslator
from signet_adapter_codex._compact import summary_from_lines

from signet_sdk.testing import (
    Reply,
    ScriptedDaemon,
    hook_log_lines,
    outbox_left,
    run_hook,
    write_jsonl,
)

SID = "019a2f0b-9da1-7c91-b4d4-d295403e0c1f"
SUMMARY = "The user deploys atlas with make ship; staging is pg-staging-2."


def _rollout(codex_home: Path, extra: list[dict[str, object]]) -> Path:
    path = codex_home / "sessions" / "2026" / "11" / "24" / f"rollout-x-{SID}.jsonl"
    meta = {"type": "session_meta", "payload": {"id": SID, "cwd": "/srv/atlas"}}
    return write_jsonl(path, [meta, *extra])


def _post_compact(path: Path | str) -> dict[str, object]:
    return {
        "session_id": SID,
        "turn_id": "t-1",
        "transcript_path": str(path),
        "cwd": "/srv/atlas",
        "hook_event_name": "PostCompact",
        "model": "gpt-5.5",
        "trigger": "manual",
    }


def test_post_compact_sends_the_summary_codex_wrote_into_the_rollout(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    older: dict[str, object] = {"type": "compacted", "payload": {"message": "an older summary"}}
    newest: dict[str, object] = {"type": "compacted", "payload": {"message": SUMMARY}}
    path = _rollout(isolated, [older, {"type": "event_msg", "payload": {}}, newest])
    scripted_daemon.replies = [Reply(200, {"success": True, "memoryId": "m-1"})]

    run = run_hook("codex", "PostCompact", _post_compact(path), daemon_url=scripted_daemon.url)

    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    (request,) = scripted_daemon.wait_for(1)
    assert outbox_left() == []
    assert request.path == "/api/hooks/compaction-complete"
    assert request.json == {
        "sessionKey": SID,
        "summary": SUMMARY,
        "project": "/srv/atlas",
        "harness": "codex",
        "runtimePath": "legacy",
    }


def test_summary_from_replacement_history_when_the_message_is_empty() -> None:
    history = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": SUMMARY}]},
    ]
    line = {"type": "compacted", "payload": {"message": "", "replacement_history": history}}
    assert summary_from_lines([json.dumps(line)]) == SUMMARY
    assert summary_from_lines(['{"type":"compacted"', "not json"]) is None


def test_summary_drops_the_handoff_line_codex_writes_before_it() -> None:
    message = (
        "Another language model started to solve this problem and produced a summary of "
        "its thinking process. ... use the information in this summary to assist with "
        "your own analysis:\n" + SUMMARY
    )
    line = {"type": "compacted", "payload": {"message": message, "replacement_history": []}}
    assert summary_from_lines([json.dumps(line)]) == SUMMARY


def test_post_compact_without_a_readable_summary_is_a_checkpoint(
    scripted_daemon: ScriptedDaemon, isolated: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(json.dumps({"type": "compacted", "payload": {"message": "secret"}}) + "\n")
    scripted_daemon.replies = [Reply(200, {"queued": True})]

    run = run_hook("codex", "PostCompact", _post_compact(outside), daemon_url=scripted_daemon.url)

    assert (run.returncode, run.stdout) == (0, b"")
    (request,) = scripted_daemon.wait_for(1)
    assert request.path == "/api/hooks/session-checkpoint-extract"
    assert "secret" not in json.dumps(request.json)  # outside the transcript roots: not read
    assert "transcriptPath" not in request.json


def test_translator_reader_is_injected() -> None:
    seen: list[str] = []

    def reader(path: str) -> str | None:
        seen.append(path)
        return SUMMARY

    calls = CodexTranslator(reader).translate("PostCompact", _post_compact("/x/r.jsonl"))
    assert [c.action for c in calls] == ["compaction_complete"] and seen == ["/x/r.jsonl"]
    calls = TRANSLATOR.translate("PostCompact", _post_compact("/x/r.jsonl"))
    assert [c.action for c in calls] == ["session_checkpoint_extract"]


def test_daemon_down_fails_open_with_no_output(isolated: Path) -> None:
    payload = {"session_id": SID, "cwd": "/srv/atlas", "hook_event_name": "UserPromptSubmit",
               "prompt": "deploy?", "transcript_path": None, "turn_id": "t"}  # fmt: skip
    run = run_hook("codex", "UserPromptSubmit", payload, daemon_url="http://127.0.0.1:9")
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    assert any("failed open" in line for line in hook_log_lines())


def test_bad_payload_fails_open_and_names_the_field(scripted_daemon: ScriptedDaemon) -> None:
    payload = {"session_id": 7, "hook_event_name": "SessionStart", "cwd": "/srv/atlas"}
    run = run_hook("codex", "SessionStart", payload, daemon_url=scripted_daemon.url)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    assert scripted_daemon.requests == []
    assert any("session_id" in line for line in hook_log_lines())
    run = run_hook("codex", "SessionStart", b"{not json", daemon_url=scripted_daemon.url)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")


def test_a_session_end_the_daemon_missed_is_sent_by_the_next_session_start(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    """Codex gives SessionEnd 3 s; a daemon down then gets the call from the next start."""
    path = _rollout(isolated, [])
    end = {"session_id": SID, "transcript_path": str(path), "cwd": "/srv/atlas",
           "hook_event_name": "SessionEnd", "reason": "other"}  # fmt: skip
    quick = {"SIGNET_OUTBOX_FLUSH_SECONDS": "0.5"}
    run = run_hook("codex", "SessionEnd", end, daemon_url="http://127.0.0.1:9", env=quick)
    assert (run.returncode, run.stdout) == (0, b"")
    assert run.seconds < 3.0
    time.sleep(1.5)  # the detached sender gave up; the call stays pending
    assert outbox_left(timeout=0.1) != []

    start = {"session_id": "next-1", "transcript_path": None, "cwd": "/srv/atlas",
             "hook_event_name": "SessionStart", "source": "startup"}  # fmt: skip
    run = run_hook("codex", "SessionStart", start, daemon_url=scripted_daemon.url)
    assert run.returncode == 0
    got = scripted_daemon.wait_for(2)
    assert outbox_left() == []
    ended = [r for r in got if r.path == "/api/hooks/session-end"]
    assert len(ended) == 1 and ended[0].json["sessionKey"] == SID
    assert ended[0].staged == path.read_bytes()  # with the transcript it had at exit
