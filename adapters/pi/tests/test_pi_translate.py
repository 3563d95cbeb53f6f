"""Translation details the vectors do not spell out, packaging, and the hook's import cost."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from typing import Any

import pytest
from signet_adapter_pi import PLUGIN, SHIM_EVENTS, TRANSLATOR, PiTranslator
from signet_adapter_pi._paths import agent_dir, extensions_dir, transcript_roots

from signet_sdk.runtime.translator import HarnessTranslator
from signet_sdk.testing.parity_tools import TOOL_ROWS
from signet_sdk.wire.endpoints import DEPENDENCY_MAP_ROWS, endpoint
from signet_sdk.wire.errors import PayloadError

SESSION = {"id": "s-1", "cwd": "/w", "leafId": "l-1", "persisted": True, "onDisk": False}


def payload(event: str, **fields: Any) -> dict[str, Any]:
    return {"type": event, "session": dict(SESSION), "carry": {}, **fields}


SAMPLES: dict[str, dict[str, Any]] = {
    "session_start": {"reason": "startup"},
    "input": {"text": "hello"},
    "before_agent_start": {"prompt": "hello"},
    "agent_end": {"messages": [{"role": "user", "content": "hello"}]},
    "session_before_compact": {"preparation": {"messagesToSummarize": 2}},
    "session_compact": {"compactionEntry": {"summary": "s"}},
    "session_before_switch": {"reason": "new"},
    "session_before_fork": {"entryId": "e"},
    "session_shutdown": {"reason": "quit"},
}


def test_is_a_harness_translator_registered_as_pi() -> None:
    assert isinstance(TRANSLATOR, HarnessTranslator)
    assert isinstance(PLUGIN.make_translator({}), PiTranslator)
    assert (PLUGIN.name, PLUGIN.runtime_path) == ("pi", "plugin")
    (found,) = [e for e in entry_points(group="signet_sdk.adapters") if e.name == "pi"]
    assert found.load() is PLUGIN
    assert PLUGIN.shim_dir() is not None


def test_every_dependency_row_is_covered_or_explained() -> None:
    covered = set()
    for event in PLUGIN.events:
        for call in TRANSLATOR.translate(event, payload(event, **SAMPLES[event])):
            if endpoint(call.action).row:
                covered.add(endpoint(call.action).row)
    # The tool rows are the registered memory tools' (the parity matrix runs them).
    assert PLUGIN.tools == "native"
    covered |= set(TOOL_ROWS)
    for row in DEPENDENCY_MAP_ROWS:
        assert (row in covered) != (row in PLUGIN.not_applicable), row
    assert all(reason.strip() for reason in PLUGIN.not_applicable.values())


def test_the_shim_forwards_every_event_but_before_agent_start() -> None:
    assert set(SHIM_EVENTS) == set(PLUGIN.events) - {"before_agent_start"}
    for rule in SHIM_EVENTS.values():
        assert rule["session"] in ("meta", "transcript")
        assert rule["fields"]["type"] is True


def test_event_deadlines_and_detached_writes() -> None:
    classes = {name: spec.timeout_class for name, spec in PLUGIN.events.items()}
    assert classes["session_start"] == "session_start"
    assert classes["input"] == "prompt_submit"
    detached = {name for name, spec in PLUGIN.events.items() if spec.detach}
    assert detached == {"agent_end", "session_compact", "session_before_fork", "session_shutdown"}
    assert [n for n, s in PLUGIN.events.items() if s.flushes] == ["session_start"]


@pytest.mark.parametrize(
    ("event", "data", "field"),
    [
        ("input", {"type": "input", "text": "x"}, "session"),
        ("input", {"type": "input", "text": "x", "session": "s-1"}, "session"),
        ("input", {"type": "input", "text": "x", "session": {"id": ""}}, "session.id"),
        ("input", {"type": "input", "text": "x", "session": {"id": 7}}, "session.id"),
        ("input", payload("input"), "text"),
        ("input", payload("input", text=["x"]), "text"),
        ("input", payload("agent_end", text="x"), "type"),
        ("input", {**payload("input", text="x"), "carry": []}, "carry"),
        ("agent_end", payload("agent_end"), "messages"),
        ("agent_end", payload("agent_end", messages={"a": 1}), "messages"),
        (
            "session_compact",
            payload("session_compact", compactionEntry={}),
            "compactionEntry.summary",
        ),
        (
            "session_before_compact",
            payload("session_before_compact", preparation=[]),
            "preparation",
        ),
        (
            "session_before_compact",
            payload("session_before_compact", preparation={"messagesToSummarize": "4"}),
            "preparation.messagesToSummarize",
        ),
        ("session_shutdown", payload("session_shutdown", reason=3), "reason"),
        ("nope", payload("nope"), "type"),
    ],
)
def test_bad_payloads_name_the_field(event: str, data: Any, field: str) -> None:
    with pytest.raises(PayloadError) as caught:
        TRANSLATOR.translate(event, data)
    assert caught.value.field == field


def test_project_falls_back_to_the_session_header() -> None:
    data = payload("session_start", reason="startup")
    data["session"] = {"id": "s-1", "header": {"cwd": "/from/header"}}
    (call,) = TRANSLATOR.translate("session_start", data)
    assert call.body["project"] == "/from/header"


def test_only_a_fork_names_a_parent_and_only_from_a_session_file_name() -> None:
    prev = "/a/sessions/--w--/2026-11-24T17-48-12-482Z_0b9e7c44-71a2-4c3e-9d2f-5e6a7b8c9d0e.jsonl"
    for reason, parent in [("fork", "0b9e7c44-71a2-4c3e-9d2f-5e6a7b8c9d0e"), ("new", None)]:
        data = payload("session_start", reason=reason, previousSessionFile=prev)
        (call,) = TRANSLATOR.translate("session_start", data)
        assert call.body.get("parentSessionKey") == parent
    odd = payload("session_start", reason="fork", previousSessionFile="/a/b/notes.txt")
    (call,) = TRANSLATOR.translate("session_start", odd)
    assert "parentSessionKey" not in call.body


def test_blank_summary_and_empty_messages_make_no_call() -> None:
    blank = payload("session_compact", compactionEntry={"summary": "  "})
    assert TRANSLATOR.translate("session_compact", blank) == []
    assert TRANSLATOR.translate("agent_end", payload("agent_end", messages=[])) == []
    assert TRANSLATOR.translate("agent_end", payload("agent_end", messages=["x", 1])) == []


def test_checkpoint_lines_parse_back_and_keep_no_image_data() -> None:
    image = {"type": "image", "data": "AAAA" * 100, "mimeType": "image/png"}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "look"}, image]},
        {"role": "toolResult", "toolName": "bash", "content": [{"type": "text", "text": "ok"}]},
    ]
    (call,) = TRANSLATOR.translate("agent_end", payload("agent_end", messages=messages))
    lines = [json.loads(line) for line in call.body["transcript"].splitlines()]
    assert [line["type"] for line in lines] == ["message", "message"]
    assert lines[0]["message"]["content"][1] == {"type": "image", "mimeType": "image/png"}
    assert lines[1]["message"] == messages[1]
    assert image["data"]  # the payload itself is not changed


def test_session_end_prefers_the_file_and_falls_back_to_memory() -> None:
    header = {"type": "session", "version": 3, "id": "s-1", "cwd": "/w"}
    entries = [{"type": "message", "id": "a", "message": {"role": "user", "content": "hi"}}]
    on_disk = payload("session_shutdown", reason="quit")
    on_disk["session"] = {**SESSION, "file": "/s/x_s-1.jsonl", "onDisk": True, "header": header}
    (call,) = TRANSLATOR.translate("session_shutdown", on_disk)
    assert call.body["transcriptPath"] == "/s/x_s-1.jsonl" and "transcript" not in call.body

    unsaved = payload("session_shutdown", reason="quit")
    unsaved["session"] = {**SESSION, "file": "/s/x_s-1.jsonl", "header": header, "entries": entries}
    (call,) = TRANSLATOR.translate("session_shutdown", unsaved)
    assert "transcriptPath" not in call.body
    assert [json.loads(x) for x in call.body["transcript"].splitlines()] == [header, *entries]

    bare = payload("session_shutdown", reason="reload")
    (call,) = TRANSLATOR.translate("session_shutdown", bare)
    assert call.body == {"sessionKey": "s-1", "sessionId": "s-1", "cwd": "/w", "reason": "reload"}


def test_compaction_marker_is_per_session_and_leaf() -> None:
    first = payload("session_before_compact", preparation={})
    assert len(TRANSLATOR.translate("session_before_compact", first)) == 1
    out = TRANSLATOR.render("session_before_compact", first, [{"guidelines": "g"}])
    marker = out.data["carry"]["compaction"]
    again = {**first, "carry": {"compaction": marker}}
    assert TRANSLATOR.translate("session_before_compact", again) == []
    assert TRANSLATOR.render("session_before_compact", again, []).data is None
    moved = {**again, "session": {**SESSION, "leafId": "l-2"}}
    assert len(TRANSLATOR.translate("session_before_compact", moved)) == 1
    other = {**again, "session": {**SESSION, "id": "s-2"}}
    assert len(TRANSLATOR.translate("session_before_compact", other)) == 1


@pytest.mark.parametrize(
    "answer",
    [
        None,
        {"inject": "   "},
        {"inject": "x", "skipped": True},
        {"inject": "x", "bypassed": True},
        "not an object",
    ],
)
def test_no_context_means_no_output(answer: Any) -> None:
    for event in ("session_start", "input"):
        data = payload(event, **SAMPLES[event])
        assert TRANSLATOR.render(event, data, [answer]).data is None
    assert TRANSLATOR.neutral("input").data is None


def test_prompt_prefers_dynamic_context() -> None:
    data = payload("input", text="hi")
    out = TRANSLATOR.render("input", data, [{"inject": "old", "dynamicContext": "new"}])
    (message,) = out.data["context"]["signet-recall"]["messages"]
    assert "new" in message["content"] and "old" not in message["content"]
    assert message["display"] is False and message["role"] == "custom"


def test_pi_directories_follow_pi() -> None:
    env = {"HOME": "/h"}
    assert agent_dir(env) == "/h/.pi/agent"
    assert extensions_dir({"HOME": "/h", "PI_CODING_AGENT_DIR": "~/pi"}) == "/h/pi/extensions"
    roots = transcript_roots(
        {
            "HOME": "/h",
            "PI_CODING_AGENT_SESSION_DIR": "~/s",
            "SIGNET_TRANSCRIPT_ROOTS": "relative:/abs",
        }
    )
    assert roots == ["/h/.pi/agent/sessions", "/h/s", "/abs"]


def test_settings_session_dir_is_a_root(tmp_path: Any) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"sessionDir": "~/pi-sessions"}))
    roots = transcript_roots({"HOME": "/h", "PI_CODING_AGENT_DIR": str(agent)})
    assert roots == [str(agent / "sessions"), "/h/pi-sessions"]
    (agent / "settings.json").write_text("{not json")
    assert transcript_roots({"HOME": "/h", "PI_CODING_AGENT_DIR": str(agent)}) == [
        str(agent / "sessions")
    ]


def test_hook_process_imports_nothing_heavy() -> None:
    """The fallback hook process imports this package for every event: keep it lean."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from signet_adapter_pi import PLUGIN\n"
        "tr = PLUGIN.make_translator({})\n"
        "s = {'id': 's', 'onDisk': False, 'header': {}, 'entries': [{'type': 'x'}]}\n"
        "tr.translate('session_shutdown', {'type': 'session_shutdown', 'session': s})\n"
        "tr.translate('agent_end', {'messages': [{'role': 'user'}], 'session': s})\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    heavy = {"json", "re", "enum", "typing", "collections.abc", "pydantic", "httpx", "pathlib"}
    assert heavy.isdisjoint(out), sorted(heavy.intersection(out))
