"""What a hook process imports, pinned per event: a new import on the hook path fails here.

Every Claude Code event runs as the installer registers it (``signet-sdk hook
claude-code <Event>``, through the console script's entry function) against
the mock daemon on 127.0.0.1, with a real transcript. A tiny wrapper records
``sys.modules`` at exit. The time budget itself lives in
``bench/bench_hooks.py``; this test holds the cheap structural part of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from signet_adapter_claude_code import PLUGIN

from signet_sdk.testing.mock_daemon import MockDaemon

EVENTS = tuple(PLUGIN.events)  # every event the installer registers

#: Never on the hook path, whatever the event.
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
    "dataclasses",
    "inspect",
    "pathlib",
    "urllib",
    "importlib.metadata",
    "email",
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
    "signet_sdk.hooks.process",
    "signet_sdk.hooks.runner",
    "signet_sdk.hooks.sender",
    "signet_sdk.runtime",
    "signet_sdk.runtime.dispatch",
    "signet_sdk.runtime.entrypoints",
    "signet_sdk.runtime.native",
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
#: Added by events that call the daemon.
SEND = {
    "signet_sdk.wire.endpoints",
    "signet_sdk.wire.lean",
    "signet_sdk.wire.request",
    "signet_sdk.wire.retry",
}
#: Added by events that open the outbox (a write, or a replay check).
OUTBOX = {"signet_sdk.hooks.outbox", "signet_sdk.runtime.files", "signet_sdk.runtime.transcripts"}
#: Added by writes, which may carry Claude Code's transcript.
TRANSCRIPT = {"signet_adapter_claude_code._paths"}
EXPECTED = {
    "SessionStart": CORE | SEND | OUTBOX,  # checks for queued writes to replay
    "UserPromptSubmit": CORE | SEND,
    "Stop": CORE | SEND | OUTBOX | TRANSCRIPT,
    "PreCompact": CORE | SEND,
    "PostCompact": CORE | SEND | OUTBOX | TRANSCRIPT,
    "SubagentStart": CORE | SEND,
    "SubagentStop": CORE,  # no daemon call at all
    "SessionEnd": CORE | OUTBOX | TRANSCRIPT,  # hands off to a detached sender (posix_spawn)
}

WRAPPER = """
import atexit, sys
out, event = sys.argv[1], sys.argv[2]
def _record():
    with open(out, "w") as fh:
        fh.write("\\n".join(sorted(sys.modules)))
atexit.register(_record)
sys.argv = ["signet-sdk", "hook", "claude-code", event]
from signet_sdk.cli import main
sys.exit(main())
"""


@pytest.fixture(scope="module")
def daemon() -> Iterator[str]:
    mock = MockDaemon()
    with mock.serve() as handle:
        yield handle.url


def _payload(event: str, transcript: Path) -> dict[str, object]:
    base: dict[str, object] = {
        "session_id": "imports-1",
        "transcript_path": str(transcript),
        "cwd": "/srv/atlas",
        "hook_event_name": event,
    }
    extra: dict[str, dict[str, object]] = {
        "SessionStart": {"source": "startup"},
        "UserPromptSubmit": {"prompt": "what runs before the release?"},
        "Stop": {"stop_hook_active": False},
        "PreCompact": {"trigger": "manual", "custom_instructions": None},
        "PostCompact": {"trigger": "manual", "compact_summary": "migrations first"},
        "SubagentStart": {"agent_id": "a-1", "agent_type": "general"},
        "SubagentStop": {"agent_id": "a-1", "agent_type": "general"},
        "SessionEnd": {"reason": "other"},
    }
    return {**base, **extra[event]}


def imported(event: str, url: str, tmp_path: Path) -> set[str]:
    config = tmp_path / "claude"
    transcript = config / "projects" / "atlas" / "imports-1.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n')
    out = tmp_path / f"{event}.modules"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "CLAUDE_CONFIG_DIR": str(config),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "SIGNET_DAEMON_URL": url,
        "SIGNET_OUTBOX_FLUSH_SECONDS": "5",
    }
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(out), event],
        input=json.dumps(_payload(event, transcript)),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return set(out.read_text().split("\n"))


@pytest.mark.parametrize("event", EVENTS)
def test_hook_imports_are_pinned(event: str, daemon: str, tmp_path: Path) -> None:
    modules = imported(event, daemon, tmp_path)
    bad = sorted(m for m in modules if m in FORBIDDEN or m.split(".")[0] in FORBIDDEN)
    assert bad == [], f"{event} imports {bad}"
    ours = {m for m in modules if m.startswith(("signet_sdk", "signet_adapter"))}
    expected = {m for m in EXPECTED[event] if m.startswith(("signet_sdk", "signet_adapter"))}
    assert ours == expected, (
        f"{event}: new {sorted(ours - expected)}, gone {sorted(expected - ours)}"
    )
    assert "subprocess" not in modules, f"{event} imported subprocess"
