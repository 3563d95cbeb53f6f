"""Translation details the vectors do not spell out, packaging, and the hook's import cost."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from typing import Any

import pytest
from signet_adapter_claude_code import TRANSLATOR, ClaudeCodeTranslator

from signet_sdk.runtime.translator import HarnessTranslator
from signet_sdk.wire.endpoints import DEPENDENCY_MAP_ROWS, endpoint
from signet_sdk.wire.errors import PayloadError

BASE = {"session_id": "s-1", "cwd": "/w", "transcript_path": "/t.jsonl"}


def test_is_a_harness_translator() -> None:
    from signet_adapter_claude_code import PLUGIN

    assert isinstance(TRANSLATOR, HarnessTranslator)
    assert (PLUGIN.name, PLUGIN.runtime_path) == ("claude-code", "legacy")
    built = PLUGIN.make_translator({"CLAUDE_PROJECT_DIR": "/root/of/project"})
    assert isinstance(built, ClaudeCodeTranslator) and built.project_dir == "/root/of/project"


def test_every_dependency_row_is_covered_or_explained() -> None:
    covered = set()
    samples: dict[str, dict[str, Any]] = {
        "SessionStart": {"source": "startup"},
        "UserPromptSubmit": {"prompt": "x"},
        "Stop": {},
        "PreCompact": {"trigger": "auto"},
        "PostCompact": {"compact_summary": "s"},
        "SubagentStart": {"agent_id": "a"},
        "SubagentStop": {},
        "SessionEnd": {"reason": "other"},
    }
    from signet_adapter_claude_code import PLUGIN

    for event in PLUGIN.events:
        for call in TRANSLATOR.translate(event, dict(BASE, **samples[event])):
            if endpoint(call.action).row:
                covered.add(endpoint(call.action).row)
    for row in DEPENDENCY_MAP_ROWS:
        by_tools = PLUGIN.tools == "mcp" and row.startswith(("memory-", "secret-"))
        assert [row in covered, row in PLUGIN.not_applicable, by_tools].count(True) == 1, row
    assert all(reason.strip() for reason in PLUGIN.not_applicable.values())


@pytest.mark.parametrize(
    ("event", "payload", "field"),
    [
        ("SessionStart", {"cwd": "/w"}, "session_id"),
        ("SessionStart", {"session_id": ""}, "session_id"),
        ("SessionStart", {"session_id": 7}, "session_id"),
        ("SessionStart", dict(BASE, source=1), "source"),
        ("SessionStart", dict(BASE, cwd=["/w"]), "cwd"),
        ("UserPromptSubmit", BASE, "prompt"),
        ("UserPromptSubmit", dict(BASE, prompt={"text": "x"}), "prompt"),
        ("Stop", {"session_id": "s"}, "transcript_path"),
        ("PostCompact", dict(BASE, compact_summary=""), "compact_summary"),
        ("PreCompact", dict(BASE, custom_instructions=3), "custom_instructions"),
        ("SubagentStart", BASE, "agent_id"),
        ("SessionEnd", dict(BASE, reason=None, transcript_path=5), "transcript_path"),
        ("SessionStart", dict(BASE, hook_event_name="Stop"), "hook_event_name"),
        ("Notification", BASE, "hook_event_name"),
    ],
)
def test_bad_payloads_name_the_field(event: str, payload: dict[str, Any], field: str) -> None:
    with pytest.raises(PayloadError) as info:
        TRANSLATOR.translate(event, payload)
    assert info.value.field == field


def test_payload_must_be_an_object() -> None:
    with pytest.raises(PayloadError) as info:
        TRANSLATOR.translate("SessionStart", ["s"])  # type: ignore[arg-type]
    assert info.value.field == "payload"


def test_project_dir_wins_over_cwd() -> None:
    tr = ClaudeCodeTranslator(project_dir="/repo")
    (start,) = tr.translate("SessionStart", dict(BASE, cwd="/repo/sub", source="startup"))
    (end,) = tr.translate("SessionEnd", dict(BASE, cwd="/repo/sub", reason="other"))
    assert start.body["project"] == "/repo"
    assert end.body["cwd"] == "/repo"


def test_payload_agent_id_never_becomes_the_persistence_agent() -> None:
    for event, extra in [
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "x"}),
        ("SubagentStart", {}),
    ]:
        (call,) = TRANSLATOR.translate(event, dict(BASE, agent_id="sub-1", **extra))
        assert "agentId" not in call.body
        assert call.body["harnessAgentId"] == "sub-1"


def test_unknown_future_fields_and_sources_pass() -> None:
    payload = dict(BASE, source="teleport", shiny_new_field={"x": 1})
    (call,) = TRANSLATOR.translate("SessionStart", payload)
    assert call.body["source"] == "teleport"


def test_render_never_prints_for_non_injecting_events_or_failures() -> None:
    answer = {"inject": "TEXT", "summaryPrompt": "P"}
    for event in ("Stop", "PreCompact", "PostCompact", "SubagentStop", "SessionEnd"):
        assert TRANSLATOR.render(event, BASE, [answer]).text == ""
    for event in ("SessionStart", "UserPromptSubmit", "SubagentStart"):
        assert TRANSLATOR.render(event, BASE, [None]).text == ""
        assert TRANSLATOR.render(event, BASE, []).text == ""
        assert TRANSLATOR.render(event, BASE, [{"inject": "  "}]).text == ""
        assert TRANSLATOR.neutral(event).exit_code == 0


def test_one_entry_point_names_the_plugin() -> None:
    from signet_adapter_claude_code import PLUGIN
    from signet_adapter_claude_code.install import main

    (adapter,) = entry_points(group="signet_sdk.adapters", name="claude-code")
    assert adapter.value == "signet_adapter_claude_code:PLUGIN"
    assert adapter.load() is PLUGIN
    assert PLUGIN.load_installer() is main
    assert list(entry_points(group="signet_sdk.installers")) == []
    assert list(entry_points(group="signet_sdk.hooks")) == []
    assert not [e for e in entry_points(group="console_scripts") if "claude" in e.name]


def test_plugin_events_and_deadlines() -> None:
    from signet_adapter_claude_code import EVENTS, PLUGIN

    assert tuple(PLUGIN.events) == EVENTS
    classes = {name: spec.timeout_class for name, spec in PLUGIN.events.items()}
    assert classes["SessionStart"] == classes["SubagentStart"] == "session_start"
    assert classes["UserPromptSubmit"] == "prompt_submit" and classes["Stop"] == "default"
    assert [n for n, spec in PLUGIN.events.items() if spec.detach] == ["SessionEnd"]
    assert [n for n, spec in PLUGIN.events.items() if spec.flushes] == ["SessionStart"]
    assert len(PLUGIN.vector_files()) == 24


def test_library_path_handles_an_event(scripted_daemon: Any) -> None:
    import signet_sdk
    from signet_sdk.testing import Reply

    scripted_daemon.default = Reply(200, {"inject": "CTX", "memoryCount": 1, "sessionKnown": True})
    with signet_sdk.create_adapter("claude-code", scripted_daemon.url) as client:
        run = signet_sdk.run_event(client, "UserPromptSubmit", dict(BASE, prompt="hi"))
    assert run.output.data == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX"}
    }
    assert run.output.text.startswith('{"hookSpecificOutput":')
    assert scripted_daemon.requests[0].json["harness"] == "claude-code"


HEAVY = ("pydantic", "httpx", "fastapi", "starlette", "anyio", "uvicorn", "aiohttp")


def test_hook_path_imports_only_the_standard_library() -> None:
    code = "\n".join(
        [
            "import os, sys",
            "os.environ['SIGNET_DAEMON_URL'] = 'http://127.0.0.1:9'",
            "from signet_sdk.cli import main",
            "r, w = os.pipe()",
            'os.write(w, b\'{"session_id": "s", "prompt": "x"}\')',
            "os.close(w)",
            "os.dup2(r, 0)",
            "main(['hook', 'claude-code', 'UserPromptSubmit'])",
            f"heavy = {HEAVY!r}",
            "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))",
        ]
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
