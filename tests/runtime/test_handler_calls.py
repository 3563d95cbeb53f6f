"""The calls most harnesses' prompt, subagent and compaction events come down to."""

from __future__ import annotations

import pytest

from signet_sdk.plugin import EventTranslator, LifecycleCall, PayloadError


def test_a_prompt_is_one_call_and_a_blank_one_none() -> None:
    calls = EventTranslator.prompt_calls("s1", "why?", "/w", harnessAgentId=None, model="m")
    assert calls == [
        LifecycleCall(
            "user_prompt_submit",
            {
                "sessionKey": "s1",
                "userPrompt": "why?",
                "userMessage": "why?",
                "project": "/w",
                "model": "m",
            },
        )
    ]
    assert EventTranslator.prompt_calls("s1", " \n", "/w") == []


def test_a_missing_prompt_names_its_field_and_a_blank_one_is_kept() -> None:
    assert EventTranslator.required_prompt({"prompt": "  "}) == "  "
    with pytest.raises(PayloadError) as missing:
        EventTranslator.required_prompt({"text": "x"}, "text2")
    assert missing.value.field == "text2"
    with pytest.raises(PayloadError):
        EventTranslator.required_prompt({"prompt": 3})


def test_a_subagent_start_and_the_compaction_context() -> None:
    (call,) = EventTranslator.subagent_start_calls("s1", "agent-7", None)
    assert call == LifecycleCall(
        "session_start", {"sessionKey": "s1", "harnessAgentId": "agent-7", "source": "subagent"}
    )
    assert EventTranslator.compaction_context("Codex", "auto", None) == "Codex compaction (auto)"
    assert (
        EventTranslator.compaction_context("Qwen Code", "manual", "  keep the plan ")
        == "Qwen Code compaction (manual); user instructions: keep the plan"
    )
    assert EventTranslator.compaction_context("X", "auto", "   ") == "X compaction (auto)"


def test_a_checkpoint_hands_the_transcript_by_path_or_inline() -> None:
    by_path = EventTranslator.checkpoint_call("s1", "/w", "/t/s1.jsonl")
    assert by_path == LifecycleCall(
        "session_checkpoint_extract",
        {"sessionKey": "s1", "project": "/w", "transcriptPath": "/t/s1.jsonl"},
    )
    assert by_path.durable  # a checkpoint is a write that must not be lost
    inline = EventTranslator.checkpoint_call("s1", None, '{"role": "user"}\n', inline=True)
    assert inline.body == {"sessionKey": "s1", "transcript": '{"role": "user"}\n'}


def test_compaction_and_session_end_calls() -> None:
    pre = EventTranslator.pre_compaction_call("s1", "Codex compaction (auto)")
    assert pre == LifecycleCall(
        "pre_compaction", {"sessionKey": "s1", "sessionContext": "Codex compaction (auto)"}
    )
    assert EventTranslator.pre_compaction_call("s1", "c", 40).body["messageCount"] == 40
    done = EventTranslator.compaction_call("s1", "we fixed the parser", None)
    assert done.body == {"sessionKey": "s1", "summary": "we fixed the parser"} and done.durable
    end = EventTranslator.session_end_call("s1", "/w", "exit", None)
    assert end == LifecycleCall(
        "session_end", {"sessionKey": "s1", "sessionId": "s1", "cwd": "/w", "reason": "exit"}
    )
    with_path = EventTranslator.session_end_call("s1", None, "other", "/t/s1.jsonl")
    assert with_path.body["transcriptPath"] == "/t/s1.jsonl" and "cwd" not in with_path.body


def test_a_session_end_may_carry_its_transcript_inline() -> None:
    end = EventTranslator.session_end_call("s1", None, "quit", None, '{"role": "user"}\n')
    assert end.body == {
        "sessionKey": "s1",
        "sessionId": "s1",
        "reason": "quit",
        "transcript": '{"role": "user"}\n',
    }
    assert end.durable


def test_required_names_the_missing_field_and_keeps_falsy_values() -> None:
    assert EventTranslator.required([], "messages") == []
    assert EventTranslator.required("", "text") == ""
    with pytest.raises(PayloadError) as missing:
        EventTranslator.required(None, "compactionEntry.summary")
    assert missing.value.field == "compactionEntry.summary"


def test_a_session_start_puts_only_what_has_a_value() -> None:
    start = EventTranslator.session_start_call("s1", "/w", "resume", parentSessionKey="s0")
    assert start == LifecycleCall(
        "session_start",
        {"sessionKey": "s1", "project": "/w", "source": "resume", "parentSessionKey": "s0"},
    )
    bare = EventTranslator.session_start_call("s1", None, None, harnessAgentId=None)
    assert bare.body == {"sessionKey": "s1"} and not bare.durable


def test_a_command_hook_pre_compact_reads_its_trigger_and_instructions() -> None:
    from signet_sdk.plugin import CommandHookTranslator

    class Hooks(CommandHookTranslator):
        harness = "x"

    hooks = Hooks()
    (call,) = hooks.pre_compact_calls(
        {"trigger": "manual", "custom_instructions": " keep the plan "}, "s1", "X"
    )
    assert call.body == {
        "sessionKey": "s1",
        "sessionContext": "X compaction (manual); user instructions: keep the plan",
    }
    (auto,) = hooks.pre_compact_calls({}, "s1", "X", "auto")
    assert auto.body["sessionContext"] == "X compaction (auto)"
    with pytest.raises(PayloadError):
        hooks.pre_compact_calls({"custom_instructions": 5}, "s1", "X")


def test_a_turn_that_carries_its_messages_is_an_inline_checkpoint() -> None:
    payload = {"messages": [{"role": "user", "content": "hi"}, 7]}
    assert EventTranslator.turn_checkpoint_calls(payload, "s1", "/w") == [
        LifecycleCall(
            "session_checkpoint_extract",
            {
                "sessionKey": "s1",
                "project": "/w",
                "transcript": '{"type":"message","message":{"role":"user","content":"hi"}}\n',
            },
        )
    ]
    assert EventTranslator.turn_checkpoint_calls({"messages": [7]}, "s1", None) == []
    with pytest.raises(PayloadError) as missing:
        EventTranslator.turn_checkpoint_calls({}, "s1", None)
    assert missing.value.field == "messages"


def test_a_subagent_hook_names_its_agent_and_its_stop_sends_nothing() -> None:
    from signet_sdk.plugin import CommandHookTranslator

    assert CommandHookTranslator.subagent_id({"agent_id": "agent-7"}) == "agent-7"
    for bad in ({}, {"agent_id": " "}, {"agent_id": 7}):
        with pytest.raises(PayloadError) as raised:
            CommandHookTranslator.subagent_id(bad)
        assert raised.value.field == "agent_id"
    assert CommandHookTranslator.subagent_stop_calls({}) == []
    with pytest.raises(PayloadError):
        CommandHookTranslator.subagent_stop_calls({"agent_id": 7})
