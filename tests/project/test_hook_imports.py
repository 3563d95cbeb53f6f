"""What a hook process imports, pinned per event: a new import on the hook path fails here.

Every Claude Code, Codex, Gemini CLI and Cursor event runs as its installer registers
it (``signet-sdk hook claude-code|codex|gemini|cursor <Event>``, through the console
script's entry function) against
the mock daemon on 127.0.0.1, with a real transcript. A tiny wrapper records
``sys.modules`` at exit; what the bare interpreter loads on its own (the same
wrapper without the hook) is subtracted, and the rest must equal the pinned
list of the event exactly, the standard library included. (Qwen Code's events run
with ``QWEN_PROJECT_DIR`` set, as Qwen Code runs them: its session notes and summary
claims are on their path. Kimi Code's run with its session folder under
``KIMI_CODE_HOME``, as Kimi keeps it.) The installed
console script itself is run under ``-X importtime`` as well, and a write the
daemon refused (queued, then a detached sender) is checked too.

The time budget itself lives in ``bench/bench_hooks.py``; this test holds the
cheap, deterministic part of it.
"""

from __future__ import annotations

import ast
import json
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from signet_adapter_claude_code import PLUGIN
from signet_adapter_codex import PLUGIN as CODEX
from signet_adapter_copilot import PLUGIN as COPILOT
from signet_adapter_cursor import PLUGIN as CURSOR
from signet_adapter_gemini import PLUGIN as GEMINI
from signet_adapter_kimi import PLUGIN as KIMI
from signet_adapter_qwen_code import PLUGIN as QWEN

from signet_sdk.testing import write_jsonl
from signet_sdk.testing.mock_daemon import MockDaemon

from ..fault_support import hook_env, sender_idle

EVENTS = tuple(PLUGIN.events)  # every event the installer registers

#: Never on the hook path, whatever the event. ``subprocess`` included: the
#: detached sender (SessionEnd, a pending write, a replay) is started with
#: ``os.posix_spawnp``; ``subprocess`` is imported only where that is missing.
FORBIDDEN = {
    "pydantic",
    "httpx",
    "httpcore",
    "anyio",
    "fastapi",
    "starlette",
    "uvicorn",
    "aiohttp",
    "typing",
    "typing_extensions",
    "dataclasses",
    "inspect",
    "pathlib",
    "urllib",
    "importlib.metadata",
    "importlib.util",
    "email",
    "http",
    "argparse",
    "logging",
    "asyncio",
    "json",
    "re",
    "enum",
    "ssl",
    "encodings.idna",
    "socket",
    "selectors",
    "subprocess",
    "threading",
    "contextlib",
}

#: Our modules each event loads, exactly.
CORE = {
    "signet_adapter_claude_code",
    "signet_adapter_claude_code._translate",
    "signet_sdk",
    "signet_sdk._version",
    "signet_sdk.cli",
    "signet_sdk.hooks",
    "signet_sdk.hooks.deadline",
    "signet_sdk.hooks.delivery",
    "signet_sdk.hooks.process",
    "signet_sdk.hooks.runner",
    "signet_sdk.hooks.sender",
    "signet_sdk.plugin",  # the translator's one door into the core
    "signet_sdk.runtime",
    "signet_sdk.runtime.context",
    "signet_sdk.runtime.dispatch",
    "signet_sdk.runtime.entrypoints",
    "signet_sdk.runtime.handlers",
    "signet_sdk.runtime.native",
    "signet_sdk.runtime.payload",
    "signet_sdk.runtime.plugin",
    "signet_sdk.runtime.registry",
    "signet_sdk.wire",
    "signet_sdk.wire.config",
    "signet_sdk.wire.errors",
    "signet_sdk.wire.jsonfast",
    "signet_sdk.wire.lifecycle",
    "signet_sdk.wire.record",
    "signet_sdk.wire.url",
}
#: Standard-library modules every event imports by name (what they load in turn
#: is worked out on the running interpreter). ``select`` bounds the stdin read.
CORE_STDLIB = {"__future__", "_json", "select"}
#: Added by events that call the daemon.
SEND = {
    "signet_sdk.hooks.breaker",  # the circuit breaker the hooks share (a small state file)
    "signet_sdk.runtime.files",
    "signet_sdk.wire.endpoints",
    "signet_sdk.wire.lean",
    "signet_sdk.wire.request",
    "signet_sdk.wire.retry",
}
SEND_STDLIB = {"_socket"}  # not ``socket``: no enum, no selectors
#: Added by events that open the outbox (a write, or a replay check).
OUTBOX = {
    "signet_sdk.hooks.entry",
    "signet_sdk.hooks.outbox",
    "signet_sdk.runtime.files",
    "signet_sdk.runtime.transcripts",
}
OUTBOX_STDLIB = {"fcntl"}  # the entry and sender locks
#: Added by writes, which may carry Claude Code's transcript.
TRANSCRIPT = {"signet_adapter_claude_code._paths"}

Loads = tuple[set[str], set[str]]


def loads(
    core: set[str],
    *extra: set[str],
    send: bool = False,
    outbox: bool = False,
    stdlib: frozenset[str] = frozenset(),
) -> Loads:
    """What one event imports: (our modules, standard-library modules imported by name).

    ``core`` and ``extra`` are the harness's own; ``send`` adds what calling the
    daemon loads, ``outbox`` what opening the outbox loads; ``stdlib`` names
    the event's own further standard-library modules.
    """
    ours, std = core.union(*extra), CORE_STDLIB | stdlib
    if send:
        ours, std = ours | SEND, std | SEND_STDLIB
    if outbox:
        ours, std = ours | OUTBOX, std | OUTBOX_STDLIB
    return ours, std


def adapter_core(package: str, *more: str) -> set[str]:
    """The core with ``package``'s translator (and ``more`` of its modules) for Claude Code's."""
    shared = {m for m in CORE if not m.startswith("signet_adapter")}
    return shared | {package, f"{package}._translate", *more}


def claude_events(core: set[str], transcript: set[str], compact: set[str]) -> dict[str, Loads]:
    """Claude Code's eight events, which Codex has too; ``compact`` is PostCompact's own.

    Writes carry the transcript (``transcript``); SessionStart checks for queued
    writes to replay; SubagentStop calls no daemon at all; SessionEnd hands off
    to a detached sender (posix_spawnp) and sends nothing itself.
    """
    return {
        "SessionStart": loads(core, send=True, outbox=True),
        "UserPromptSubmit": loads(core, send=True),
        "Stop": loads(core, transcript, send=True, outbox=True),
        "PreCompact": loads(core, send=True),
        "PostCompact": loads(core, transcript, compact, send=True, outbox=True),
        "SubagentStart": loads(core, send=True),
        "SubagentStop": loads(core),
        "SessionEnd": loads(core, transcript, outbox=True),
    }


#: Per event: (our modules, standard-library modules imported by name).
EXPECTED = claude_events(CORE, TRANSCRIPT, set())
#: Codex: the same core, its own translator; PostCompact also reads the rollout's
#: summary (``_compact``) before its write.
CODEX_EXPECTED = claude_events(
    adapter_core("signet_adapter_codex"),
    {"signet_adapter_codex._paths"},
    {"signet_adapter_codex._compact"},
)
#: Gemini CLI: the same core, its translator; AfterAgent, PreCompress (``auto``, before every model
#: request) and SessionEnd read the chat file for a compression (``_chat``).
GEMINI_CORE = adapter_core("signet_adapter_gemini")
GEMINI_CHAT = {
    "signet_adapter_gemini._chat",
    "signet_adapter_gemini._paths",
    "signet_sdk.runtime.files",
    "signet_sdk.runtime.transcripts",
}
GEMINI_EXPECTED = {
    "SessionStart": loads(GEMINI_CORE, send=True, outbox=True),
    "BeforeAgent": loads(GEMINI_CORE, send=True),
    "AfterAgent": loads(GEMINI_CORE, GEMINI_CHAT, send=True, outbox=True),
    # nothing due in the chat file: no daemon call at all
    "PreCompress": loads(GEMINI_CORE, GEMINI_CHAT),
    "SessionEnd": loads(GEMINI_CORE, GEMINI_CHAT, outbox=True),
}
#: Cursor: the same core, its translator; its writes read the transcript under ~/.cursor
#: (``_paths``, which stop and sessionEnd also search when the payload names no transcript).
CURSOR_CORE = adapter_core("signet_adapter_cursor")
CURSOR_PATHS = {"signet_adapter_cursor._paths"}
CURSOR_EXPECTED = {
    "sessionStart": loads(CURSOR_CORE, send=True, outbox=True),
    "beforeSubmitPrompt": loads(CURSOR_CORE, send=True),
    "stop": loads(CURSOR_CORE, CURSOR_PATHS, send=True, outbox=True),
    "preCompact": loads(CURSOR_CORE, send=True),
    "sessionEnd": loads(CURSOR_CORE, CURSOR_PATHS, outbox=True),
}
#: Copilot CLI: the same core, its translator; the main agent's hooks look at the session's
#: events.jsonl (``_session`` and what it reads and keeps) for a compaction's summary, and
#: agentStop and sessionEnd for the conversation too. Nothing to report here.
COPILOT_CORE = adapter_core("signet_adapter_copilot")
COPILOT_LOOK = {
    "signet_adapter_copilot._events",
    "signet_adapter_copilot._paths",
    "signet_adapter_copilot._session",
    "signet_adapter_copilot._state",
    "signet_sdk.runtime.files",
    "signet_sdk.runtime.state_folder",
}
COPILOT_EXPECTED = {
    "sessionStart": loads(COPILOT_CORE, COPILOT_LOOK, send=True, outbox=True),
    "userPromptSubmitted": loads(COPILOT_CORE, COPILOT_LOOK, send=True),
    "agentStop": loads(COPILOT_CORE, COPILOT_LOOK, send=True, outbox=True),
    "preCompact": loads(COPILOT_CORE, COPILOT_LOOK, send=True),
    "subagentStart": loads(COPILOT_CORE, send=True),
    "subagentStop": loads(COPILOT_CORE),  # no daemon call at all
    "sessionEnd": loads(COPILOT_CORE, COPILOT_LOOK, outbox=True),
}
#: Qwen Code: the same core, its translator; SessionStart, Stop and SessionEnd keep the
#: notes (``_sessions``) by which a later start ends a session no SessionEnd closed, and
#: PostCompact claims its summary (``_once``, by a digest) before its write.
QWEN_CORE = adapter_core("signet_adapter_qwen_code")
QWEN_NOTES = {"signet_adapter_qwen_code._sessions", "signet_sdk.runtime.files"}
QWEN_TRANSCRIPT = {"signet_adapter_qwen_code._paths"}
QWEN_ONCE = {"signet_adapter_qwen_code._once", "signet_sdk.runtime.state_folder"}
TIME = frozenset({"time"})
QWEN_EXPECTED = {
    "SessionStart": loads(QWEN_CORE, QWEN_NOTES, send=True, outbox=True, stdlib=TIME),
    "UserPromptSubmit": loads(QWEN_CORE, send=True),
    "Stop": loads(QWEN_CORE, QWEN_NOTES, QWEN_TRANSCRIPT, send=True, outbox=True, stdlib=TIME),
    "PreCompact": loads(QWEN_CORE, send=True),
    "PostCompact": loads(
        QWEN_CORE, QWEN_TRANSCRIPT, QWEN_ONCE, send=True, outbox=True, stdlib=TIME | {"hashlib"}
    ),
    "SubagentStart": loads(QWEN_CORE, send=True),
    "SubagentStop": loads(QWEN_CORE),  # no daemon call at all
    "SessionEnd": loads(QWEN_CORE, QWEN_NOTES, QWEN_TRANSCRIPT, outbox=True, stdlib=TIME),
}
#: Kimi Code: the same core, its translator and the file work behind it (``_session`` and
#: what it reads and keeps: the held start context, the process records, the claims);
#: Stop, PostCompact and SessionEnd read the session's wire.jsonl (``_wire``).
KIMI_CORE = adapter_core(
    "signet_adapter_kimi",
    "signet_adapter_kimi._paths",
    "signet_adapter_kimi._process",
    "signet_adapter_kimi._session",
    "signet_adapter_kimi._state",
    "signet_sdk.runtime.files",
    "signet_sdk.runtime.state_folder",
)
KIMI_WIRE = {"signet_adapter_kimi._wire"}
KIMI_EXPECTED = {
    "SessionStart": loads(KIMI_CORE, send=True, outbox=True, stdlib=TIME),
    "UserPromptSubmit": loads(KIMI_CORE, send=True, stdlib=TIME),
    "Stop": loads(KIMI_CORE, KIMI_WIRE, send=True, outbox=True, stdlib=TIME),
    "PreCompact": loads(KIMI_CORE, send=True, stdlib=TIME),
    "PostCompact": loads(KIMI_CORE, KIMI_WIRE, send=True, outbox=True, stdlib=TIME),
    # hands off to a detached sender (posix_spawnp), sends nothing itself
    "SessionEnd": loads(KIMI_CORE, KIMI_WIRE, outbox=True, stdlib=TIME),
}
EXPECTED_BY_HARNESS = {
    "claude-code": EXPECTED,
    "codex": CODEX_EXPECTED,
    "gemini": GEMINI_EXPECTED,
    "cursor": CURSOR_EXPECTED,
    "copilot": COPILOT_EXPECTED,
    "qwen-code": QWEN_EXPECTED,
    "kimi": KIMI_EXPECTED,
}
CASES = (
    [("claude-code", e) for e in EVENTS]
    + [("codex", e) for e in CODEX.events]
    + [("gemini", e) for e in GEMINI.events]
    + [("cursor", e) for e in CURSOR.events]
    + [("copilot", e) for e in COPILOT.events]
    + [("qwen-code", e) for e in QWEN.events]
    + [("kimi", e) for e in KIMI.events]
)

#: Writes ``sys.modules`` at exit to the file named by argv[1]. argv[2] names the event
#: to run as the console script runs it, or is ``-``: then the modules named by
#: ``argv[3:]`` are imported instead (none: the bare interpreter is recorded).
WRAPPER = """
import atexit, sys
out = sys.argv[1]
def _record():
    with open(out, "w") as fh:
        fh.write("\\n".join(sorted(sys.modules)))
atexit.register(_record)
if len(sys.argv) > 2 and sys.argv[2] != "-":
    harness, _, event = sys.argv[2].rpartition("/")
    sys.argv = ["signet-sdk", "hook", harness, event]
    from signet_sdk.cli import main
    sys.exit(main())
for name in sys.argv[3:]:
    __import__(name)
"""


def _env(tmp_path: Path, url: str, **extra: str) -> dict[str, str]:
    return hook_env(
        tmp_path,
        CLAUDE_CONFIG_DIR=str(tmp_path / "claude"),
        CODEX_HOME=str(tmp_path / "codex"),
        GEMINI_CLI_HOME=str(tmp_path / "gemini"),
        COPILOT_HOME=str(tmp_path / "copilot"),
        QWEN_PROJECT_DIR="/srv/atlas",  # Qwen Code sets it for every hook it runs
        KIMI_CODE_HOME=str(tmp_path / "kimi"),
        SIGNET_DAEMON_URL=url,
        **{"SIGNET_OUTBOX_FLUSH_SECONDS": "5", **extra},  # extra may override it
    )


def _record(tmp_path: Path, *names: str) -> set[str]:
    """``sys.modules`` of the bare interpreter after importing ``names`` (no hook run)."""
    out = tmp_path / "bare.modules"
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(out), "-", *names],
        capture_output=True,
        text=True,
        env=_env(tmp_path, "http://127.0.0.1:9"),
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return set(out.read_text().split("\n"))


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """What the interpreter and the wrapper load with no hook at all."""
    return _record(tmp_path_factory.mktemp("bare"))


@pytest.fixture(scope="module")
def stdlib_closure() -> dict[frozenset[str], set[str]]:
    """Per set of standard-library names, what importing them loads (filled on demand)."""
    return {}


def _loads(
    names: Iterable[str], bare: set[str], cache: dict[frozenset[str], set[str]], tmp: Path
) -> set[str]:
    """Every module importing ``names`` loads on this interpreter, beyond the bare start."""
    key = frozenset(names)
    if key not in cache:
        cache[key] = _record(tmp, *sorted(key)) - bare
    return cache[key]


@pytest.fixture(scope="module")
def daemon() -> Iterator[str]:
    mock = MockDaemon()
    with mock.serve() as handle:
        yield handle.url


def _transcript(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "claude" / "projects" / "-srv-atlas" / "imports-1.jsonl",
        [
            {
                "type": "user",
                "message": {"role": "user", "content": "what runs before the release?"},
            },
            {"type": "assistant", "message": {"role": "assistant", "content": "migrations first"}},
        ],
    )


def _rollout(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "codex" / "sessions" / "2026" / "11" / "24" / "rollout-imports-1.jsonl",
        [
            {"type": "session_meta", "payload": {"id": "imports-1", "cwd": "/srv/atlas"}},
            {"type": "compacted", "payload": {"message": "migrations first"}},
        ],
    )


def _gemini_chat(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "gemini" / ".gemini" / "tmp" / "atlas" / "chats" / "session-imports-1.jsonl",
        [
            {"sessionId": "imports-1", "projectHash": "atlas"},
            {"id": "u1", "timestamp": "2026-11-24T09:12:01.000Z", "type": "user",
             "content": [{"text": "what runs before the release?"}]},
            {"id": "g1", "timestamp": "2026-11-24T09:12:02.000Z", "type": "gemini",
             "content": "migrations first", "tokens": {"input": 1200}, "model": "gemini-2.5-pro"},
        ],
    )  # fmt: skip


#: Each harness's fields of each event, beyond the ones every event carries.
EVENT_FIELDS: dict[str, dict[str, dict[str, object]]] = {
    "claude-code": {
        "SessionStart": {"source": "startup"},
        "UserPromptSubmit": {"prompt": "what runs before the release?"},
        "Stop": {"stop_hook_active": False},
        "PreCompact": {"trigger": "manual", "custom_instructions": None},
        "PostCompact": {"trigger": "manual", "compact_summary": "migrations first"},
        "SubagentStart": {"agent_id": "a-1", "agent_type": "general"},
        "SubagentStop": {"agent_id": "a-1", "agent_type": "general"},
        "SessionEnd": {"reason": "other"},
    },
    "codex": {
        "SessionStart": {"source": "startup"},
        "UserPromptSubmit": {"turn_id": "t-1", "prompt": "what runs before the release?"},
        "Stop": {"turn_id": "t-1", "stop_hook_active": False},
        "PreCompact": {"turn_id": "t-1", "trigger": "manual"},
        "PostCompact": {"turn_id": "t-1", "trigger": "manual"},
        "SubagentStart": {"agent_id": "a-1", "agent_type": "explorer"},
        "SubagentStop": {"agent_id": "a-1", "agent_type": "explorer"},
        "SessionEnd": {"reason": "other"},
    },
    "gemini": {
        "SessionStart": {"source": "startup"},
        "BeforeAgent": {"prompt": "what runs before the release?"},
        "AfterAgent": {"prompt": "what runs before the release?", "prompt_response": "migrations"},
        "PreCompress": {"trigger": "auto"},
        "SessionEnd": {"reason": "exit"},
    },
    "cursor": {
        "sessionStart": {"workspace_roots": ["/srv/atlas"], "is_background_agent": False},
        "beforeSubmitPrompt": {"workspace_roots": ["/srv/atlas"], "prompt": "what runs?"},
        "stop": {"workspace_roots": ["/srv/atlas"], "status": "completed", "loop_count": 0},
        "preCompact": {"workspace_roots": ["/srv/atlas"], "trigger": "auto", "message_count": 45},
        "sessionEnd": {"workspace_roots": ["/srv/atlas"], "reason": "completed"},
    },
    "qwen-code": {
        "SessionStart": {"source": "startup", "model": "qwen3-coder-plus"},
        "UserPromptSubmit": {"prompt": "what runs before the release?"},
        "Stop": {"stop_hook_active": False},
        "PreCompact": {"trigger": "manual", "custom_instructions": ""},
        "PostCompact": {"trigger": "manual", "compact_summary": "migrations first"},
        "SubagentStart": {"agent_id": "a-1", "agent_type": "Explore"},
        "SubagentStop": {"agent_id": "a-1", "agent_type": "Explore"},
        "SessionEnd": {"reason": "prompt_input_exit"},
    },
}


#: Kimi Code's payload fields per event, beyond hook_event_name, session_id, cwd, client_type.
KIMI_FIELDS: dict[str, dict[str, object]] = {
    "SessionStart": {"source": "startup", "model": "kimi-code/k3", "profile": "agent"},
    "UserPromptSubmit": {"prompt": [{"type": "text", "text": "what runs?"}], "is_steer": False},
    "Stop": {"stop_hook_active": False},
    "PreCompact": {"trigger": "manual", "token_count": 1200},
    "PostCompact": {"trigger": "manual", "estimated_token_count": 300},
    "SessionEnd": {"reason": "exit"},
}


def _kimi_input(event: str, tmp_path: Path) -> str:
    """A Kimi Code payload, and the session's folder as Kimi keeps it: ``state.json`` and a
    ``wire.jsonl`` with one turn and a compaction (its payloads name no file)."""
    folder = tmp_path / "kimi" / "sessions" / "wd_atlas_0123456789ab" / "session_imports-1"
    (folder / "state.json").parent.mkdir(parents=True, exist_ok=True)
    (folder / "state.json").write_text('{"id": "session_imports-1"}')
    write_jsonl(
        folder / "agents" / "main" / "wire.jsonl",
        [
            {"type": "turn.prompt", "input": [{"type": "text", "text": "what runs?"}],
             "origin": {"kind": "user"}},
            {"type": "agent.message.appended", "message": {"meta": {"source": "llm"}, "message": {
                "role": "assistant", "content": [{"type": "text", "text": "migrations"}]}}},
            {"type": "context.apply_compaction", "agentId": "main", "summary": "migrations first",
             "time": 1795819793700},
        ],
    )  # fmt: skip
    base = {"session_id": "session_imports-1", "cwd": "/srv/atlas", "client_type": "kimi_code_cli"}
    return json.dumps({"hook_event_name": event, **base, **KIMI_FIELDS[event]})


def _qwen_record(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / ".qwen" / "projects" / "-srv-atlas" / "chats" / "imports-1.jsonl",
        [
            {"type": "user", "message": {"role": "user", "parts": [{"text": "what runs?"}]}},
            {"type": "assistant", "message": {"role": "model", "parts": [{"text": "migrations"}]}},
        ],
    )


def _cursor_transcript(tmp_path: Path) -> Path:
    folder = tmp_path / ".cursor" / "projects" / "srv-atlas" / "agent-transcripts" / "imports-1"
    return write_jsonl(
        folder / "imports-1.jsonl",
        [
            {"role": "user", "message": {"content": [{"type": "text", "text": "what runs?"}]}},
            {"role": "assistant", "message": {"content": [{"type": "text", "text": "migrations"}]}},
        ],
    )


#: Copilot CLI's camelCase payload fields per event, beyond sessionId, timestamp and cwd.
COPILOT_FIELDS: dict[str, dict[str, object]] = {
    "sessionStart": {"source": "new", "initialPrompt": "what runs before the release?"},
    "userPromptSubmitted": {"prompt": "what runs before the release?"},
    "agentStop": {"stopReason": "end_turn", "stop_hook_active": False},
    "preCompact": {"trigger": "manual", "customInstructions": ""},
    "subagentStart": {"agentName": "explore", "agentId": "a-1", "parentAgentId": "imports-1"},
    "subagentStop": {"agentName": "explore", "agentId": "a-1", "parentAgentId": "imports-1"},
    "sessionEnd": {"reason": "complete"},
}


def _copilot_input(event: str, tmp_path: Path) -> str:
    """A Copilot payload, and the session's events.jsonl with every event's ``hook.start``
    already written (so agentStop and sessionEnd do not wait for Copilot to write it)."""
    events = tmp_path / "copilot" / "session-state" / "imports-1" / "events.jsonl"

    def payload(name: str) -> dict[str, object]:
        stamp = 1795645920000 + list(COPILOT_FIELDS).index(name)
        body = {"sessionId": "imports-1", "timestamp": stamp, "cwd": "/srv/atlas"}
        if name in ("agentStop", "preCompact", "subagentStart", "subagentStop"):
            body["transcriptPath"] = str(events)
        return {**body, **COPILOT_FIELDS[name]}

    write_jsonl(
        events,
        [
            {"type": "user.message", "data": {"content": "what runs before the release?"}},
            {"type": "assistant.message", "data": {"content": "migrations first"}},
        ]
        + [
            {"type": "hook.start", "data": {"hookType": name, "input": payload(name)}}
            for name in COPILOT_FIELDS
        ],
    )
    return json.dumps(payload(event))


def _input(harness: str, event: str, tmp_path: Path) -> str:
    """The hook payload of ``event`` for ``harness``, its transcript written under ``tmp_path``."""
    if harness == "copilot":
        return _copilot_input(event, tmp_path)
    if harness == "kimi":
        return _kimi_input(event, tmp_path)
    if harness == "codex":
        transcript, common = _rollout(tmp_path), {"model": "gpt-5.5"}
    elif harness == "gemini":
        transcript, common = _gemini_chat(tmp_path), {"timestamp": "2026-11-24T09:12:03.000Z"}
    elif harness == "cursor":
        transcript, common = _cursor_transcript(tmp_path), {"conversation_id": "imports-1"}
    elif harness == "qwen-code":
        transcript, common = _qwen_record(tmp_path), {"permission_mode": "default"}
    else:
        transcript, common = _transcript(tmp_path), {}
    base: dict[str, object] = {
        "session_id": "imports-1",
        "transcript_path": str(transcript),
        "cwd": "/srv/atlas",
        "hook_event_name": event,
        **common,
    }
    return json.dumps({**base, **EVENT_FIELDS[harness][event]})


def imported(
    event: str, url: str, tmp_path: Path, harness: str = "claude-code", **env: str
) -> set[str]:
    """``sys.modules`` at the end of one hook process for ``event``."""
    out = tmp_path / f"{event}.modules"
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(out), f"{harness}/{event}"],
        input=_input(harness, event, tmp_path),
        capture_output=True,
        text=True,
        env=_env(tmp_path, url, **env),
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return set(out.read_text().split("\n"))


def _forbidden(modules: Iterable[str]) -> list[str]:
    return sorted(
        m for m in modules if any(m == bad or m.startswith(bad + ".") for bad in FORBIDDEN)
    )


def _diff(label: str, got: set[str], expected: set[str]) -> str:
    return f"{label}: new {sorted(got - expected)}, gone {sorted(expected - got)}"


@pytest.mark.parametrize(("harness", "event"), CASES)
def test_hook_imports_are_pinned(
    harness: str,
    event: str,
    daemon: str,
    tmp_path: Path,
    bare: set[str],
    stdlib_closure: dict[frozenset[str], set[str]],
) -> None:
    modules = imported(event, daemon, tmp_path, harness)
    assert _forbidden(modules) == [], f"{harness} {event} imports {_forbidden(modules)}"
    added = modules - bare
    ours_expected, stdlib_named = EXPECTED_BY_HARNESS[harness][event]
    ours = {m for m in added if m.startswith(("signet_sdk", "signet_adapter"))}
    assert ours == ours_expected, _diff(event, ours, ours_expected)
    stdlib = added - ours
    stdlib_expected = _loads(stdlib_named, bare, stdlib_closure, tmp_path)
    assert stdlib == stdlib_expected, _diff(f"{event} (standard library)", stdlib, stdlib_expected)


def _console_script() -> Path:
    script = Path(sysconfig.get_path("scripts")) / "signet-sdk"
    assert script.is_file(), f"no {script}: install the package (pip install -e .)"
    return script


def _importtime(stderr: str) -> tuple[set[str], list[str]]:
    """The modules named in ``-X importtime`` output, and any other stderr lines."""
    modules: set[str] = set()
    other: list[str] = []
    for line in stderr.splitlines():
        if not line.startswith("import time:"):
            other.append(line)
        elif not line.rstrip().endswith("imported package"):
            modules.add(line.rpartition("|")[2].strip())
    return modules, other


def _launcher_modules(script: Path, tmp_path: Path) -> set[str]:
    """What the installer's launcher loads before it calls ``signet_sdk.cli.main``.

    pip's template imports ``re``, uv's does not: that is the installer's choice,
    not the hook's, so it is measured and set aside.
    """
    tree = ast.parse(script.read_text(encoding="utf-8"))
    names = [
        alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names
    ]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {', '.join(names) or 'sys'}"],
        capture_output=True,
        text=True,
        env=_env(tmp_path, "http://127.0.0.1:9"),
        timeout=60,
    )
    modules, other = _importtime(done.stderr)
    assert done.returncode == 0 and other == [], done.stderr
    return modules


@pytest.mark.parametrize(("harness", "event"), CASES)
def test_installed_command_imports(harness: str, event: str, daemon: str, tmp_path: Path) -> None:
    """``<venv>/bin/signet-sdk hook <harness> <Event>`` itself, as the harness runs it."""
    script = _console_script()
    launcher = _launcher_modules(script, tmp_path)
    done = subprocess.run(
        [str(script), "hook", harness, event],
        input=_input(harness, event, tmp_path),
        capture_output=True,
        text=True,
        env=_env(tmp_path, daemon, PYTHONPROFILEIMPORTTIME="1"),
        timeout=60,
    )
    modules, other = _importtime(done.stderr)
    assert done.returncode == 0 and other == [], done.stderr
    assert "signet_sdk.hooks.runner" in modules  # the hook really ran
    for name in ("argparse", "importlib.metadata", "signet_sdk.cli.commands"):
        assert name not in modules, f"signet-sdk hook {harness} {event} imports {name}"
    bad = _forbidden(modules - launcher)
    assert bad == [], f"signet-sdk hook {harness} {event} imports {bad}"
    ours = {m for m in modules if m.startswith(("signet_sdk", "signet_adapter"))}
    expected = EXPECTED_BY_HARNESS[harness][event][0]
    assert ours == expected, _diff(event, ours, expected)


def _refused_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # nothing listens there any more


def _wait_for(predicate: Callable[[], bool], what: str, limit: float = 20.0) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def test_queued_write_and_replay_start_a_sender_without_subprocess(tmp_path: Path) -> None:
    """A daemon that is down: Stop queues its write, SessionStart replays it; both start
    a detached sender (seen by the line it logs), neither imports subprocess or the rest."""
    url = _refused_url()
    state = tmp_path / "state"
    log = state / "signet-sdk" / "hooks.log"

    def queued_lines() -> int:
        return log.read_text().count("still pending") if log.exists() else 0

    # A sender given 0 s tries nothing, logs what is still pending and exits.
    for event, count in (("Stop", 1), ("SessionStart", 2)):
        modules = imported(event, url, tmp_path, SIGNET_OUTBOX_FLUSH_SECONDS="0")
        assert _forbidden(modules) == [], f"{event} imports {_forbidden(modules)}"
        assert "signet_sdk.hooks.outbox" in modules
        _wait_for(lambda: queued_lines() >= count, f"the sender started by {event}")  # noqa: B023
        _wait_for(lambda: sender_idle(state / "signet-sdk" / "outbox"), "the sender to exit")
    assert len(list((state / "signet-sdk" / "outbox").glob("*.json"))) == 1
