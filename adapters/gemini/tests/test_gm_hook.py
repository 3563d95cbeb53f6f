"""The Gemini CLI hook as Gemini runs it: JSON on stdout always, failing open in time.

Gemini parses a hook's stdout as JSON when it exits 0 and, when stdout is
empty, shows the hook's stderr to the user as a message. So every event the
translator sees prints exactly one JSON object, and nothing ever goes to
stderr, whatever the daemon does. (Input the core runner refuses before any
translator, such as stdin that is not a JSON object, prints nothing at all.)
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from gm_support import chat_file, message
from signet_adapter_gemini import PLUGIN

from signet_sdk.testing import HookRun, Reply, ScriptedDaemon, hook_log_lines, outbox_left, run_hook

SID = "7f3c2a91-5b8e-4d17-9c0a-2e6f81d4b3a5"


def _payload(event: str, **extra: object) -> dict[str, object]:
    return {
        "session_id": SID,
        "transcript_path": "",
        "cwd": "/srv/atlas",
        "hook_event_name": event,
        "timestamp": "2026-11-24T09:12:29.481Z",
        **extra,
    }


def _hook(event: str, url: str, env: dict[str, str] | None = None, /, **extra: object) -> HookRun:
    """``event`` through the hook command, its payload :func:`_payload` with ``extra``."""
    return run_hook("gemini", event, _payload(event, **extra), daemon_url=url, env=env)


EXTRA: dict[str, dict[str, object]] = {
    "SessionStart": {"source": "startup"},
    "BeforeAgent": {"prompt": "how do we deploy?"},
    "AfterAgent": {"prompt": "how do we deploy?", "prompt_response": "make ship"},
    "PreCompress": {"trigger": "manual"},
    "SessionEnd": {"reason": "exit"},
}


@pytest.mark.parametrize("event", list(PLUGIN.events))
def test_daemon_down_prints_empty_json_and_nothing_else(event: str, isolated: Path) -> None:
    path = chat_file(isolated, [{"sessionId": SID}, message(1, "user", "q", 1)])
    run = _hook(event, "http://127.0.0.1:9", **EXTRA[event], transcript_path=str(path))
    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")


def test_daemon_down_the_prompt_fails_open_and_is_logged(isolated: Path) -> None:
    run = _hook("BeforeAgent", "http://127.0.0.1:9", prompt="x")
    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    assert any("failed open" in line for line in hook_log_lines())


def test_a_slow_daemon_costs_the_prompt_its_deadline_only(scripted_daemon: ScriptedDaemon) -> None:
    scripted_daemon.default = Reply(200, {"inject": "late"}, delay=5.0)
    slow = {"SIGNET_PROMPT_SUBMIT_TIMEOUT": "800"}
    run = _hook("BeforeAgent", scripted_daemon.url, slow, prompt="deploy?")
    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    assert run.seconds < 3.0  # well inside the 2.8 s the installer gives Gemini's timeout


def test_bad_input_fails_open_and_names_the_field(scripted_daemon: ScriptedDaemon) -> None:
    run = _hook("SessionStart", scripted_daemon.url, session_id=7)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    assert any("session_id" in line for line in hook_log_lines())
    for raw in (b"{not json", b"", b"[]"):
        # Refused by the core runner before any translator: Gemini's neutral output,
        # which it reads as "nothing to add".
        run = run_hook("gemini", "SessionStart", raw, daemon_url=scripted_daemon.url)
        assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    run = _hook("BeforeTool", scripted_daemon.url, tool_name="x")
    assert run.returncode == 0 and run.stderr == b""
    assert scripted_daemon.requests == []


def test_context_reaches_gemini_as_additional_context(scripted_daemon: ScriptedDaemon) -> None:
    scripted_daemon.replies = [Reply(200, {"inject": "- atlas deploys with make ship"})]
    run = _hook("SessionStart", scripted_daemon.url, source="startup")
    assert run.returncode == 0 and run.stderr == b""
    assert json.loads(run.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": "- atlas deploys with make ship",
        }
    }


def test_a_session_end_the_daemon_missed_is_sent_by_the_next_session_start(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    path = chat_file(isolated, [{"sessionId": SID}, message(1, "user", "q", 1)])
    quick = {"SIGNET_OUTBOX_FLUSH_SECONDS": "0.5"}
    run = _hook("SessionEnd", "http://127.0.0.1:9", quick, reason="exit", transcript_path=str(path))
    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    assert run.seconds < 3.0
    time.sleep(1.5)  # the detached sender gave up; the call stays pending
    assert outbox_left(timeout=0.1) != []

    run = _hook("SessionStart", scripted_daemon.url, source="startup", session_id="next-1")
    assert run.returncode == 0
    got = scripted_daemon.wait_for(2)
    assert outbox_left() == []
    ended = [r for r in got if r.path == "/api/hooks/session-end"]
    assert len(ended) == 1 and ended[0].json["sessionKey"] == SID
    assert ended[0].staged == path.read_bytes()  # with the chat as it was at exit


def test_a_clear_session_end_sends_no_chat_file(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    """``/clear``: the daemon discards the session and reads no transcript, as for Claude
    Code's; each turn's AfterAgent already handed the chat over, so none is staged."""
    path = chat_file(isolated, [{"sessionId": SID}, message(1, "user", "q", 1)])
    run = _hook("SessionEnd", scripted_daemon.url, reason="clear", transcript_path=str(path))
    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    (ended,) = scripted_daemon.wait_for(1)
    assert ended.path == "/api/hooks/session-end"
    assert ended.json == {
        "sessionKey": SID,
        "sessionId": SID,
        "cwd": "/srv/atlas",
        "reason": "clear",
        "harness": "gemini",
        "runtimePath": "legacy",
    }


def test_a_context_ending_in_half_an_emoji_still_reaches_the_model(
    scripted_daemon: ScriptedDaemon,
) -> None:
    """The daemon cuts context by UTF-16 units: half a pair must cost one character, not all."""
    scripted_daemon.default = Reply(200, {"inject": "Deploys use make ship \ud83d"})
    run = _hook("BeforeAgent", scripted_daemon.url, prompt="how do we deploy?")
    assert (run.returncode, run.stderr, hook_log_lines()) == (0, b"", [])
    assert json.loads(run.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "BeforeAgent",
            "additionalContext": "Deploys use make ship \ufffd",
        }
    }
    [request] = scripted_daemon.requests
    assert (request.path, request.json) == (
        "/api/hooks/user-prompt-submit",
        {
            "sessionKey": SID,
            "userPrompt": "how do we deploy?",
            "userMessage": "how do we deploy?",
            "project": "/srv/atlas",
            "harness": "gemini",
            "runtimePath": "legacy",
        },
    )
