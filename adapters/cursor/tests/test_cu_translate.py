"""The Cursor translator on its own: sessions, projects, transcripts, outputs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from signet_adapter_cursor import PLUGIN, TRANSLATOR, CursorTranslator
from signet_adapter_cursor._paths import find_transcript, project_slugs, transcript_roots
from signet_adapter_cursor._translate import translator_for

from signet_sdk.plugin import PayloadError

CID = "a3f1c9d2-5b7e-4e21-9c4d-0f8e2b6a7d13"
ROOT = "/Users/dev/projects/atlas"


def payload(event: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "conversation_id": CID,
        "generation_id": "g-1",
        "hook_event_name": event,
        "workspace_roots": [ROOT],
        "transcript_path": None,
    }
    body.update(extra)
    return body


def test_the_plugin_registers_cursors_five_lifecycle_events() -> None:
    assert list(PLUGIN.events) == [
        "sessionStart",
        "beforeSubmitPrompt",
        "stop",
        "preCompact",
        "sessionEnd",
    ]
    classes = {name: spec.timeout_class for name, spec in PLUGIN.events.items()}
    assert classes == {
        "sessionStart": "session_start",
        "beforeSubmitPrompt": "prompt_submit",
        "stop": "default",
        "preCompact": "default",
        "sessionEnd": "default",
    }
    assert [n for n, s in PLUGIN.events.items() if s.detach] == ["sessionEnd"]
    assert [n for n, s in PLUGIN.events.items() if s.flushes] == ["sessionStart"]
    assert (PLUGIN.runtime_path, PLUGIN.tools) == ("legacy", "mcp")


def test_conversation_id_keys_the_session_and_session_id_stands_in() -> None:
    (call,) = TRANSLATOR.translate("sessionStart", payload("sessionStart", session_id="other"))
    assert call.body["sessionKey"] == CID
    bare = {"session_id": "s-9", "hook_event_name": "sessionStart"}
    (call,) = TRANSLATOR.translate("sessionStart", bare)
    assert call.body == {"sessionKey": "s-9"}
    for missing in ({"hook_event_name": "stop"}, {"conversation_id": "  "}):
        with pytest.raises(PayloadError) as caught:
            TRANSLATOR.translate("stop", missing)
        assert caught.value.field == "conversation_id"


def test_project_is_the_first_workspace_root_then_cursor_project_dir() -> None:
    roots = payload("sessionStart", workspace_roots=[ROOT, "/Users/dev/projects/lib"])
    (call,) = TRANSLATOR.translate("sessionStart", roots)
    assert call.body["project"] == ROOT
    translator = translator_for({"CURSOR_PROJECT_DIR": "/srv/from-env"})
    (call,) = translator.translate("sessionStart", payload("sessionStart", workspace_roots=[]))
    assert call.body["project"] == "/srv/from-env"
    with pytest.raises(PayloadError) as caught:
        TRANSLATOR.translate("sessionStart", payload("sessionStart", workspace_roots=[ROOT, 3]))
    assert caught.value.field == "workspace_roots[1]"


def test_a_null_transcript_path_is_looked_up_through_the_finder() -> None:
    asked: list[tuple[str, str]] = []

    def finder(workspace: str, conversation: str) -> str | None:
        asked.append((workspace, conversation))
        return "/found.jsonl"

    (call,) = CursorTranslator(finder).translate("stop", payload("stop", status="completed"))
    assert call.action == "session_checkpoint_extract"
    assert call.body["transcriptPath"] == "/found.jsonl" and asked == [(ROOT, CID)]
    named = payload("stop", transcript_path="/named.jsonl")
    (call,) = CursorTranslator(finder).translate("stop", named)
    assert call.body["transcriptPath"] == "/named.jsonl" and len(asked) == 1
    assert TRANSLATOR.translate("stop", payload("stop")) == []  # no finder: nothing to send
    (end,) = TRANSLATOR.translate("sessionEnd", payload("sessionEnd"))
    assert end.body == {"sessionKey": CID, "sessionId": CID, "cwd": ROOT, "reason": "other"}


def test_transcripts_are_found_where_cursor_writes_them(isolated: Path) -> None:
    env = dict(os.environ)
    folder = isolated / "projects" / "Users-dev-projects-atlas" / "agent-transcripts"
    assert find_transcript(env, ROOT, CID) is None
    flat = folder / f"{CID}.jsonl"  # the agent CLI's layout
    flat.parent.mkdir(parents=True)
    flat.write_text("{}\n")
    assert find_transcript(env, ROOT, CID) == str(flat)
    nested = folder / CID / f"{CID}.jsonl"  # the editor's, preferred
    nested.parent.mkdir()
    nested.write_text("{}\n")
    assert find_transcript(env, ROOT, CID) == str(nested)
    for unsafe in ("../../etc/passwd", "a/b", "", "x y"):
        assert find_transcript(env, ROOT, unsafe) is None
    assert transcript_roots(env) == [str(isolated / "projects")]


def test_project_slugs_follow_both_published_readings() -> None:
    assert project_slugs("/Users/dev/projects/atlas") == ["Users-dev-projects-atlas"]
    assert project_slugs("/home/a.b/my_app") == ["home-a-b-my-app", "home-a-b-my_app"]


def test_transcript_roots_take_absolute_extra_roots_only(isolated: Path) -> None:
    env = {"HOME": str(isolated.parent), "SIGNET_TRANSCRIPT_ROOTS": os.pathsep.join(
        ["/srv/t", "relative/t", " "])}  # fmt: skip
    assert transcript_roots(env) == [str(isolated / "projects"), "/srv/t"]


@pytest.mark.parametrize(
    ("fields", "note"),
    [
        ({"trigger": "auto", "context_usage_percent": 85.5, "context_window_size": 200000.0},
         "Cursor compaction (auto): context 85.5% of 200000 tokens"),
        ({"trigger": "manual", "messages_to_compact": 3},
         "Cursor compaction (manual): 3 messages to be summarised"),
        ({"context_usage_percent": 90}, "Cursor compaction (unknown): context 90%"),
    ],
)  # fmt: skip
def test_pre_compaction_note_says_what_cursor_reported(fields: dict[str, Any], note: str) -> None:
    (call,) = TRANSLATOR.translate("preCompact", payload("preCompact", **fields))
    assert call.body["sessionContext"] == note


def test_pre_compaction_refuses_a_count_that_is_not_a_number() -> None:
    with pytest.raises(PayloadError) as caught:
        TRANSLATOR.translate("preCompact", payload("preCompact", context_usage_percent=True))
    assert caught.value.field == "context_usage_percent"


def test_only_session_start_puts_context_in_front_of_the_model() -> None:
    answer = [{"inject": "INJ", "dynamicContext": "DYN"}]
    start = TRANSLATOR.render("sessionStart", payload("sessionStart"), answer)
    assert start.text == '{"additional_context":"DYN"}'
    prompt = TRANSLATOR.render("beforeSubmitPrompt", payload("beforeSubmitPrompt"), answer)
    assert prompt.text == '{"continue":true}'
    for event in ("stop", "preCompact", "sessionEnd"):
        assert TRANSLATOR.render(event, payload(event), answer).text == "{}"
    assert TRANSLATOR.neutral("sessionStart").text == "{}"
    # The neutral answers are fresh objects: a caller changing one changes no other.
    first = TRANSLATOR.neutral("beforeSubmitPrompt")
    first.data["continue"] = False
    assert TRANSLATOR.neutral("beforeSubmitPrompt").data == {"continue": True}
