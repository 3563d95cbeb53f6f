"""The hook command as Claude Code runs it: fail open, deadlines, bypass, stdin, outbox."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from signet_e2e import down_daemon_url

from signet_sdk.testing import (
    Reply,
    ScriptedDaemon,
    hook_command,
    hook_log_lines,
    outbox_left,
    run_hook,
    sdk_state_dir,
)

SID = "0d9e8f7a-1111-4222-8333-444455556666"


def payload(event: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "session_id": SID,
        "transcript_path": str(Path.home() / ".claude" / "projects" / "p" / f"{SID}.jsonl"),
        "cwd": "/work/atlas",
        "hook_event_name": event,
    }
    body.update(extra)
    return body


def write_transcript(text: str = '{"type":"user","message":{"content":"hi"}}\n') -> Path:
    path = Path.home() / ".claude" / "projects" / "p" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


PROMPT = payload("UserPromptSubmit", prompt="what did we decide?")
FAST_FLUSH = {"SIGNET_OUTBOX_FLUSH_SECONDS": "1"}


# -- fail open ------------------------------------------------------------------


def test_daemon_down_fails_open_with_one_log_line() -> None:
    run = run_hook("claude-code", "UserPromptSubmit", PROMPT, daemon_url=down_daemon_url())
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    lines = hook_log_lines()
    assert len(lines) == 1
    assert "claude-code UserPromptSubmit" in lines[0]
    assert "failed open" in lines[0]


@pytest.mark.parametrize(
    ("event", "variable"),
    [
        ("UserPromptSubmit", "SIGNET_PROMPT_SUBMIT_TIMEOUT"),
        ("SessionStart", "SIGNET_SESSION_START_TIMEOUT"),
        ("PreCompact", "SIGNET_FETCH_TIMEOUT"),
    ],
)
def test_slow_daemon_ends_within_the_deadline(
    scripted_daemon: ScriptedDaemon, event: str, variable: str
) -> None:
    scripted_daemon.default = Reply(200, {"inject": "too late"}, delay=5.0)
    body = payload(event, prompt="x", source="startup", trigger="manual")
    run = run_hook(
        "claude-code", event, body, daemon_url=scripted_daemon.url, env={variable: "1000"}
    )
    assert (run.returncode, run.stdout) == (0, b"")
    assert run.seconds < 1.0 + 0.8, run.seconds
    assert any("failed open" in line or "deadline" in line for line in hook_log_lines())


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (500, {"error": "Hook execution failed"}),
        (409, {"error": "session claimed by plugin path"}),
        (400, {"error": "harness is required"}),
        (200, "not json at all"),
    ],
)
def test_daemon_errors_fail_open(scripted_daemon: ScriptedDaemon, status: int, body: Any) -> None:
    scripted_daemon.default = Reply(status, body)
    run = run_hook(
        "claude-code",
        "SessionStart",
        payload("SessionStart", source="startup"),
        daemon_url=scripted_daemon.url,
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    if status != 200:
        assert any("failed open" in line for line in hook_log_lines())


@pytest.mark.parametrize(
    "raw",
    [b"", b"not json", b"[1, 2]", b'{"session_id": 5}', b'{"cwd": "/x"}', b"\xff\xfe"],
    ids=["empty", "text", "array", "wrong-type", "no-session", "bytes"],
)
def test_malformed_stdin_fails_open(scripted_daemon: ScriptedDaemon, raw: bytes) -> None:
    run = run_hook("claude-code", "UserPromptSubmit", raw, daemon_url=scripted_daemon.url)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    assert scripted_daemon.requests == []
    assert len(hook_log_lines()) == 1


def test_payload_error_names_the_field(scripted_daemon: ScriptedDaemon) -> None:
    run_hook(
        "claude-code",
        "PostCompact",
        payload("PostCompact", trigger="manual"),
        daemon_url=scripted_daemon.url,
    )
    (line,) = hook_log_lines()
    assert "compact_summary" in line


def _popen_hook(event: str, url: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, SIGNET_DAEMON_URL=url)
    return subprocess.Popen(
        [*hook_command("claude-code"), event],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def test_stdin_left_open_with_a_whole_payload_answers_at_once(
    scripted_daemon: ScriptedDaemon,
) -> None:
    scripted_daemon.default = Reply(200, {"inject": "CTX", "memoryCount": 1})
    proc = _popen_hook("UserPromptSubmit", scripted_daemon.url)
    assert proc.stdin is not None and proc.stdout is not None
    start = time.monotonic()
    proc.stdin.write(json.dumps(PROMPT).encode())
    proc.stdin.flush()  # and never closed, as a harness that keeps the pipe might
    try:
        out = proc.stdout.read()  # returns at EOF: when the hook has exited
        proc.wait(timeout=10)
    finally:
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    assert time.monotonic() - start < 1.5
    assert proc.returncode == 0
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == "CTX"


def test_stdin_left_open_with_half_a_payload_is_time_bounded(
    scripted_daemon: ScriptedDaemon,
) -> None:
    proc = _popen_hook("UserPromptSubmit", scripted_daemon.url)
    assert proc.stdin is not None and proc.stdout is not None
    start = time.monotonic()
    proc.stdin.write(b'{"session_id": "abc", "prompt": "unfinished')
    proc.stdin.flush()
    try:
        out = proc.stdout.read()
        proc.wait(timeout=10)
    finally:
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    assert 1.5 < time.monotonic() - start < 3.5
    assert (proc.returncode, out) == (0, b"")
    assert scripted_daemon.requests == []
    assert any("bad stdin" in line for line in hook_log_lines())


def test_python_m_runs_the_same_hook(scripted_daemon: ScriptedDaemon) -> None:
    """The installer's fallback form, ``python -m signet_sdk hook claude-code <Event>``."""
    scripted_daemon.default = Reply(200, {"inject": "CTX", "memoryCount": 1})
    env = dict(os.environ, SIGNET_DAEMON_URL=scripted_daemon.url)
    argv = [sys.executable, "-m", "signet_sdk", "hook", "claude-code", "UserPromptSubmit"]
    proc = subprocess.run(argv, input=json.dumps(PROMPT).encode(), capture_output=True, env=env)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] == "CTX"
    assert scripted_daemon.requests[0].json["harness"] == "claude-code"


def test_event_may_come_from_the_payload(scripted_daemon: ScriptedDaemon) -> None:
    scripted_daemon.default = Reply(200, {"inject": "CTX", "memoryCount": 1})
    run = run_hook(
        "claude-code",
        None,
        dict(PROMPT, hook_event_name="UserPromptSubmit"),
        daemon_url=scripted_daemon.url,
    )
    assert json.loads(run.stdout)["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"


# -- bypass and recursion --------------------------------------------------------


@pytest.mark.parametrize("variable", ["SIGNET_BYPASS", "SIGNET_NO_HOOKS"])
def test_bypass_exits_before_any_request(scripted_daemon: ScriptedDaemon, variable: str) -> None:
    write_transcript()
    for event, body in [
        ("SessionStart", payload("SessionStart", source="startup")),
        ("UserPromptSubmit", PROMPT),
        ("SessionEnd", payload("SessionEnd", reason="other")),
    ]:
        run = run_hook(
            "claude-code", event, body, daemon_url=scripted_daemon.url, env={variable: "1"}
        )
        assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    time.sleep(0.3)
    assert scripted_daemon.requests == []
    assert not sdk_state_dir().exists()  # no log, no outbox: nothing was even read


def test_children_get_signet_no_hooks(tmp_path: Path) -> None:
    from signet_sdk.hooks.runner import spawn_detached

    marker = tmp_path / "env.txt"
    code = f"import os; open({str(marker)!r}, 'w').write(os.environ.get('SIGNET_NO_HOOKS', '-'))"
    spawn_detached([sys.executable, "-c", code], env={"PATH": os.environ.get("PATH", "")})
    end = time.monotonic() + 10
    while time.monotonic() < end and not (marker.exists() and marker.read_text()):
        time.sleep(0.02)
    assert marker.read_text() == "1"


def test_hook_process_sets_signet_no_hooks_for_anything_it_spawns(
    scripted_daemon: ScriptedDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from signet_adapter_claude_code import PLUGIN

    from signet_sdk.hooks.runner import run_hook as run_in_process

    monkeypatch.delenv("SIGNET_NO_HOOKS", raising=False)
    monkeypatch.setenv("SIGNET_DAEMON_URL", scripted_daemon.url)
    read_fd, write_fd = os.pipe()
    os.write(write_fd, json.dumps(PROMPT).encode())
    os.close(write_fd)
    out = io.BytesIO()
    try:
        code = run_in_process(PLUGIN, "UserPromptSubmit", stdin_fd=read_fd, stdout=out)
    finally:
        os.close(read_fd)
    assert code == 0
    assert os.environ["SIGNET_NO_HOOKS"] == "1"
    # ... and the request itself did not carry the daemon's no-op header.
    assert "x-signet-no-hooks" not in scripted_daemon.requests[0].headers


# -- identity --------------------------------------------------------------------


def test_agent_id_comes_from_config_never_from_the_payload(scripted_daemon: ScriptedDaemon) -> None:
    scripted_daemon.default = Reply(200, {"inject": "", "memoryCount": 0})
    body = dict(PROMPT, agent_id="subagent-42")
    run_hook(
        "claude-code",
        "UserPromptSubmit",
        body,
        daemon_url=scripted_daemon.url,
        env={"SIGNET_AGENT_ID": "atlas"},
    )
    run_hook("claude-code", "UserPromptSubmit", body, daemon_url=scripted_daemon.url)
    first, second = scripted_daemon.wait_for(2)
    assert first.json["agentId"] == "atlas"
    assert first.headers["x-signet-agent-id"] == "atlas"
    assert first.json["harnessAgentId"] == "subagent-42"
    assert "agentId" not in second.json


def test_claude_project_dir_is_the_project(scripted_daemon: ScriptedDaemon, tmp_path: Path) -> None:
    scripted_daemon.default = Reply(200, {"inject": "", "memories": []})
    env = {"CLAUDE_PROJECT_DIR": str(tmp_path)}
    run_hook(
        "claude-code",
        "SessionStart",
        payload("SessionStart", source="startup"),
        daemon_url=scripted_daemon.url,
        env=env,
    )
    assert scripted_daemon.requests[0].json["project"] == str(tmp_path)


# -- outbox: hand-off first, then send ---------------------------------------------


def test_session_end_with_daemon_down_keeps_the_transcript_and_replays_at_next_start(
    scripted_daemon: ScriptedDaemon,
) -> None:
    transcript = write_transcript()
    down = down_daemon_url()
    end = payload("SessionEnd", reason="prompt_input_exit")
    run = run_hook("claude-code", "SessionEnd", end, daemon_url=down, env=FAST_FLUSH)
    assert (run.returncode, run.stdout) == (0, b"")
    assert run.seconds < 1.5
    outbox = sdk_state_dir() / "outbox"
    (entry,) = outbox.glob("*.json")
    assert entry.stat().st_mode & 0o777 == 0o600
    assert outbox.stat().st_mode & 0o777 == 0o700
    transcript.write_text("later edits must not change what was handed off\n")
    time.sleep(1.5)  # the first flusher gives up against the dead port
    assert entry.exists()

    scripted_daemon.default = Reply(200, {"inject": "", "memories": [], "memoriesSaved": 0})
    start = payload("SessionStart", source="resume")
    run_hook("claude-code", "SessionStart", start, daemon_url=scripted_daemon.url, env=FAST_FLUSH)
    got = scripted_daemon.wait_for(2)
    assert outbox_left() == []
    assert sorted(r.path for r in got) == ["/api/hooks/session-end", "/api/hooks/session-start"]
    (ended,) = [r for r in got if r.path.endswith("session-end")]
    assert ended.json["reason"] == "prompt_input_exit"
    assert ended.staged == b'{"type":"user","message":{"content":"hi"}}\n'
    time.sleep(0.3)
    assert len(scripted_daemon.requests) == 2  # exactly once


def test_stop_checkpoint_is_sent_inline_and_leaves_nothing(scripted_daemon: ScriptedDaemon) -> None:
    write_transcript()
    scripted_daemon.default = Reply(200, {"queued": True, "jobId": "j1"})
    run = run_hook(
        "claude-code",
        "Stop",
        payload("Stop", stop_hook_active=False),
        daemon_url=scripted_daemon.url,
    )
    assert (run.returncode, run.stdout) == (0, b"")
    (request,) = scripted_daemon.requests  # sent by the hook itself, before it exited
    assert request.path == "/api/hooks/session-checkpoint-extract"
    assert outbox_left(0.1) == []


def test_rejected_write_goes_to_dead_letters_with_a_reason(scripted_daemon: ScriptedDaemon) -> None:
    write_transcript()
    scripted_daemon.default = Reply(400, {"error": "harness and summary are required"})
    body = payload("PostCompact", trigger="auto", compact_summary="S")
    run = run_hook("claude-code", "PostCompact", body, daemon_url=scripted_daemon.url)
    assert (run.returncode, run.stdout) == (0, b"")
    dead = sdk_state_dir() / "outbox" / "dead"
    (reason,) = dead.glob("*.reason")
    assert "rejected" in reason.read_text()
    assert list(dead.glob("*.json"))
    assert any("moved to" in line for line in hook_log_lines())


def test_hooks_log_is_never_written_through_a_planted_symlink(tmp_path: Path) -> None:
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n")
    folder = sdk_state_dir()
    folder.mkdir(parents=True, mode=0o700)
    (folder / "hooks.log").symlink_to(target)
    run = run_hook("claude-code", "UserPromptSubmit", b"not json", daemon_url="http://127.0.0.1:9")
    assert (run.returncode, run.stdout) == (0, b"")
    assert target.read_text() == "keep me\n"


def test_a_state_directory_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = sdk_state_dir()
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(elsewhere, target_is_directory=True)
    run = run_hook("claude-code", "UserPromptSubmit", b"not json", daemon_url="http://127.0.0.1:9")
    assert (run.returncode, run.stdout) == (0, b"")
    assert list(elsewhere.iterdir()) == []  # nothing was written through the link
