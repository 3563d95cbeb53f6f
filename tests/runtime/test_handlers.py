"""``@on`` and ``EventTranslator``: a translator's events declared once, on their handlers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from signet_sdk.plugin import (
    CommandHookTranslator,
    EventSpec,
    EventTranslator,
    HarnessPlugin,
    LifecycleCall,
    NativeOutput,
    PayloadError,
    on,
    string,
)


class Shim(EventTranslator):
    harness = "shim"
    event_field = "type"
    carries = True
    context_events = frozenset({"start", "prompt"})
    prompt_events = frozenset({"prompt"})

    def scope(self, payload: Mapping[str, Any]) -> str:
        return string(payload, "sid", required=True) or ""

    @on("start", "session_start", flushes=True)
    def _start(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
        return [LifecycleCall("session_start", {"sessionKey": sid})]

    @on("prompt", "prompt_submit")
    @on("prompt.again", "prompt_submit")
    def _prompt(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
        body = {"sessionKey": sid, "userMessage": string(p, "text", required=True)}
        return [LifecycleCall("user_prompt_submit", body)]

    @on("end", detach=True)
    def _end(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
        return [LifecycleCall("session_end", {"sessionKey": sid, "reason": "exit"})]


def test_events_come_from_the_marks_in_source_order() -> None:
    assert Shim.event_names == ("start", "prompt", "prompt.again", "end")
    assert Shim.events == (
        EventSpec("start", "session_start", flushes=True),
        EventSpec("prompt", "prompt_submit"),
        EventSpec("prompt.again", "prompt_submit"),
        EventSpec("end", detach=True),
    )
    plugin = HarnessPlugin("shim", translator=Shim(), events=Shim.events)
    assert list(plugin.events) == list(Shim.event_names)


def test_translate_calls_the_marked_handler_with_the_scope() -> None:
    shim = Shim()
    assert shim.translate("start", {"sid": "s1"}) == [
        LifecycleCall("session_start", {"sessionKey": "s1"})
    ]
    both = [shim.translate(e, {"sid": "s2", "text": "hi"}) for e in ("prompt", "prompt.again")]
    assert (
        both[0]
        == both[1]
        == [LifecycleCall("user_prompt_submit", {"sessionKey": "s2", "userMessage": "hi"})]
    )
    assert shim.translate("end", {"sid": "s3", "type": "end", "carry": {}})[0].durable


@pytest.mark.parametrize(
    ("event", "payload", "field", "says"),
    [
        ("start", [], "payload", "must be a JSON object"),
        ("start", {"sid": "s", "type": "end"}, "type", "is 'end' but the event is 'start'"),
        ("start", {"sid": "s", "type": 3}, "type", "must be a string"),
        ("other", {"sid": "s"}, "type", "unsupported event 'other'; known: start, prompt"),
        ("start", {"sid": "s", "carry": []}, "carry", "must be an object"),
        ("start", {}, "sid", "is required"),
        ("prompt", {"sid": "s"}, "text", "is required"),
    ],
)
def test_a_bad_payload_names_its_field(event: str, payload: Any, field: str, says: str) -> None:
    with pytest.raises(PayloadError) as caught:
        Shim().translate(event, payload)
    assert caught.value.field == field and says in str(caught.value)


def test_without_an_event_field_unknown_events_are_reported_as_event() -> None:
    class Bare(EventTranslator):
        @on("only")
        def _only(self, p: Mapping[str, Any], scope: Any) -> list[LifecycleCall]:
            assert scope is p  # the default scope is the payload
            return []

    assert Bare().translate("only", {"type": "other", "carry": 1}) == []
    with pytest.raises(PayloadError) as caught:
        Bare().translate("nope", {})
    assert caught.value.field == "event"


def test_render_shows_context_only_for_context_events() -> None:
    shim = Shim()
    answer = {"stableSystemPrompt": "who you are", "dynamicContext": "per turn"}
    assert shim.render("start", {}, [answer]) == NativeOutput(
        {"context": "who you are\n\nper turn"}
    )
    assert shim.render("prompt", {}, [answer]) == NativeOutput({"context": "per turn"})
    assert shim.render("end", {}, [answer]) == NativeOutput()
    assert shim.render("start", {}, []) == NativeOutput()
    assert shim.render("prompt", {}, [{"skipped": True, "inject": "x"}]) == NativeOutput()


def test_a_subclass_inherits_and_overrides_events() -> None:
    class Later(Shim):
        @on("end")  # no longer detached
        def _end_now(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
            return []

        @on("extra")
        def _extra(self, p: Mapping[str, Any], sid: str) -> list[LifecycleCall]:
            return []

    assert Later.event_names == ("start", "prompt", "prompt.again", "end", "extra")
    assert Later.events[3] == EventSpec("end")
    assert Later().translate("end", {"sid": "s"}) == []
    assert Shim.events[3] == EventSpec("end", detach=True)  # the base is untouched


def test_two_handlers_for_one_event_and_a_bad_deadline_class_are_refused() -> None:
    with pytest.raises(TypeError, match="event 'x' has two handlers"):

        class Twice(EventTranslator):
            @on("x")
            def _a(self, p: Mapping[str, Any], s: Any) -> list[LifecycleCall]:
                return []

            @on("x")
            def _b(self, p: Mapping[str, Any], s: Any) -> list[LifecycleCall]:
                return []

    with pytest.raises(ValueError, match="timeout_class"):
        on("x", "soon")


class Hooks(CommandHookTranslator):
    context_events = frozenset({"SessionStart"})

    @on("SessionStart", "session_start")
    def _start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [LifecycleCall("session_start", {"sessionKey": session})]


def test_a_command_hook_translator_reads_session_id_and_answers_in_the_hook_envelope() -> None:
    hooks = Hooks()
    payload = {"session_id": "s9", "hook_event_name": "SessionStart"}
    assert hooks.translate("SessionStart", payload) == [
        LifecycleCall("session_start", {"sessionKey": "s9"})
    ]
    for bad, says in (({}, "is required"), ({"session_id": " "}, "must not be empty")):
        with pytest.raises(PayloadError, match=says) as caught:
            hooks.translate("SessionStart", bad)
        assert caught.value.field == "session_id"
    with pytest.raises(PayloadError) as caught:
        hooks.translate("SessionStart", {"session_id": "s", "hook_event_name": "Stop"})
    assert caught.value.field == "hook_event_name"
    out = hooks.render("SessionStart", payload, [{"inject": "remembered"}])
    envelope = {"hookEventName": "SessionStart", "additionalContext": "remembered"}
    assert out == NativeOutput({"hookSpecificOutput": envelope})


@pytest.mark.parametrize(
    ("reason", "sent"),
    [
        ("exit", {"transcriptPath": "/t/s.jsonl", "transcript": "{}\n"}),
        ("clear", {}),  # the daemon discards a cleared session and reads no transcript
    ],
)
def test_session_end_call_sends_a_transcript_unless_the_session_was_cleared(
    reason: str, sent: dict[str, str]
) -> None:
    call = EventTranslator.session_end_call("s1", "/w", reason, "/t/s.jsonl", "{}\n")
    assert call == LifecycleCall(
        "session_end",
        {"sessionKey": "s1", "sessionId": "s1", "cwd": "/w", "reason": reason, **sent},
    )
