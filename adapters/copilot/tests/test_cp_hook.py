"""The installed hook command with a session's ``events.jsonl`` on disk, and the outbox.

Each test runs ``signet-sdk hook copilot <event>`` as Copilot CLI does (the
payload on stdin) against a recording daemon, with the session's events file
where Copilot writes it. What is checked is what a user relies on: the
summary of a ``/compact`` reaches the daemon exactly once, from whichever
hook comes next, and is never lost: not when the session ends right after,
not when the daemon is down then, not when the hook runs twice.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cp_events import (
    CWD,
    SESSION,
    SUMMARY,
    T0,
    assistant,
    compaction,
    conversation_bytes,
    events_file,
    hook_end,
    hook_start,
    other,
    payload,
    user,
)

from signet_sdk.testing import (
    Reply,
    ScriptedDaemon,
    hook_log_lines,
    outbox_entries,
    outbox_left,
    run_hook,
)

PROMPT = payload(T0 + 100, prompt="How do we deploy atlas?")
STOP = payload(T0 + 900, stopReason="end_turn", stop_hook_active=False)
PRE = payload(T0 + 5000, trigger="manual", customInstructions="")
END = payload(T0 + 20000, reason="user_exit")
CONVERSATION = conversation_bytes(
    ("user", "How do we deploy atlas?"), ("assistant", "Run make ship.")
)


def _compacted_session(*after: dict[str, Any]) -> list[dict[str, Any]]:
    """A turn, then /compact (preCompact, the summary), then ``after``."""
    return [
        other("session.start"),
        hook_start("sessionStart", payload(T0, source="new")),
        hook_end("sessionStart"),
        hook_start("userPromptSubmitted", PROMPT),
        hook_end("userPromptSubmitted"),
        user("How do we deploy atlas?"),
        assistant("Run make ship."),
        hook_start("agentStop", STOP),
        hook_end("agentStop"),
        hook_start("preCompact", PRE),
        hook_end("preCompact"),
        compaction(),
        *after,
    ]


def _wait(done: Callable[[], bool], limit: float = 20.0) -> None:
    end = time.monotonic() + limit
    while not done():
        assert time.monotonic() < end, hook_log_lines()
        time.sleep(0.02)


def _paths(daemon: ScriptedDaemon) -> list[str]:
    return [r.path.removeprefix("/api/hooks/") for r in daemon.requests]


def _run(event: str, given: dict[str, Any], url: str, **env: str) -> bytes:
    run = run_hook("copilot", event, given, daemon_url=url, env=env)
    assert (run.returncode, run.stderr) == (0, b"")
    return run.stdout


def test_a_session_ending_right_after_a_compact_sends_its_summary_once(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    events_file(isolated, _compacted_session(hook_start("sessionEnd", END)))

    assert _run("sessionEnd", END, scripted_daemon.url) == b""
    assert outbox_left(15) == []

    assert _paths(scripted_daemon) == ["compaction-complete", "session-end"]
    done, ended = scripted_daemon.requests
    assert done.json["summary"] == SUMMARY
    assert (done.json["sessionKey"], done.json["project"]) == (SESSION, CWD)
    assert (ended.json["reason"], ended.json["cwd"]) == ("user_exit", CWD)
    assert ended.json["transcriptPath"].startswith("/tmp/signet/")
    assert ended.staged == CONVERSATION

    # The same hook again (installed twice): the session ends again, the summary does not.
    assert _run("sessionEnd", END, scripted_daemon.url) == b""
    assert outbox_left(15) == []
    assert _paths(scripted_daemon) == ["compaction-complete", "session-end", "session-end"]


def test_with_the_daemon_down_the_summary_waits_in_the_outbox_until_the_next_session(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    events_file(isolated, _compacted_session(hook_start("sessionEnd", END)))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{s.getsockname()[1]}"

    assert _run("sessionEnd", END, down, SIGNET_OUTBOX_FLUSH_SECONDS="0") == b""

    _wait(lambda: any("still pending" in line for line in hook_log_lines()))
    queued = outbox_entries()  # the sender, given 0 s, tried nothing and left them
    assert [e["action"] for e in queued] == ["compaction_complete", "session_end"]
    assert queued[0]["body"]["summary"] == SUMMARY

    # The next session starts with the daemon back: its sessionStart replays the outbox.
    scripted_daemon.default = Reply(200, {"inject": "MEMORY"})
    later = payload(T0 + 90000, session="a9e3c1d2-0000-4000-8000-000000000009", source="new")
    out = _run("sessionStart", later, scripted_daemon.url)
    assert json.loads(out) == {"additionalContext": "MEMORY"}
    assert outbox_left(15) == []
    paths = _paths(scripted_daemon)
    assert sorted(paths) == ["compaction-complete", "session-end", "session-start"]
    (done,) = [r for r in scripted_daemon.requests if r.path.endswith("/compaction-complete")]
    assert done.json["summary"] == SUMMARY


def test_the_next_prompt_gets_its_context_and_hands_the_summary_to_the_sender(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    nxt = payload(T0 + 30000, prompt="and the staging database?")
    events_file(isolated, _compacted_session(hook_start("userPromptSubmitted", nxt)))
    scripted_daemon.replies = [Reply(200, {"inject": "Staging is pg-staging-2."})]

    out = _run("userPromptSubmitted", nxt, scripted_daemon.url)

    assert json.loads(out) == {"additionalContext": "Staging is pg-staging-2."}
    assert outbox_left(15) == []
    assert _paths(scripted_daemon) == ["user-prompt-submit", "compaction-complete"]
    prompt, done = scripted_daemon.requests
    assert prompt.json["userPrompt"] == "and the staging database?"
    assert done.json["summary"] == SUMMARY


def test_the_turns_checkpoint_carries_the_conversation_after_a_summary_of_that_turn(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    auto = payload(T0 + 400, trigger="auto", customInstructions="")
    records = [
        hook_start("userPromptSubmitted", PROMPT),
        user("How do we deploy atlas?"),
        hook_start("preCompact", auto),
        compaction("AUTO SUMMARY"),
        assistant("Run make ship."),
        hook_start("agentStop", STOP),
    ]
    path = events_file(isolated, records)
    stop = {**STOP, "transcriptPath": str(path)}

    assert _run("agentStop", stop, scripted_daemon.url) == b""

    assert _paths(scripted_daemon) == ["compaction-complete", "session-checkpoint-extract"]
    done, checkpoint = scripted_daemon.requests
    assert done.json["summary"] == "AUTO SUMMARY"
    assert checkpoint.json["sessionKey"] == SESSION
    assert checkpoint.json["transcriptPath"].startswith("/tmp/signet/")
    assert checkpoint.staged == CONVERSATION
    assert outbox_left(5) == []


def test_a_long_session_is_searched_from_its_end(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    """Megabytes of earlier turns: the summary near the end is still found (across chunks)."""
    earlier = [assistant("x" * 4000) for _ in range(600)]
    records = [*earlier, *_compacted_session(hook_start("sessionEnd", END))]
    path = events_file(isolated, records)
    assert path.stat().st_size > 2_000_000

    _run("sessionEnd", END, scripted_daemon.url)

    assert outbox_left(15) == []
    assert _paths(scripted_daemon) == ["compaction-complete", "session-end"]


def test_an_unreadable_events_file_costs_the_summary_nothing_else(
    scripted_daemon: ScriptedDaemon, isolated: Path, tmp_path: Path
) -> None:
    """A transcriptPath outside Copilot's folder is not read: the checkpoint goes without it."""
    outside = tmp_path / "elsewhere" / "events.jsonl"
    outside.parent.mkdir()
    outside.write_text(json.dumps(compaction()) + "\n")

    _run("agentStop", {**STOP, "transcriptPath": str(outside)}, scripted_daemon.url)

    assert _paths(scripted_daemon) == ["session-checkpoint-extract"]
    assert "transcriptPath" not in scripted_daemon.requests[0].json
    assert any("transcript not sent" in line for line in hook_log_lines())


def test_a_log_without_a_conversation_sends_no_checkpoint_and_never_the_log(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    """events.jsonl was read but holds no message typed by the user or written by the agent
    (system prompts, a skill's injected prompt, tool output): there is nothing to save, so no
    checkpoint goes, and Copilot's raw log is never sent in place of the conversation."""
    records = [
        other("session.start"),
        hook_start("sessionStart", payload(T0, source="new")),
        other("system.message"),
        user("Load the deploy skill.", source="skill"),
        other("tool.execution_complete"),
        assistant("helper work", agent="sub-1"),
        hook_start("agentStop", STOP),
    ]
    path = events_file(isolated, records)

    assert _run("agentStop", {**STOP, "transcriptPath": str(path)}, scripted_daemon.url) == b""

    assert outbox_left(5) == []
    assert _paths(scripted_daemon) == []
