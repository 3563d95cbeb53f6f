"""What each command-hook event costs a prompt: wall time against ``python -c pass``.

Runs every event of the command-hook harnesses (Claude Code and Codex:
SessionStart, UserPromptSubmit, Stop, PreCompact, PostCompact, SubagentStart,
SubagentStop, SessionEnd; Gemini CLI: SessionStart, BeforeAgent, AfterAgent,
PreCompress, SessionEnd; Cursor: sessionStart, beforeSubmitPrompt, stop,
preCompact, sessionEnd; Copilot CLI: sessionStart, userPromptSubmitted,
agentStop, preCompact, subagentStart, subagentStop, sessionEnd; Qwen Code: the
Claude Code events, run as Qwen Code runs them, with ``QWEN_PROJECT_DIR`` and
``QWEN_CODE_LAUNCHER_PID`` set, so its session notes are kept) exactly as
the harness runs it: the installed
command ``<venv>/bin/signet-sdk hook <harness> <Event>`` with a realistic
payload on stdin, against the dev daemon (``signet-sdk dev-daemon`` in its
own process on 127.0.0.1), with a real transcript under a private Claude
config directory, a Codex rollout (with a ``compacted`` line, which
PostCompact reads) under a private CODEX_HOME and a Gemini chat file under
the private HOME's ``.gemini`` (Gemini's AfterAgent and its ``auto``
PreCompress, which fires before every model request, read it), a Cursor
agent transcript under the private HOME's ``.cursor`` (stop and sessionEnd
send it) and a Copilot CLI ``events.jsonl`` under a private COPILOT_HOME
(its main agent's hooks look there for a compaction's summary; agentStop
and sessionEnd derive the conversation from it), and a Qwen Code session
record under the private HOME's ``.qwen``, and a Kimi Code session folder
(``state.json``, and a ``wire.jsonl`` whose conversation Stop and
SessionEnd hand over and whose compaction PostCompact reports) under a
private KIMI_CODE_HOME; Kimi's events run in the order Kimi fires them
around a compaction (PostCompact before the turn's Stop). ``python -c pass`` with the
same interpreter is the floor; each round runs the floor and every event
once, interleaved, so all see the same machine load. After each round the
bench waits for the detached sender that SessionEnd starts to finish, so it
never competes with the next round.

Budget: every event's median <= 3.0 x the floor's median.

    python bench/bench_hooks.py [--runs 15]
        [--harness claude-code|codex|gemini|cursor|copilot|qwen-code|kimi ...]

Prints the command lines, the machine (cores, Python, load average before
and after), then per event the median and p90 wall time, the ratio of the
medians to ``python -c pass`` and PASS or FAIL. Exit status 0 when every
event is within budget, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from signet_adapter_claude_code import PLUGIN
from signet_adapter_codex import PLUGIN as CODEX
from signet_adapter_copilot import PLUGIN as COPILOT
from signet_adapter_cursor import PLUGIN as CURSOR
from signet_adapter_gemini import PLUGIN as GEMINI
from signet_adapter_kimi import PLUGIN as KIMI
from signet_adapter_qwen_code import PLUGIN as QWEN

BUDGET = 3.0
EVENTS = tuple(PLUGIN.events)
CODEX_EVENTS = tuple(CODEX.events)
GEMINI_EVENTS = tuple(GEMINI.events)
CURSOR_EVENTS = tuple(CURSOR.events)
COPILOT_EVENTS = tuple(COPILOT.events)
QWEN_EVENTS = tuple(QWEN.events)
KIMI_EVENTS = tuple(KIMI.events)
HARNESSES = ("claude-code", "codex", "gemini", "cursor", "copilot", "qwen-code", "kimi")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _payloads(session: str, transcript: Path, project: str) -> dict[str, dict[str, object]]:
    base = {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": project,
        "permission_mode": "default",
        "prompt_id": str(uuid.uuid4()),
    }
    extra: dict[str, dict[str, object]] = {
        "SessionStart": {"source": "startup", "model": "claude-opus-4-8"},
        "UserPromptSubmit": {"prompt": "Which migrations run before the atlas release?"},
        "Stop": {"stop_hook_active": False, "last_assistant_message": "Done."},
        "PreCompact": {"trigger": "manual", "custom_instructions": None},
        "PostCompact": {"trigger": "manual", "compact_summary": "Atlas: migrations first."},
        "SubagentStart": {"agent_id": "agent-7", "agent_type": "general-purpose"},
        "SubagentStop": {
            "agent_id": "agent-7",
            "agent_type": "general-purpose",
            "stop_hook_active": False,
        },
        "SessionEnd": {"reason": "other"},
    }
    return {e: {**base, "hook_event_name": e, **extra[e]} for e in EVENTS}


def _codex_payloads(session: str, rollout: Path, project: str) -> dict[str, dict[str, object]]:
    base = {
        "session_id": session,
        "transcript_path": str(rollout),
        "cwd": project,
        "model": "gpt-5.5",
        "permission_mode": "default",
    }
    turn = {"turn_id": str(uuid.uuid4())}
    extra: dict[str, dict[str, object]] = {
        "SessionStart": {"source": "startup"},
        "UserPromptSubmit": {**turn, "prompt": "Which migrations run before the atlas release?"},
        "Stop": {**turn, "stop_hook_active": False, "last_assistant_message": "Done."},
        "PreCompact": {**turn, "trigger": "manual"},
        "PostCompact": {**turn, "trigger": "manual"},
        "SubagentStart": {"agent_id": "agent-7", "agent_type": "explorer"},
        "SubagentStop": {**turn, "agent_id": "agent-7", "agent_type": "explorer"},
        "SessionEnd": {"reason": "other"},
    }
    return {e: {**base, "hook_event_name": e, **extra[e]} for e in CODEX_EVENTS}


def _gemini_payloads(session: str, chat: Path, project: str) -> dict[str, dict[str, object]]:
    base = {
        "session_id": session,
        "transcript_path": str(chat),
        "cwd": project,
        "timestamp": "2026-11-24T09:30:00.000Z",
    }
    prompt = "Which migrations run before the atlas release?"
    extra: dict[str, dict[str, object]] = {
        "SessionStart": {"source": "startup"},
        "BeforeAgent": {"prompt": prompt},
        "AfterAgent": {"prompt": prompt, "prompt_response": "Done.", "stop_hook_active": False},
        "PreCompress": {"trigger": "auto"},
        "SessionEnd": {"reason": "exit"},
    }
    return {e: {**base, "hook_event_name": e, **extra[e]} for e in GEMINI_EVENTS}


def _cursor_payloads(
    conversation: str, transcript: Path, project: str
) -> dict[str, dict[str, object]]:
    """The payloads Cursor's hooks reference documents, with the fields every event carries."""
    base = {
        "conversation_id": conversation,
        "generation_id": str(uuid.uuid4()),
        "model": "claude-4.5-sonnet",
        "cursor_version": "2.0.77",
        "workspace_roots": [project],
        "user_email": None,
        "transcript_path": str(transcript),
    }
    extra: dict[str, dict[str, object]] = {
        "sessionStart": {
            "session_id": conversation,
            "is_background_agent": False,
            "composer_mode": "agent",
        },
        "beforeSubmitPrompt": {
            "prompt": "Which migrations run before the atlas release?",
            "attachments": [],
        },
        "stop": {"status": "completed", "loop_count": 0},
        "preCompact": {
            "trigger": "auto",
            "context_usage_percent": 85,
            "context_tokens": 120000,
            "context_window_size": 128000,
            "message_count": 80,
            "messages_to_compact": 60,
            "is_first_compaction": True,
        },
        "sessionEnd": {
            "session_id": conversation,
            "reason": "completed",
            "duration_ms": 45000,
            "is_background_agent": False,
            "final_status": "completed",
        },
    }
    return {e: {**base, "hook_event_name": e, **extra[e]} for e in CURSOR_EVENTS}


def _copilot_payloads(session: str, events: Path, project: str) -> dict[str, dict[str, object]]:
    """camelCase payloads as Copilot CLI 1.0.102 sends them, one timestamp per event."""
    agent = {"agentName": "explore", "agentId": str(uuid.uuid4()), "parentAgentId": session}
    extra: dict[str, dict[str, object]] = {
        "sessionStart": {"source": "new", "initialPrompt": "Which migrations run first?"},
        "userPromptSubmitted": {"prompt": "Which migrations run before the atlas release?"},
        "agentStop": {"transcriptPath": str(events), "stopReason": "end_turn"},
        "preCompact": {"transcriptPath": str(events), "trigger": "manual"},
        "subagentStart": {"transcriptPath": str(events), **agent},
        "subagentStop": {"transcriptPath": str(events), "stopReason": "end_turn", **agent},
        "sessionEnd": {"reason": "complete"},
    }
    return {
        e: {"sessionId": session, "timestamp": 1795645920000 + i, "cwd": project, **extra[e]}
        for i, e in enumerate(COPILOT_EVENTS)
    }


def _qwen_payloads(session: str, record: Path, project: str) -> dict[str, dict[str, object]]:
    """The payloads Qwen Code 0.24 sends (Claude Code's shape, with its own extra fields)."""
    base = {
        "session_id": session,
        "transcript_path": str(record),
        "cwd": project,
        "timestamp": "2026-11-27T09:14:01.512Z",
        "permission_mode": "default",
    }
    prompt = "Which migrations run before the atlas release?"
    extra: dict[str, dict[str, object]] = {
        "SessionStart": {"source": "startup", "model": "qwen3-coder-plus"},
        "UserPromptSubmit": {"prompt": prompt, "submitted_prompt": prompt},
        "Stop": {"stop_hook_active": False, "last_assistant_message": "Done."},
        "PreCompact": {"trigger": "manual", "custom_instructions": ""},
        "PostCompact": {"trigger": "manual", "compact_summary": "Atlas: migrations first."},
        "SubagentStart": {"agent_id": "agent-7", "agent_type": "Explore"},
        "SubagentStop": {"agent_id": "agent-7", "agent_type": "Explore", "stop_hook_active": False},
        "SessionEnd": {"reason": "prompt_input_exit"},
    }
    return {e: {**base, "hook_event_name": e, **extra[e]} for e in QWEN_EVENTS}


def _kimi_payloads(session: str, project: str) -> dict[str, dict[str, object]]:
    """The payloads Kimi Code 2.1 sends, in the order it fires them around a compaction."""
    prompt = [{"type": "text", "text": "Which migrations run before the atlas release?"}]
    extra: dict[str, dict[str, object]] = {
        "SessionStart": {"source": "startup", "model": "kimi-code/k3", "profile": "agent"},
        "UserPromptSubmit": {"prompt": prompt, "is_steer": False},
        "PreCompact": {"trigger": "auto", "token_count": 20428},
        "PostCompact": {"trigger": "auto", "estimated_token_count": 9120},
        "Stop": {"stop_hook_active": False},
        "SessionEnd": {"reason": "exit"},
    }
    assert set(extra) == set(KIMI_EVENTS)
    base = {"session_id": session, "cwd": project, "client_type": "kimi_code_cli"}
    return {e: {"hook_event_name": e, **base, **extra[e]} for e in extra}


def _write_kimi_session(folder: Path, turns: int = 40) -> None:
    """A session folder as Kimi Code 2.1 keeps it: ``state.json`` and the main agent's
    ``wire.jsonl`` (its system prompt and tool list, 40 turns with their model requests,
    then a compaction)."""
    (folder / "agents" / "main").mkdir(parents=True, exist_ok=True)
    (folder / "state.json").write_text(json.dumps({"id": folder.name, "version": 2}))
    lines: list[dict[str, object]] = [
        {"type": "metadata", "protocol_version": "1.5", "created_at": 1795819786577},
        {"type": "profile.bind", "agentId": "main", "systemPrompt": "You are Kimi Code. " * 450},
        {"type": "llm.tools_snapshot", "agentId": "main", "tools": [{"name": "Bash"}] * 400},
    ]
    for i in range(turns):
        text = f"turn {i}: atlas migrations, release checklist item {i}"
        hook = f'<hook_result hook_event="UserPromptSubmit">\nmemory {i}\n</hook_result>'
        lines += [
            {"type": "context.append_message", "agentId": "main", "message": {
                "role": "user", "content": [{"type": "text", "text": hook}],
                "origin": {"kind": "hook_result", "event": "UserPromptSubmit"}}},
            {"type": "turn.prompt", "agentId": "main", "turnId": i,
             "input": [{"type": "text", "text": text}], "origin": {"kind": "user"}},
            {"type": "llm.request", "agentId": "main", "kind": "loop", "messageCount": 4 + i},
            {"type": "usage.record", "agentId": "main", "usage": {"inputOther": 1000 + i}},
            {"type": "agent.message.appended", "kind": "event", "message": {
                "message": {"role": "assistant", "content": [{"type": "text", "text": f"ok {i}"}]},
                "meta": {"source": "llm"}}},
            {"type": "turn.ended", "agentId": "main", "turnId": i, "reason": "completed"},
        ]  # fmt: skip
    lines.append(
        {"type": "context.apply_compaction", "agentId": "main",
         "summary": "Atlas: migrations first.", "time": 1795819793700}
    )  # fmt: skip
    text = "".join(json.dumps(x) + "\n" for x in lines)
    (folder / "agents" / "main" / "wire.jsonl").write_text(text, encoding="utf-8")


def _write_qwen_record(path: Path, turns: int = 40) -> None:
    """A session record as Qwen Code writes it (JSON lines: the message as role and parts)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(turns):
        for kind, role in (("user", "user"), ("assistant", "model")):
            text = f"{kind} turn {i}: atlas migrations, release checklist item {i}"
            message = {"role": role, "parts": [{"text": text}]}
            lines.append(json.dumps({"sessionId": path.stem, "type": kind, "message": message}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_copilot_events(
    path: Path, payloads: dict[str, dict[str, object]], turns: int = 40
) -> None:
    """An events.jsonl as Copilot CLI writes it: its system prompt, 40 turns (hooks,
    messages, usage), then each benched event's own ``hook.start`` line, as Copilot
    writes it before the hook runs."""
    path.parent.mkdir(parents=True, exist_ok=True)

    def event(kind: str, data: dict[str, object]) -> dict[str, object]:
        return {"type": kind, "data": data, "id": str(uuid.uuid4()), "parentId": None}

    lines = [
        event("session.start", {"sessionId": path.parent.name, "copilotVersion": "1.0.102"}),
        event("system.message", {"role": "system", "content": "You are Copilot. " * 1300}),
    ]
    for i in range(turns):
        text = f"turn {i}: atlas migrations, release checklist item {i}"
        lines += [
            event("hook.start", {"hookType": "userPromptSubmitted", "input": {"prompt": text}}),
            event("user.message", {"content": text, "transformedContent": f"<x>{text}</x>"}),
            event("assistant.turn_start", {"turnId": str(i)}),
            event("session.usage_record", {"usage": {"inputTokens": 1000 + i, "cost": 0.0}}),
            event("assistant.message", {"content": f"answer {text}", "toolRequests": []}),
            event("assistant.turn_end", {"turnId": str(i)}),
            event("hook.start", {"hookType": "agentStop", "input": {"stopReason": "end_turn"}}),
        ]
    lines += [event("hook.start", {"hookType": e, "input": p}) for e, p in payloads.items()]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _write_cursor_transcript(path: Path, turns: int = 40) -> None:
    """A transcript as Cursor's agent writes it (JSON lines of role and text content)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(turns):
        for role in ("user", "assistant"):
            text = f"{role} turn {i}: atlas migrations, release checklist item {i}"
            message = {"content": [{"type": "text", "text": text}]}
            lines.append(json.dumps({"role": role, "message": message}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_gemini_chat(path: Path, turns: int = 40) -> None:
    """A chat file as Gemini CLI writes it (JSON lines: metadata, then messages)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, object]] = [{"sessionId": path.stem, "projectHash": "bench"}]
    for i in range(turns):
        stamp = f"2026-11-24T09:{i // 60:02d}:{i % 60:02d}.000Z"
        text = f"turn {i}: atlas migrations, release checklist item {i}"
        lines.append(
            {"id": f"u{i}", "timestamp": stamp, "type": "user", "content": [{"text": text}]}
        )
        lines.append(
            {
                "id": f"g{i}",
                "timestamp": stamp,
                "type": "gemini",
                "content": f"answer {text}",
                "tokens": {"input": 1000 + 50 * i, "output": 40, "total": 1040 + 50 * i},
                "model": "gemini-2.5-pro",
            }
        )
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _write_rollout(path: Path, turns: int = 40) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "session_meta", "payload": {"id": path.stem, "cwd": "/srv/atlas"}}]
    for i in range(turns):
        for role, kind in (("user", "input_text"), ("assistant", "output_text")):
            text = f"{role} turn {i}: atlas migrations, release checklist item {i}"
            item = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
            lines.append({"type": "response_item", "payload": item})
    lines.append({"type": "compacted", "payload": {"message": "Atlas: migrations first."}})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _write_transcript(path: Path, turns: int = 40) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(turns):
        for role in ("user", "assistant"):
            text = f"{role} turn {i}: atlas migrations, release checklist item {i}"
            lines.append(json.dumps({"type": role, "message": {"role": role, "content": text}}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _run(argv: list[str], data: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, input=data, capture_output=True, env=env, timeout=60)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {done.returncode}: {done.stderr[-500:]!r}")
    return elapsed


def _wait_outbox_empty(state: Path, limit: float = 30.0) -> None:
    outbox = state / "signet-sdk" / "outbox"
    end = time.monotonic() + limit
    while time.monotonic() < end:
        pending = list(outbox.glob("*.json")) if outbox.is_dir() else []
        if not pending:
            return
        time.sleep(0.02)
    raise SystemExit(f"outbox not drained after {limit} s: {pending}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--harness",
        action="append",
        choices=HARNESSES,
        help="only this harness's events (repeatable; default: all)",
    )
    args = parser.parse_args(argv)
    chosen = set(args.harness or HARNESSES)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    python = sys.executable
    load_before = os.getloadavg()
    # Each harness's hook command, as its installer writes it; the event is the last word.
    commands = {h: [str(Path(python).parent / "signet-sdk"), "hook", h] for h in HARNESSES}
    work = Path(tempfile.mkdtemp(prefix="signet-bench-hooks-"))
    port = _free_port()
    daemon_argv = [
        python,
        "-m",
        "signet_sdk",
        "dev-daemon",
        "--port",
        str(port),
        "--db",
        str(work / "dev.sqlite3"),
    ]
    daemon = subprocess.Popen(
        daemon_argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert daemon.stdout is not None
        if "listening" not in daemon.stdout.readline():
            raise SystemExit("the dev daemon did not start")
        config = work / ".claude"
        session = str(uuid.uuid4())
        transcript = config / "projects" / "-srv-atlas" / f"{session}.jsonl"
        _write_transcript(transcript)
        payloads = _payloads(session, transcript, "/srv/atlas")
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(work),
            "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_PROJECT_DIR": "/srv/atlas",
            "XDG_STATE_HOME": str(work / "state"),
            "SIGNET_DAEMON_URL": f"http://127.0.0.1:{port}",
            "CODEX_HOME": str(work / ".codex"),
            "COPILOT_HOME": str(work / ".copilot"),
            # What Qwen Code gives its hooks; this process stands in for Qwen Code's.
            "QWEN_PROJECT_DIR": "/srv/atlas",
            "QWEN_CODE_LAUNCHER_PID": str(os.getpid()),
            # Kimi Code's data folder; this process stands in for Kimi (the hooks' parent).
            "KIMI_CODE_HOME": str(work / ".kimi-code"),
        }
        rollout = work / ".codex" / "sessions" / "2026" / "11" / "24" / f"rollout-{session}.jsonl"
        _write_rollout(rollout)
        codex_payloads = _codex_payloads(str(uuid.uuid4()), rollout, "/srv/atlas")
        chat = work / ".gemini" / "tmp" / "atlas" / "chats" / f"session-{session}.jsonl"
        _write_gemini_chat(chat)
        gemini_payloads = _gemini_payloads(str(uuid.uuid4()), chat, "/srv/atlas")
        conversation = str(uuid.uuid4())
        cursor_transcript = (
            work / ".cursor" / "projects" / "srv-atlas" / "agent-transcripts" / conversation
        ) / f"{conversation}.jsonl"
        _write_cursor_transcript(cursor_transcript)
        cursor_payloads = _cursor_payloads(conversation, cursor_transcript, "/srv/atlas")
        copilot_session = str(uuid.uuid4())
        copilot_events = work / ".copilot" / "session-state" / copilot_session / "events.jsonl"
        copilot_payloads = _copilot_payloads(copilot_session, copilot_events, "/srv/atlas")
        _write_copilot_events(copilot_events, copilot_payloads)
        qwen_session = str(uuid.uuid4())
        qwen_record = work / ".qwen" / "projects" / "-srv-atlas" / "chats" / f"{qwen_session}.jsonl"
        _write_qwen_record(qwen_record)
        qwen_payloads = _qwen_payloads(qwen_session, qwen_record, "/srv/atlas")
        kimi_session = f"session_{uuid.uuid4()}"
        _write_kimi_session(work / ".kimi-code" / "sessions" / "wd_atlas_bench" / kimi_session)
        kimi_payloads = _kimi_payloads(kimi_session, "/srv/atlas")
        payloads_by_harness = {
            "claude-code": payloads,
            "codex": codex_payloads,
            "gemini": gemini_payloads,
            "cursor": cursor_payloads,
            "copilot": copilot_payloads,
            "qwen-code": qwen_payloads,
            "kimi": kimi_payloads,
        }
        runs = [
            (f"hook {h} {e}", [*commands[h], e], json.dumps(p).encode())
            for h in HARNESSES
            if h in chosen
            for e, p in payloads_by_harness[h].items()
        ]
        for _, argv, data in runs:  # warm the page cache and the daemon once
            _run(argv, data, env)
        _wait_outbox_empty(work / "state")
        shutil.rmtree(work / "state" / "signet-sdk" / "kimi" / "claims", True)
        times: dict[str, list[float]] = {"python -c pass": [], **{n: [] for n, _, _ in runs}}
        for _ in range(args.runs):
            times["python -c pass"].append(_run([python, "-c", "pass"], b"", env))
            for name, argv, data in runs:
                times[name].append(_run(argv, data, env))
            _wait_outbox_empty(work / "state")
            # Qwen Code's PostCompact sends a summary once: each round's is a new one.
            shutil.rmtree(work / "state" / "signet-sdk" / "qwen-code-compactions", True)
            # Kimi Code's compaction is reported once too: each round PostCompact finds it anew.
            shutil.rmtree(work / "state" / "signet-sdk" / "kimi" / "claims", True)
    finally:
        daemon.terminate()
        daemon.wait(timeout=15)
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()
    print(f"command: {shlex.join(['python', *sys.argv])}")
    shown = [f"{shlex.join(commands[h])} <Event>" for h in HARNESSES if h in chosen]
    print(f"hooks:   {', '.join(shown)}")
    print("         (the event's JSON payload on stdin)")
    print(f"daemon:  {shlex.join(daemon_argv)}")
    print(
        f"machine: {os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}, load average {load_before[0]:.2f} before, "
        f"{load_after[0]:.2f} after; {args.runs} interleaved runs each"
    )
    floor = statistics.median(times["python -c pass"]) * 1000
    print(f"{'command':<34}{'median ms':>10}{'p90 ms':>9}{'ratio':>8}")
    print(f"{'python -c pass':<34}{floor:>10.1f}{_p90(times['python -c pass']):>9.1f}")
    ok = True
    for event in [n for n in times if n != "python -c pass"]:
        median = statistics.median(times[event]) * 1000
        ratio = median / floor
        passed = ratio <= BUDGET
        ok = ok and passed
        print(
            f"{event:<34}{median:>10.1f}{_p90(times[event]):>9.1f}"
            f"{ratio:>7.2f}x {'PASS' if passed else 'FAIL'}"
        )
    print(f"budget: every event <= {BUDGET}x python -c pass: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def _p90(seconds: list[float]) -> float:
    ms = sorted(t * 1000 for t in seconds)
    return ms[int(0.9 * (len(ms) - 1))]


if __name__ == "__main__":
    sys.exit(main())
