"""The hook command as Qwen Code runs it: owed session ends, fail open, summaries once.

Each run is ``signet-sdk hook qwen-code <Event>`` in a subprocess, with the
variables Qwen Code gives its hooks (``QWEN_PROJECT_DIR``, and
``QWEN_CODE_LAUNCHER_PID`` naming the Qwen Code process: here a stand-in
process the test starts and ends).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from signet_e2e import down_daemon_url

from signet_sdk.testing import (
    Reply,
    ScriptedDaemon,
    hook_log_lines,
    outbox_entries,
    outbox_left,
    run_hook,
    sdk_state_dir,
    write_jsonl,
)

A = "a1f0c2d3-0000-4000-8000-00000000000a"
B = "b2e1d3c4-0000-4000-8000-00000000000b"
C = "c3d2e4f5-0000-4000-8000-00000000000c"
PROJECT = "/work/atlas"


class QwenProcess:
    """A stand-in for one Qwen Code process: hooks it runs name it as their launcher."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])

    def env(self, url: str) -> dict[str, str]:
        return {
            "QWEN_PROJECT_DIR": PROJECT,
            "QWEN_CODE_LAUNCHER_PID": str(self.proc.pid),
            "SIGNET_DAEMON_URL": url,
            "SIGNET_OUTBOX_FLUSH_SECONDS": "5",
        }

    def exit(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def qwen_processes() -> Iterator[list[QwenProcess]]:
    started: list[QwenProcess] = []
    try:
        yield started
    finally:
        for process in started:
            process.exit()


def record(qwen: Path, session: str, text: str) -> Path:
    """A session record where Qwen Code writes one."""
    return write_jsonl(
        qwen / "projects" / "-work-atlas" / "chats" / f"{session}.jsonl",
        [{"type": "user", "message": {"role": "user", "parts": [{"text": text}]}}],
    )


def payload(event: str, session: str, qwen: Path, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(qwen / "projects" / "-work-atlas" / "chats" / f"{session}.jsonl"),
        "cwd": PROJECT,
        "hook_event_name": event,
        "timestamp": "2026-11-27T09:14:01.512Z",
        "permission_mode": "default",
        **extra,
    }


def flushed_in_vain(timeout: float = 15.0) -> None:
    """Wait until the detached outbox sender gave up on an unreachable daemon and exited.

    It logs that it left entries queued, then lets go of ``outbox/.sender.lock``.
    """
    import fcntl
    import os

    end = time.monotonic() + timeout
    while not any("outbox flush" in line and "still pending" in line for line in hook_log_lines()):
        assert time.monotonic() < end, hook_log_lines()
        time.sleep(0.05)
    fd = os.open(sdk_state_dir() / "outbox" / ".sender.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # blocks until the sender has let go
    finally:
        os.close(fd)


def ends_seen(daemon: ScriptedDaemon) -> list[str]:
    """The sessions whose end the daemon received or the outbox holds.

    A hook puts a session end in the outbox before it exits, and the sender
    takes it out only once the daemon has it: right after a hook returns, an
    end it made is in one place or the other.
    """
    received = [r.json["sessionKey"] for r in daemon.requests if r.path.endswith("session-end")]
    queued = [e["body"]["sessionKey"] for e in outbox_entries() if e["action"] == "session_end"]
    return received + queued


def paths(daemon: ScriptedDaemon) -> list[str]:
    return [r.path.removeprefix("/api/hooks/") for r in daemon.requests]


def start(event_session: str, qwen: Path, env: dict[str, str], source: str = "startup") -> bytes:
    run = run_hook(
        "qwen-code",
        "SessionStart",
        payload("SessionStart", event_session, qwen, source=source, model="qwen3-coder-plus"),
        env=env,
    )
    assert (run.returncode, run.stderr) == (0, b"")
    return run.stdout


# -- the session end a headless run never fires ---------------------------------------


def test_a_finished_session_is_ended_by_the_next_start_with_its_record(
    scripted_daemon: ScriptedDaemon, isolated: Path, qwen_processes: list[QwenProcess]
) -> None:
    first, second = QwenProcess(), QwenProcess()
    qwen_processes += [first, second]
    scripted_daemon.default = Reply(200, {"inject": "CTX"})
    transcript = record(isolated, A, "How do atlas deploys work? MEMO-QH-1")
    start(A, isolated, first.env(scripted_daemon.url))
    stop = payload("Stop", A, isolated, stop_hook_active=False)
    assert run_hook("qwen-code", "Stop", stop, env=first.env(scripted_daemon.url)).returncode == 0
    assert paths(scripted_daemon) == ["session-start", "session-checkpoint-extract"]
    first.exit()  # the headless run is over; Qwen Code fired no SessionEnd

    out = start(B, isolated, second.env(scripted_daemon.url))

    assert json.loads(out) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CTX"}
    }
    (*_, ended) = scripted_daemon.wait_for(4)
    assert paths(scripted_daemon)[2:] == ["session-start", "session-end"]
    assert scripted_daemon.requests[2].json["sessionKey"] == B
    staged = ended.json.pop("transcriptPath")
    assert staged.startswith("/tmp/signet/") and ended.staged == transcript.read_bytes()
    assert ended.json == {
        "sessionKey": A,
        "sessionId": A,
        "cwd": PROJECT,
        "reason": "other",
        "harness": "qwen-code",
        "runtimePath": "legacy",
    }
    assert outbox_left(10) == []

    # Another start (B's process still runs): nothing more is owed.
    start(C, isolated, second.env(scripted_daemon.url))
    assert ends_seen(scripted_daemon) == [A]


def test_a_resumed_session_goes_on_and_a_running_one_is_left_alone(
    scripted_daemon: ScriptedDaemon, isolated: Path, qwen_processes: list[QwenProcess]
) -> None:
    first, second, other = QwenProcess(), QwenProcess(), QwenProcess()
    qwen_processes += [first, second, other]
    start(A, isolated, first.env(scripted_daemon.url))
    start(B, isolated, other.env(scripted_daemon.url))  # another terminal, still open
    first.exit()
    # ``qwen -p --resume A``: the same session in a new process is not an end.
    start(A, isolated, second.env(scripted_daemon.url), source="resume")
    assert ends_seen(scripted_daemon) == []
    assert paths(scripted_daemon) == ["session-start"] * 3
    notes = sorted(p.name for p in (sdk_state_dir() / "qwen-code-sessions").iterdir())
    assert notes == [f"{A}.json", f"{B}.json"]


def test_an_interactive_end_is_not_sent_again(
    scripted_daemon: ScriptedDaemon, isolated: Path, qwen_processes: list[QwenProcess]
) -> None:
    first, second = QwenProcess(), QwenProcess()
    qwen_processes += [first, second]
    record(isolated, A, "a turn")
    start(A, isolated, first.env(scripted_daemon.url))
    end = payload("SessionEnd", A, isolated, reason="prompt_input_exit")
    run = run_hook("qwen-code", "SessionEnd", end, env=first.env(scripted_daemon.url))
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    (ended,) = [r for r in scripted_daemon.wait_for(2) if r.path.endswith("session-end")]
    assert ended.json["reason"] == "prompt_input_exit"
    first.exit()

    start(B, isolated, second.env(scripted_daemon.url))
    assert ends_seen(scripted_daemon) == [A]  # the one its own SessionEnd sent
    assert paths(scripted_daemon) == ["session-start", "session-end", "session-start"]


def test_with_the_daemon_down_the_owed_end_waits_in_the_outbox(
    scripted_daemon: ScriptedDaemon, isolated: Path, qwen_processes: list[QwenProcess]
) -> None:
    first, second, third = QwenProcess(), QwenProcess(), QwenProcess()
    qwen_processes += [first, second, third]
    transcript = record(isolated, A, "a turn worth keeping")
    # One try each, and no breaker: the daemon coming back is seen at once.
    down = {"SIGNET_OUTBOX_FLUSH_SECONDS": "0", "SIGNET_BREAKER_FAILURES": "0"}
    start(A, isolated, {**first.env(down_daemon_url()), **down})
    first.exit()

    begun = time.monotonic()
    assert start(B, isolated, {**second.env(down_daemon_url()), **down}) == b""
    assert time.monotonic() - begun < 5  # a refused connection fails at once, not at the deadline
    flushed_in_vain()
    (owed,) = [e for e in outbox_entries() if e["action"] == "session_end"]
    assert owed["body"]["sessionKey"] == A
    assert any("failed open" in line for line in hook_log_lines())

    # The daemon is back: the next start sends what was owed, record and all.
    start(C, isolated, third.env(scripted_daemon.url))
    ended = [r for r in scripted_daemon.wait_for(2) if r.path.endswith("session-end")]
    assert [r.json["sessionKey"] for r in ended] == [A]
    assert ended[0].staged == transcript.read_bytes()
    assert outbox_left(10) == []


# -- the other events ------------------------------------------------------------------


def test_a_summary_reported_by_two_hook_processes_is_sent_once(
    scripted_daemon: ScriptedDaemon, isolated: Path, qwen_processes: list[QwenProcess]
) -> None:
    process = QwenProcess()
    qwen_processes.append(process)
    event = payload("PostCompact", A, isolated, trigger="manual", compact_summary="SUMMARY-1")
    for _ in range(2):  # installed from two environments: both handlers run
        run = run_hook("qwen-code", "PostCompact", event, env=process.env(scripted_daemon.url))
        assert (run.returncode, run.stdout) == (0, b"")
    assert paths(scripted_daemon) == ["compaction-complete"]
    assert scripted_daemon.requests[0].json["summary"] == "SUMMARY-1"


def test_a_tool_result_continuation_costs_no_daemon_call(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    event = payload("UserPromptSubmit", A, isolated, prompt="", prompt_id=f"{A}########0")
    run = run_hook("qwen-code", "UserPromptSubmit", event, daemon_url=scripted_daemon.url)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    assert scripted_daemon.requests == []
    assert hook_log_lines() == []


def test_pre_compact_gives_the_summariser_the_daemons_guidance(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    scripted_daemon.default = Reply(200, {"summaryPrompt": "Keep the SQL.", "guidelines": ""})
    event = payload("PreCompact", A, isolated, trigger="auto", custom_instructions="")
    run = run_hook("qwen-code", "PreCompact", event, daemon_url=scripted_daemon.url)
    assert json.loads(run.stdout) == {
        "hookSpecificOutput": {"hookEventName": "PreCompact", "additionalContext": "Keep the SQL."}
    }
    (call,) = scripted_daemon.requests
    assert call.json["sessionContext"] == "Qwen Code compaction (auto)"


def test_daemon_down_fails_open_with_one_log_line(isolated: Path) -> None:
    event = payload("UserPromptSubmit", A, isolated, prompt="what did we decide?")
    run = run_hook("qwen-code", "UserPromptSubmit", event, daemon_url=down_daemon_url())
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    (line,) = hook_log_lines()
    assert "qwen-code UserPromptSubmit" in line and "failed open" in line


def test_bypass_reads_nothing_and_notes_nothing(
    scripted_daemon: ScriptedDaemon, isolated: Path, qwen_processes: list[QwenProcess]
) -> None:
    process = QwenProcess()
    qwen_processes.append(process)
    env = {**process.env(scripted_daemon.url), "SIGNET_BYPASS": "1"}
    assert start(A, isolated, env) == b""
    assert scripted_daemon.requests == []
    assert not (sdk_state_dir() / "qwen-code-sessions").exists()
