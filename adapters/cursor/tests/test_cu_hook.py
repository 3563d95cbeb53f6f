"""The hook command as Cursor runs it, on payloads shaped as captured, as a real process.

* A whole session (the agent CLI's shape: ``transcript_path`` null, the
  transcript found where the CLI writes it) against the SDK's stateful mock
  daemon, then a second session that gets the remembered fact as
  ``additional_context``.
* The same bytes against a scripted daemon, exactly.
* Fail open: a daemon that is gone, or too slow, costs Cursor nothing but
  the deadline; every event still prints the JSON Cursor reads, and the
  session end is kept in the outbox and sent by the next session start.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from signet_e2e import down_daemon_url, remember
from signet_e2e.fixtures import served_mock_daemon

from signet_sdk.testing import (
    Reply,
    ScriptedDaemon,
    hook_log_lines,
    outbox_left,
    run_hook,
    write_jsonl,
)

CID = "0c5d7e1f-2a3b-4c5d-8e9f-a0b1c2d3e4f5"
ROOT = "/Users/dev/projects/atlas"
PROMPT = "Which migrations run before the atlas release?"
NEUTRAL = {
    "sessionStart": b"{}",
    "beforeSubmitPrompt": b'{"continue":true}',
    "stop": b"{}",
    "preCompact": b"{}",
    "sessionEnd": b"{}",
}


def payload(event: str, conversation: str = CID, **extra: Any) -> dict[str, Any]:
    """A payload as the agent CLI 2026.02.13-41ac335 sent it (transcript_path null)."""
    body: dict[str, Any] = {
        "conversation_id": conversation,
        "generation_id": "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
        "model": "gpt-5.2-codex-xhigh-fast",
        "hook_event_name": event,
        "cursor_version": "2026.02.13-41ac335",
        "workspace_roots": [ROOT],
        "user_email": "dev@example.com",
        "transcript_path": None,
    }
    body.update(extra)
    return body


EVENTS: dict[str, dict[str, Any]] = {
    "sessionStart": payload("sessionStart", session_id=CID, is_background_agent=False),
    "beforeSubmitPrompt": payload("beforeSubmitPrompt", prompt=PROMPT, attachments=[]),
    "stop": payload("stop", status="completed", loop_count=0),
    "preCompact": payload(
        "preCompact",
        trigger="auto",
        context_usage_percent=85,
        context_tokens=120000,
        context_window_size=128000,
        message_count=45,
        messages_to_compact=30,
        is_first_compaction=True,
    ),
    "sessionEnd": payload(
        "sessionEnd",
        session_id=CID,
        reason="completed",
        duration_ms=5505,
        is_background_agent=False,
        final_status="completed",
    ),
}


def cli_transcript(cursor: Path, conversation: str = CID) -> Path:
    """The transcript where the agent CLI writes it (flat), in its line format."""
    folder = cursor / "projects" / "Users-dev-projects-atlas" / "agent-transcripts"
    turns = [
        {"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{t}\n"
                                                   "</user_query>"}]}}
        if i % 2 == 0
        else {"role": "assistant", "message": {"content": [{"type": "text", "text": t}]}}
        for i, t in enumerate([PROMPT, "Migrations first, then the blue-green switch."] * 4)
    ]  # fmt: skip
    return write_jsonl(folder / f"{conversation}.jsonl", turns)


#: The mock daemon answering as 0.109, and its URL.
mock = served_mock_daemon("0.109")


# -- against the mock daemon ------------------------------------------------------


def test_a_session_reaches_the_mock_daemon_and_the_next_one_gets_its_memory(
    mock: tuple[Any, str], isolated: Path
) -> None:
    daemon, url = mock
    cli_transcript(isolated)  # where the CLI writes it: stop and sessionEnd find it there
    fact = "Atlas releases run the migrations before the blue-green switch"
    remember(url, fact, project=ROOT)
    expected: dict[str, tuple[str, dict[str, Any]]] = {
        "sessionStart": ("/api/hooks/session-start", {"sessionKey": CID, "project": ROOT}),
        "beforeSubmitPrompt": (
            "/api/hooks/user-prompt-submit",
            {"sessionKey": CID, "userPrompt": PROMPT, "userMessage": PROMPT, "project": ROOT},
        ),
        "stop": (
            "/api/hooks/session-checkpoint-extract",
            {"sessionKey": CID, "project": ROOT, "transcriptPath": "staged"},
        ),
        "preCompact": (
            "/api/hooks/pre-compaction",
            {
                "sessionKey": CID,
                "sessionContext": "Cursor compaction (auto): context 85% of 128000 tokens, "
                "30 of 45 messages to be summarised",
                "messageCount": 45,
            },
        ),
        "sessionEnd": (
            "/api/hooks/session-end",
            {"sessionKey": CID, "sessionId": CID, "cwd": ROOT, "reason": "completed",
             "transcriptPath": "staged"},
        ),
    }  # fmt: skip
    for event, body in EVENTS.items():
        daemon.clear_requests()
        run = run_hook("cursor", event, body, daemon_url=url)
        assert (run.returncode, run.stderr) == (0, b""), event
        assert outbox_left() == [], event  # sessionEnd's detached sender delivered it
        (request,) = [r for r in daemon.requests if r.path.startswith("/api/hooks/")]
        path, want = expected[event]
        assert (request.path, request.status) == (path, 200), (event, request.response_json)
        got = dict(request.json)
        assert (got.pop("harness"), got.pop("runtimePath")) == ("cursor", "legacy")
        if want.get("transcriptPath") == "staged":
            assert got.pop("transcriptPath").startswith("/tmp/signet/"), event
            want = {k: v for k, v in want.items() if k != "transcriptPath"}
        got.pop("idempotencyKey", None)  # writes carry their outbox entry's id
        got.pop("sourceId", None)
        assert got == want, event
        if event == "sessionStart":
            assert set(json.loads(run.stdout)) == {"additional_context"}
        else:
            assert run.stdout == NEUTRAL[event], event

    second = "1d6e8f20-3b4c-4d5e-9f0a-b1c2d3e4f5a6"
    run = run_hook("cursor", "sessionStart", payload("sessionStart", second), daemon_url=url)
    assert (run.returncode, run.stderr) == (0, b"")
    assert fact in json.loads(run.stdout)["additional_context"]


# -- exact bytes ----------------------------------------------------------------------


def test_stop_in_the_cli_sends_the_transcript_it_finds_byte_for_byte(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    transcript = cli_transcript(isolated)
    scripted_daemon.replies = [Reply(200, {"queued": True, "jobId": "j-1"})]

    run = run_hook("cursor", "stop", EVENTS["stop"], daemon_url=scripted_daemon.url)

    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    (request,) = scripted_daemon.wait_for(1)
    assert outbox_left() == []
    assert request.path == "/api/hooks/session-checkpoint-extract"
    assert request.staged == transcript.read_bytes()  # what the daemon could read
    assert request.headers["x-signet-runtime-path"] == "legacy"
    staged = request.json.pop("transcriptPath")
    assert staged.startswith("/tmp/signet/") and not Path(staged).exists()
    assert request.json == {
        "sessionKey": CID,
        "project": ROOT,
        "harness": "cursor",
        "runtimePath": "legacy",
    }


def test_a_transcript_outside_cursors_folder_is_not_read(
    scripted_daemon: ScriptedDaemon, tmp_path: Path
) -> None:
    outside = tmp_path / "secret.jsonl"
    outside.write_text('{"role":"user","message":{"content":"the vault key"}}\n')
    scripted_daemon.replies = [Reply(200, {"queued": True})]
    stop = dict(EVENTS["stop"], transcript_path=str(outside))

    run = run_hook("cursor", "stop", stop, daemon_url=scripted_daemon.url)

    assert (run.returncode, run.stdout) == (0, b"{}")
    (request,) = scripted_daemon.wait_for(1)
    assert "transcriptPath" not in request.json and "transcript" not in request.json
    assert "vault" not in json.dumps(request.json)


def test_the_prompt_is_recorded_but_its_context_never_printed(
    scripted_daemon: ScriptedDaemon,
) -> None:
    scripted_daemon.replies = [Reply(200, {"inject": "RECALLED", "memoryCount": 1})]
    run = run_hook(
        "cursor", "beforeSubmitPrompt", EVENTS["beforeSubmitPrompt"], daemon_url=scripted_daemon.url
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, b'{"continue":true}', b"")
    (request,) = scripted_daemon.wait_for(1)
    assert request.json["userMessage"] == PROMPT


# -- failing open ---------------------------------------------------------------------


@pytest.mark.parametrize("event", list(EVENTS))
def test_daemon_gone_every_event_still_answers_cursor(event: str) -> None:
    run = run_hook("cursor", event, EVENTS[event], daemon_url=down_daemon_url())
    assert (run.returncode, run.stdout, run.stderr) == (0, NEUTRAL[event], b"")


def test_daemon_gone_logs_one_line_and_a_prompt_is_not_held_up() -> None:
    run = run_hook(
        "cursor", "beforeSubmitPrompt", EVENTS["beforeSubmitPrompt"], daemon_url=down_daemon_url()
    )
    assert (run.returncode, run.stdout) == (0, b'{"continue":true}')
    assert run.seconds < 5.0  # a refused connection is not waited out
    (line,) = hook_log_lines()
    assert "cursor beforeSubmitPrompt" in line and "failed open" in line


def test_a_slow_daemon_costs_a_prompt_its_deadline_only(scripted_daemon: ScriptedDaemon) -> None:
    scripted_daemon.default = Reply(200, {"inject": "late", "memoryCount": 1}, delay=5.0)
    run = run_hook(
        "cursor",
        "beforeSubmitPrompt",
        EVENTS["beforeSubmitPrompt"],
        daemon_url=scripted_daemon.url,
        env={"SIGNET_PROMPT_SUBMIT_TIMEOUT": "1000"},
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, b'{"continue":true}', b"")
    assert run.seconds < 4.0


def test_bad_payloads_fail_open_and_name_the_field(scripted_daemon: ScriptedDaemon) -> None:
    missing = {k: v for k, v in EVENTS["sessionStart"].items()
               if k not in ("conversation_id", "session_id")}  # fmt: skip
    run = run_hook("cursor", "sessionStart", missing, daemon_url=scripted_daemon.url)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    assert scripted_daemon.requests == []
    assert any("conversation_id" in line for line in hook_log_lines())
    run = run_hook("cursor", "beforeSubmitPrompt", b"{not json", daemon_url=scripted_daemon.url)
    assert (run.returncode, run.stderr) == (0, b"")


def test_a_session_end_the_daemon_missed_is_sent_by_the_next_session_start(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    """sessionEnd hands its write to the outbox: a daemon that is down loses nothing."""
    transcript = cli_transcript(isolated)
    quick = {"SIGNET_OUTBOX_FLUSH_SECONDS": "0.5"}
    url = down_daemon_url()
    run = run_hook("cursor", "sessionEnd", EVENTS["sessionEnd"], daemon_url=url, env=quick)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    assert run.seconds < 3.0
    time.sleep(1.5)  # the detached sender gave up; the call stays pending
    assert outbox_left(timeout=0.1) != []

    start = payload("sessionStart", "2e7f9a31-4c5d-4e6f-8a9b-c0d1e2f3a4b5", session_id="x")
    run = run_hook("cursor", "sessionStart", start, daemon_url=scripted_daemon.url)
    assert run.returncode == 0
    got = scripted_daemon.wait_for(2)
    assert outbox_left() == []
    (ended,) = [r for r in got if r.path == "/api/hooks/session-end"]
    assert ended.json["sessionKey"] == CID and ended.json["reason"] == "completed"
    assert ended.staged == transcript.read_bytes()  # with the transcript it had at exit
