"""The translator on its own: what each event asks of disk and what it makes of the answers.

A recording stand-in for :class:`signet_adapter_kimi._session.HookFiles`
plays the disk, so each case shows exactly which calls an event makes from
what the files hold (sessions to end late, unreported compactions, the
conversation file, the held start context) and what Kimi reads back.
"""

from __future__ import annotations

from typing import Any

import pytest
from signet_adapter_kimi import TRANSLATOR, KimiTranslator
from signet_adapter_kimi._session import Ending
from signet_adapter_kimi._translate import translator_for

from signet_sdk.plugin import LifecycleCall, PayloadError

SESSION = "session_7a1c"
OTHER = "session_5e0f"
PROJECT = "/home/dev/projects/atlas"


class FakeFiles:
    """Answers like HookFiles from plain attributes and records what was asked."""

    def __init__(self) -> None:
        self.endings: list[Ending] = []
        self.summaries: list[str] = []
        self.transcript: str | None = None
        self.held: dict[str, str] = {}
        self.asked: list[tuple[Any, ...]] = []

    def begin(self, session: str, cwd: str | None) -> list[Ending]:
        self.asked.append(("begin", session, cwd))
        return self.endings

    def look(
        self,
        session: str,
        cwd: str | None,
        *,
        conversation: bool,
        settle: bool = False,
        turn_end: bool = False,
    ) -> tuple[list[str], str | None]:
        self.asked.append(("look", session, conversation, settle, turn_end))
        return self.summaries, self.transcript if conversation else None

    def end(self, session: str) -> None:
        self.asked.append(("end", session))

    def keep_context(self, session: str, text: str) -> None:
        self.held[session] = text

    def take_context(self, session: str) -> str | None:
        return self.held.pop(session, None)


def payload(event: str, **fields: Any) -> dict[str, Any]:
    return {
        "hook_event_name": event,
        "session_id": SESSION,
        "cwd": PROJECT,
        "client_type": "kimi_code_cli",
        **fields,
    }


def actions(calls: list[LifecycleCall]) -> list[tuple[str, Any]]:
    return [(c.action, c.body) for c in calls]


def test_session_start_ends_the_gone_sessions_first_then_starts() -> None:
    files = FakeFiles()
    files.endings = [
        Ending(OTHER, "/srv/billing", ["Billing moved to blue-green."], "/state/t/o.jsonl"),
        Ending(SESSION, PROJECT, [], "/state/t/s.jsonl"),
    ]
    tr = KimiTranslator(files)

    calls = tr.translate("SessionStart", payload("SessionStart", source="resume"))

    assert files.asked == [("begin", SESSION, PROJECT)]
    assert actions(calls) == [
        (
            "compaction_complete",
            {
                "sessionKey": OTHER,
                "summary": "Billing moved to blue-green.",
                "project": "/srv/billing",
            },
        ),
        (
            "session_end",
            {
                "sessionKey": OTHER,
                "sessionId": OTHER,
                "cwd": "/srv/billing",
                "reason": "exit",
                "transcriptPath": "/state/t/o.jsonl",
            },
        ),
        (
            "session_end",
            {
                "sessionKey": SESSION,
                "sessionId": SESSION,
                "cwd": PROJECT,
                "reason": "exit",
                "transcriptPath": "/state/t/s.jsonl",
            },
        ),
        ("session_start", {"sessionKey": SESSION, "project": PROJECT, "source": "resume"}),
    ]
    assert all(c.durable for c in calls[:-1]) and not calls[-1].durable


def test_the_start_context_is_printed_held_and_given_once_with_the_first_prompt() -> None:
    files = FakeFiles()
    tr = KimiTranslator(files)
    start = payload("SessionStart", source="startup")
    ask = payload("UserPromptSubmit", prompt=[{"type": "text", "text": "Deploy?"}], is_steer=False)

    shown = tr.render("SessionStart", start, [None, {"inject": "START-CONTEXT"}])
    first = tr.render("UserPromptSubmit", ask, [{"inject": "RECALL-1"}])
    second = tr.render("UserPromptSubmit", ask, [{"inject": "RECALL-2"}])

    assert shown.text == "START-CONTEXT"
    assert first.text == "START-CONTEXT\n\nRECALL-1"
    assert second.text == "RECALL-2"
    assert (first.data, first.exit_code) == (None, 0)


def test_a_blank_prompt_still_brings_the_held_start_context() -> None:
    files = FakeFiles()
    files.held[SESSION] = "START-CONTEXT\n"
    tr = KimiTranslator(files)
    blank = payload("UserPromptSubmit", prompt=[{"type": "text", "text": " "}], is_steer=False)

    assert tr.translate("UserPromptSubmit", blank) == []
    assert tr.render("UserPromptSubmit", blank, []).text == "START-CONTEXT"
    assert tr.render("UserPromptSubmit", blank, []).text == ""


def test_a_skipped_start_holds_nothing() -> None:
    files = FakeFiles()
    tr = KimiTranslator(files)
    out = tr.render("SessionStart", payload("SessionStart"), [{"inject": "x", "skipped": True}])
    assert out.text == "" and files.held == {}


def test_stop_checkpoints_the_conversation_after_the_summaries_it_found() -> None:
    files = FakeFiles()
    files.summaries = ["Atlas deploys go through make ship."]
    files.transcript = "/state/kimi/transcripts/session_7a1c.jsonl"
    tr = KimiTranslator(files)

    calls = tr.translate("Stop", payload("Stop", stop_hook_active=False))

    assert files.asked == [("look", SESSION, True, False, True)]
    assert actions(calls) == [
        (
            "compaction_complete",
            {
                "sessionKey": SESSION,
                "summary": "Atlas deploys go through make ship.",
                "project": PROJECT,
            },
        ),
        (
            "session_checkpoint_extract",
            {"sessionKey": SESSION, "project": PROJECT, "transcriptPath": files.transcript},
        ),
    ]
    assert tr.render("Stop", payload("Stop"), [None, None]).text == ""


def test_stop_with_nothing_said_sends_nothing() -> None:
    tr = KimiTranslator(FakeFiles())
    assert tr.translate("Stop", payload("Stop", stop_hook_active=False)) == []


def test_post_compact_waits_for_the_summary_and_sends_it_alone() -> None:
    files = FakeFiles()
    files.summaries = ["S1"]
    tr = KimiTranslator(files)

    calls = tr.translate("PostCompact", payload("PostCompact", trigger="manual"))

    assert files.asked == [("look", SESSION, False, True, False)]
    assert actions(calls) == [
        ("compaction_complete", {"sessionKey": SESSION, "summary": "S1", "project": PROJECT})
    ]


def test_session_end_sends_summaries_then_the_end_and_forgets_the_process() -> None:
    files = FakeFiles()
    files.summaries = ["S1"]
    files.transcript = "/state/t.jsonl"
    tr = KimiTranslator(files)

    calls = tr.translate("SessionEnd", payload("SessionEnd", reason="exit"))

    assert files.asked == [("look", SESSION, True, False, False), ("end", SESSION)]
    assert [c.action for c in calls] == ["compaction_complete", "session_end"]
    assert calls[1].body["transcriptPath"] == "/state/t.jsonl"
    assert calls[1].body["reason"] == "exit"


def test_pre_compact_names_the_trigger_and_the_token_count() -> None:
    calls = TRANSLATOR.translate("PreCompact", payload("PreCompact", trigger="auto", token_count=9))
    assert actions(calls) == [
        (
            "pre_compaction",
            {"sessionKey": SESSION, "sessionContext": "Kimi Code compaction (auto, 9 tokens)"},
        )
    ]


@pytest.mark.parametrize(
    ("prompt", "field"),
    [
        (None, "prompt"),
        ("plain text is taken as it is", None),
        ([{"type": "text", "text": 3}], "prompt"),
        (["not an object"], "prompt"),
        ({"type": "text"}, "prompt"),
    ],
)
def test_prompt_shapes(prompt: Any, field: str | None) -> None:
    p = payload("UserPromptSubmit", prompt=prompt)
    if field is None:
        (call,) = TRANSLATOR.translate("UserPromptSubmit", p)
        assert call.body["userPrompt"] == prompt
        return
    with pytest.raises(PayloadError) as caught:
        TRANSLATOR.translate("UserPromptSubmit", p)
    assert caught.value.field == field


def test_a_wrong_token_count_is_named() -> None:
    with pytest.raises(PayloadError) as caught:
        TRANSLATOR.translate("PreCompact", payload("PreCompact", token_count="many"))
    assert caught.value.field == "token_count"


def test_the_hook_process_gets_disk_an_empty_environment_none() -> None:
    assert translator_for({}) is TRANSLATOR
    real = translator_for({"HOME": "/home/dev"})
    assert isinstance(real, KimiTranslator) and real.files is not None
