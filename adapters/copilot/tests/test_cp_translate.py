"""The Copilot CLI translator on its own: payload in, daemon calls and Copilot's output out.

``look`` stands for what the hook process reads from ``events.jsonl`` (the
compactions this hook reports, the conversation file); here it is a fake
that records what it was asked, so each handler's use of it is pinned.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from cp_events import AGENT, CWD, SESSION, T0, payload
from signet_adapter_copilot import PLUGIN, TRANSLATOR, CopilotTranslator

from signet_sdk.plugin import LifecycleCall, PayloadError
from signet_sdk.runtime.dispatch import dispatch

EVENTS_JSONL = f"/home/dev/.copilot/session-state/{SESSION}/events.jsonl"
CONVERSATION = f"/home/dev/.local/state/signet-sdk/copilot-transcripts/{SESSION}.jsonl"


class FakeLook:
    """Answers every look with ``found`` and the conversation path; records the questions."""

    def __init__(self, found: list[tuple[str, str]], path: str | None = CONVERSATION) -> None:
        self.found, self.path = found, path
        self.asked: list[tuple[str, str, bool, bool]] = []

    def __call__(
        self, session: str, event: str, given: Mapping[str, Any], conversation: bool, settle: bool
    ) -> tuple[list[tuple[str, str]], str | None]:
        self.asked.append((session, event, conversation, settle))
        return list(self.found), self.path if conversation else None


def _compacted(summary: str) -> LifecycleCall:
    return LifecycleCall(
        "compaction_complete", {"sessionKey": SESSION, "summary": summary, "project": CWD}
    )


def test_the_plugin_registers_the_events_in_lifecycle_order() -> None:
    assert PLUGIN.name == "copilot"
    assert list(PLUGIN.events) == [
        "sessionStart",
        "userPromptSubmitted",
        "agentStop",
        "preCompact",
        "subagentStart",
        "subagentStop",
        "sessionEnd",
    ]
    timeouts = {name: spec.timeout_class for name, spec in PLUGIN.events.items()}
    assert timeouts["sessionStart"] == timeouts["subagentStart"] == "session_start"
    assert timeouts["userPromptSubmitted"] == "prompt_submit"
    detached = {name for name, spec in PLUGIN.events.items() if spec.detach}
    assert detached == {"sessionStart", "userPromptSubmitted", "sessionEnd"}
    assert [n for n, spec in PLUGIN.events.items() if spec.flushes] == ["sessionStart"]
    assert PLUGIN.tools == "mcp" and PLUGIN.runtime_path == "legacy"


def test_a_found_summary_follows_the_injecting_call_and_its_answer_is_the_context() -> None:
    look = FakeLook([("ev-1", "S1"), ("ev-2", "S2")])
    translator = CopilotTranslator(look)
    given = payload(T0, prompt="How do we deploy atlas?")

    calls = translator.translate("userPromptSubmitted", given)

    prompt = {
        "sessionKey": SESSION,
        "userPrompt": "How do we deploy atlas?",
        "userMessage": "How do we deploy atlas?",
        "project": CWD,
    }
    assert calls == [
        LifecycleCall("user_prompt_submit", prompt),
        _compacted("S1"),
        _compacted("S2"),
    ]
    assert look.asked == [(SESSION, "userPromptSubmitted", False, False)]
    answers = [{"inject": "MEMORY"}, {"success": True, "memoryId": "m-1"}, None]
    out = translator.render("userPromptSubmitted", given, answers)
    assert out.text == '{"additionalContext":"MEMORY"}'


def test_session_start_maps_new_to_startup_and_reports_what_was_found() -> None:
    look = FakeLook([("ev-1", "S1")])
    calls = CopilotTranslator(look).translate("sessionStart", payload(T0, source="new"))
    assert calls == [
        LifecycleCall(
            "session_start", {"sessionKey": SESSION, "project": CWD, "source": "startup"}
        ),
        _compacted("S1"),
    ]
    resumed = TRANSLATOR.translate("sessionStart", payload(T0, source="resume"))
    assert resumed[0].body["source"] == "resume"
    bare = TRANSLATOR.translate("sessionStart", {"sessionId": SESSION})
    assert bare == [LifecycleCall("session_start", {"sessionKey": SESSION})]


def test_a_blank_prompt_still_reports_what_was_found() -> None:
    look = FakeLook([("ev-1", "S1")])
    calls = CopilotTranslator(look).translate("userPromptSubmitted", payload(T0, prompt=" \n"))
    assert calls == [_compacted("S1")]
    out = CopilotTranslator(look).render("userPromptSubmitted", payload(T0, prompt=""), [None])
    assert out.text == ""


def test_agent_stop_sends_the_conversation_file_after_the_found_summaries() -> None:
    look = FakeLook([("ev-1", "S1")])
    given = payload(T0, transcriptPath=EVENTS_JSONL, stopReason="end_turn")
    calls = CopilotTranslator(look).translate("agentStop", given)
    checkpoint = {"sessionKey": SESSION, "project": CWD, "transcriptPath": CONVERSATION}
    assert calls == [_compacted("S1"), LifecycleCall("session_checkpoint_extract", checkpoint)]
    assert look.asked == [(SESSION, "agentStop", True, True)]


def test_agent_stop_without_a_conversation_falls_back_to_the_path_copilot_gave() -> None:
    given = payload(T0, transcriptPath=EVENTS_JSONL, stopReason="end_turn")
    (call,) = CopilotTranslator(FakeLook([], None)).translate("agentStop", given)
    assert call.body["transcriptPath"] == EVENTS_JSONL
    assert CopilotTranslator(FakeLook([], None)).translate("agentStop", payload(T0)) == []


def test_agent_stop_whose_log_holds_no_conversation_sends_no_checkpoint() -> None:
    """The log was read ("" from look) but holds no message: nothing to save, not the raw log."""
    given = payload(T0, transcriptPath=EVENTS_JSONL, stopReason="end_turn")
    assert CopilotTranslator(FakeLook([], "")).translate("agentStop", given) == []
    calls = CopilotTranslator(FakeLook([("ev-1", "S1")], "")).translate("agentStop", given)
    assert calls == [_compacted("S1")]
    ended = CopilotTranslator(FakeLook([], "")).translate("sessionEnd", payload(T0, reason="abort"))
    assert [call.body.get("transcriptPath") for call in ended] == [None]


def test_pre_compact_reports_earlier_summaries_before_its_own_call() -> None:
    look = FakeLook([("ev-0", "OLDER")])
    given = payload(T0, trigger="manual", customInstructions="  focus on deploys ")
    calls = CopilotTranslator(look).translate("preCompact", given)
    context = "Copilot CLI compaction (manual); user instructions: focus on deploys"
    assert calls == [
        _compacted("OLDER"),
        LifecycleCall("pre_compaction", {"sessionKey": SESSION, "sessionContext": context}),
    ]
    (auto,) = TRANSLATOR.translate("preCompact", payload(T0))
    assert auto.body["sessionContext"] == "Copilot CLI compaction (unknown)"


def test_session_end_sends_summaries_then_the_end_with_the_conversation() -> None:
    look = FakeLook([("ev-1", "S1")])
    calls = CopilotTranslator(look).translate("sessionEnd", payload(T0, reason="user_exit"))
    end = {
        "sessionKey": SESSION,
        "sessionId": SESSION,
        "cwd": CWD,
        "reason": "user_exit",
        "transcriptPath": CONVERSATION,
    }
    assert calls == [_compacted("S1"), LifecycleCall("session_end", end)]
    assert all(call.durable for call in calls)  # both go outbox-first
    (no_file,) = CopilotTranslator(FakeLook([], None)).translate("sessionEnd", {"sessionId": "s"})
    assert no_file.body == {"sessionKey": "s", "sessionId": "s", "reason": "other"}


def test_a_subagent_gets_context_under_the_parent_session() -> None:
    given = payload(T0, agentName="explore", agentId=AGENT, parentAgentId=SESSION)
    look = FakeLook([("ev-1", "S1")])
    translator = CopilotTranslator(look)
    (call,) = translator.translate("subagentStart", given)
    assert call == LifecycleCall(
        "session_start",
        {"sessionKey": SESSION, "harnessAgentId": AGENT, "project": CWD, "source": "subagent"},
    )
    assert look.asked == []  # subagentStart is not a reporting hook
    out = translator.render("subagentStart", given, [{"inject": "CTX"}])
    assert out.text == '{"additionalContext":"CTX"}'
    assert translator.translate("subagentStop", given) == []


def test_inside_a_subagent_nothing_is_sent_and_nothing_is_looked_at() -> None:
    look = FakeLook([("ev-1", "S1")])
    translator = CopilotTranslator(look)
    inner = {"sessionId": AGENT, "agentId": AGENT, "parentAgentId": SESSION, "cwd": CWD}
    assert translator.translate("userPromptSubmitted", {**inner, "prompt": "list files"}) == []
    assert translator.translate("agentStop", {**inner, "transcriptPath": EVENTS_JSONL}) == []
    assert translator.translate("preCompact", {**inner, "trigger": "auto"}) == []
    assert translator.translate("sessionEnd", {**inner, "reason": "complete"}) == []
    assert look.asked == []
    # The main agent's own events name themselves as parent: not a subagent.
    main = {"sessionId": SESSION, "parentAgentId": SESSION, "prompt": "hi"}
    assert translator.translate("userPromptSubmitted", main)[0].action == "user_prompt_submit"


@pytest.mark.parametrize(
    ("event", "given", "field"),
    [
        ("sessionStart", {"source": "new"}, "sessionId"),
        ("sessionStart", {"sessionId": "  "}, "sessionId"),
        ("sessionStart", {"sessionId": 7}, "sessionId"),
        ("sessionStart", {"sessionId": SESSION, "source": 1}, "source"),
        ("userPromptSubmitted", {"sessionId": SESSION}, "prompt"),
        ("userPromptSubmitted", {"sessionId": SESSION, "prompt": ["a"]}, "prompt"),
        ("agentStop", {"sessionId": SESSION, "transcriptPath": 3}, "transcriptPath"),
        ("preCompact", {"sessionId": SESSION, "customInstructions": {}}, "customInstructions"),
        ("subagentStart", {"sessionId": SESSION}, "agentName"),
        ("subagentStart", {"sessionId": SESSION, "agentName": " "}, "agentName"),
        ("sessionEnd", {"sessionId": SESSION, "reason": False}, "reason"),
        ("notification", {"sessionId": SESSION}, "event"),
    ],
)
def test_a_bad_payload_is_refused_naming_the_field(
    event: str, given: dict[str, Any], field: str
) -> None:
    with pytest.raises(PayloadError) as caught:
        TRANSLATOR.translate(event, given)
    assert caught.value.field == field


def test_a_bad_payload_fails_open_with_no_output() -> None:
    run = dispatch(TRANSLATOR, "userPromptSubmitted", {"sessionId": SESSION}, lambda call: {})
    assert isinstance(run.error, PayloadError)
    assert (run.calls, run.output.text, run.output.exit_code) == ([], "", 0)


def test_only_the_context_events_print_and_only_with_context() -> None:
    given = payload(T0, prompt="p", source="new", agentName="a")
    for event in ("agentStop", "preCompact", "subagentStop", "sessionEnd"):
        assert TRANSLATOR.render(event, given, [{"inject": "X"}]).text == ""
    for event in ("sessionStart", "userPromptSubmitted", "subagentStart"):
        assert TRANSLATOR.render(event, given, [{"inject": "  "}]).text == ""
        assert TRANSLATOR.render(event, given, [{"inject": "X", "skipped": True}]).text == ""
        assert TRANSLATOR.render(event, given, []).text == ""
    start = TRANSLATOR.render("sessionStart", given, [{"stableSystemPrompt": "A", "inject": "B"}])
    assert start.data == {"additionalContext": "A"}
