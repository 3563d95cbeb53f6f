"""``signet-sdk hook kimi <Event>`` as Kimi Code runs it, on a session laid out as Kimi keeps it.

Each hook is the installed command in its own process, reading the payload
Kimi sends on stdin, against a recording fake daemon. The session's folder
(``state.json``, ``agents/main/wire.jsonl``) is where the real ``kimi``
puts it; the test process stands in for Kimi (it is the hook's parent).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from km_wire import PROJECT, SESSION, append, compaction, make_session, turn_records
from signet_adapter_kimi._state import OpenProcess, open_process, open_processes
from signet_e2e import down_daemon_url

from signet_sdk.testing import (
    Reply,
    ScriptedDaemon,
    hook_log_lines,
    outbox_entries,
    run_hook,
)

OTHER = "session_9d4b1c2e-5f60-4a7b-8c9d-0e1f2a3b4c5d"
START = "## Signet memory\n- Atlas deploys go through make ship."
RECALL = "- Staging runs on pg-staging-2."


def payload(event: str, session: str = SESSION, **fields: Any) -> dict[str, Any]:
    return {
        "hook_event_name": event,
        "session_id": session,
        "cwd": PROJECT,
        "client_type": "kimi_code_cli",
        **fields,
    }


def ask(text: str) -> dict[str, Any]:
    return payload("UserPromptSubmit", prompt=[{"type": "text", "text": text}], is_steer=False)


def conversation(*pairs: tuple[str, str]) -> bytes:
    lines = []
    for question, reply in pairs:
        lines.append(json.dumps({"role": "user", "content": question}, separators=(",", ":")))
        lines.append(json.dumps({"role": "assistant", "content": reply}, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode()


def paths(daemon: ScriptedDaemon) -> list[str]:
    return [r.path for r in daemon.requests]


def test_the_start_context_reaches_the_first_prompt_once(
    isolated: Path, scripted_daemon: ScriptedDaemon
) -> None:
    make_session(isolated, [])
    scripted_daemon.replies = [
        Reply(200, {"inject": START}, path="/api/hooks/session-start"),
        Reply(200, {"inject": RECALL}, path="/api/hooks/user-prompt-submit"),
        Reply(200, {"inject": RECALL}, path="/api/hooks/user-prompt-submit"),
    ]
    url = scripted_daemon.url

    started = run_hook(
        "kimi", "SessionStart", payload("SessionStart", source="startup"), daemon_url=url
    )
    first = run_hook("kimi", "UserPromptSubmit", ask("How do atlas deploys work?"), daemon_url=url)
    second = run_hook("kimi", "UserPromptSubmit", ask("And staging?"), daemon_url=url)

    assert (started.returncode, started.stdout, started.stderr) == (0, START.encode(), b"")
    assert first.stdout == f"{START}\n\n{RECALL}".encode()
    assert second.stdout == RECALL.encode()
    assert paths(scripted_daemon) == [
        "/api/hooks/session-start",
        "/api/hooks/user-prompt-submit",
        "/api/hooks/user-prompt-submit",
    ]
    (record,) = open_processes(dict(os.environ))  # this process stands in for Kimi
    assert (record.session, record.pid) == (SESSION, os.getpid())


def test_a_degraded_notice_at_session_start_is_not_held_for_the_first_prompt(
    isolated: Path, scripted_daemon: ScriptedDaemon
) -> None:
    """SIGNET_DEGRADED_NOTICE=1 and the daemon down at SessionStart: the notice is that
    hook's output only. Held, it told the model at the first prompt (the daemon back)
    that memory could not be loaded, above the memory it did load."""
    make_session(isolated, [])
    notice = {"SIGNET_DEGRADED_NOTICE": "1"}
    start = payload("SessionStart", source="startup")

    down = run_hook("kimi", "SessionStart", start, daemon_url=down_daemon_url(), env=notice)
    scripted_daemon.replies = [Reply(200, {"inject": RECALL})]
    first = run_hook(
        "kimi", "UserPromptSubmit", ask("And staging?"), daemon_url=scripted_daemon.url, env=notice
    )

    assert down.returncode == 0 and b"could not be loaded" in down.stdout
    assert (first.returncode, first.stdout, first.stderr) == (0, RECALL.encode(), b"")


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_session_start_ends_a_session_whose_kimi_process_has_gone(
    isolated: Path, scripted_daemon: ScriptedDaemon
) -> None:
    """``kimi -p`` fires no SessionEnd: the next SessionStart sends it, conversation and all."""
    env = dict(os.environ)
    gone = make_session(
        isolated, turn_records("How do atlas deploys work?", "make ship", 0, 10), session=OTHER
    )
    append(gone, compaction("Atlas: make ship.", 99))
    folder = str(gone.parent.parent.parent)
    open_process(env, OpenProcess(OTHER, "/srv/billing", folder, _dead_pid(), None, time.time()))
    make_session(isolated, [])

    run = run_hook(
        "kimi",
        "SessionStart",
        payload("SessionStart", source="startup"),
        daemon_url=scripted_daemon.url,
    )

    assert run.returncode == 0
    got = scripted_daemon.wait_for(3)
    assert paths(scripted_daemon) == [
        "/api/hooks/compaction-complete",
        "/api/hooks/session-end",
        "/api/hooks/session-start",
    ]
    done, ended, started = got
    assert (done.json["sessionKey"], done.json["summary"]) == (OTHER, "Atlas: make ship.")
    assert {k: ended.json[k] for k in ("sessionKey", "sessionId", "cwd", "reason")} == {
        "sessionKey": OTHER,
        "sessionId": OTHER,
        "cwd": "/srv/billing",
        "reason": "exit",
    }
    assert ended.json["transcriptPath"].startswith("/tmp/signet/")
    assert ended.staged == conversation(("How do atlas deploys work?", "make ship"))
    assert started.json["sessionKey"] == SESSION
    assert [r.session for r in open_processes(env)] == [SESSION]


def test_resuming_a_session_ends_its_previous_run_before_starting_again(
    isolated: Path, scripted_daemon: ScriptedDaemon
) -> None:
    env = dict(os.environ)
    wire = make_session(isolated, turn_records("first question", "first answer", 0, 10))
    open_process(
        env,
        OpenProcess(
            SESSION, PROJECT, str(wire.parent.parent.parent), _dead_pid(), None, time.time()
        ),
    )

    run_hook(
        "kimi",
        "SessionStart",
        payload("SessionStart", source="resume"),
        daemon_url=scripted_daemon.url,
    )

    ended, started = scripted_daemon.wait_for(2)
    assert (ended.path, ended.json["sessionKey"], ended.json["reason"]) == (
        "/api/hooks/session-end",
        SESSION,
        "exit",
    )
    assert (started.path, started.json["source"]) == ("/api/hooks/session-start", "resume")


def test_stop_hands_over_the_conversation_and_a_compaction_once(
    isolated: Path, scripted_daemon: ScriptedDaemon
) -> None:
    wire = make_session(isolated, turn_records("How do atlas deploys work?", "make ship", 0, 10))
    append(wire, compaction("Atlas: make ship.", 99))
    url = scripted_daemon.url

    post = run_hook(
        "kimi",
        "PostCompact",
        payload("PostCompact", trigger="auto", estimated_token_count=9),
        daemon_url=url,
    )
    scripted_daemon.wait_for(1)
    stop = run_hook("kimi", "Stop", payload("Stop", stop_hook_active=False), daemon_url=url)

    assert (post.stdout, stop.stdout) == (b"", b"")
    done, checkpoint = scripted_daemon.wait_for(2)
    assert paths(scripted_daemon) == [
        "/api/hooks/compaction-complete",
        "/api/hooks/session-checkpoint-extract",
    ]
    keys = ("sessionKey", "summary", "project", "harness", "runtimePath")
    assert {k: done.json[k] for k in keys} == {
        "sessionKey": SESSION,
        "summary": "Atlas: make ship.",
        "project": PROJECT,
        "harness": "kimi",
        "runtimePath": "legacy",
    }
    assert checkpoint.json["project"] == PROJECT
    assert checkpoint.staged == conversation(("How do atlas deploys work?", "make ship"))


def test_session_end_sends_the_conversation_and_forgets_the_process(
    isolated: Path, scripted_daemon: ScriptedDaemon
) -> None:
    make_session(isolated, turn_records("q", "a", 0, 10))
    url = scripted_daemon.url
    run_hook("kimi", "SessionStart", payload("SessionStart", source="startup"), daemon_url=url)
    assert len(open_processes(dict(os.environ))) == 1

    run = run_hook("kimi", "SessionEnd", payload("SessionEnd", reason="exit"), daemon_url=url)

    assert (run.returncode, run.stdout) == (0, b"")
    _, ended = scripted_daemon.wait_for(2)
    assert (ended.path, ended.json["reason"], ended.staged) == (
        "/api/hooks/session-end",
        "exit",
        conversation(("q", "a")),
    )
    assert open_processes(dict(os.environ)) == []


def test_with_the_daemon_gone_every_hook_exits_0_quietly_and_writes_wait(isolated: Path) -> None:
    make_session(isolated, turn_records("q", "a", 0, 10))
    url = down_daemon_url()
    env = {"SIGNET_OUTBOX_FLUSH_SECONDS": "0"}

    runs = [
        run_hook(
            "kimi",
            "SessionStart",
            payload("SessionStart", source="startup"),
            daemon_url=url,
            env=env,
        ),
        run_hook(
            "kimi", "UserPromptSubmit", ask("How do atlas deploys work?"), daemon_url=url, env=env
        ),
        run_hook("kimi", "Stop", payload("Stop", stop_hook_active=False), daemon_url=url, env=env),
        run_hook(
            "kimi", "SessionEnd", payload("SessionEnd", reason="exit"), daemon_url=url, env=env
        ),
    ]

    assert [(r.returncode, r.stdout, r.stderr) for r in runs] == [(0, b"", b"")] * 4
    assert all(r.seconds < 5 for r in runs), [r.seconds for r in runs]
    actions = sorted(e["action"] for e in outbox_entries())
    assert actions == ["session_checkpoint_extract", "session_end"]
    assert any("failed open" in line for line in hook_log_lines())
