"""Compression: what the chat file says, and what the hooks send for it.

Gemini CLI's hooks carry no compression summary and no "compressed" event:
``PreCompress`` has only its trigger (``auto`` fires before every model
request), and the summary is the ``user`` message Gemini writes into the
chat file, followed by its acknowledgement. These tests build chat files
the way Gemini 0.61 writes them and run the real hook command on them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gm_support import chat_file, message
from signet_adapter_gemini._chat import (
    ACK,
    compression_due,
    fresh_summary,
    messages_from_lines,
    read_messages,
)
from signet_adapter_gemini._translate import GeminiTranslator

from signet_sdk.testing import HookRun, ScriptedDaemon, outbox_left, run_hook

SUMMARY = "<state_snapshot>atlas deploys go through make ship</state_snapshot>"
META = {"sessionId": "s-1", "projectHash": "abc", "kind": "main"}


def _lines(*records: dict[str, Any]) -> list[str]:
    return [json.dumps(r) for r in records]


def _compressed_at(second: int, *kept: dict[str, Any]) -> dict[str, Any]:
    """The ``$set`` Gemini writes after compressing: summary, acknowledgement, kept history."""
    return {
        "$set": {
            "messages": [
                message(90, "user", SUMMARY, second),
                message(91, "gemini", ACK, second),
                *kept,
            ]
        }
    }


#: A chat whose last records are a compression: one question, its answer, then the summary.
COMPRESSED_LAST = [
    META,
    message(1, "user", "first", 1),
    message(2, "gemini", "answer one", 2),
    _compressed_at(10, message(2, "gemini", "answer one", 2)),
]


# -- reading the chat file ------------------------------------------------------


def test_records_replay_updates_sets_and_rewinds() -> None:
    lines = _lines(
        META,
        message(1, "user", "one", 1),
        message(2, "gemini", "two", 2),
        {**message(2, "gemini", "two, edited", 2), "tokens": {"input": 5}},
        message(3, "user", "three", 3),
        {"$rewindTo": "m3"},
        {"$set": {"lastUpdated": "2026-11-24T09:12:04.000Z"}},
    )
    got = messages_from_lines([*lines, '{"id": "m4", "type": "us'])  # a torn last line
    assert [m["id"] for m in got] == ["m1", "m2"]
    assert got[1]["content"] == "two, edited"
    replaced = messages_from_lines(
        [*lines, json.dumps({"$set": {"messages": [message(7, "user", "x", 7)]}})]
    )
    assert [m["id"] for m in replaced] == ["m7"]
    assert messages_from_lines(_lines(message(1, "user", "a", 1), {"$rewindTo": "gone"})) == []


def test_read_messages_only_inside_roots(tmp_path: Path, isolated: Path) -> None:
    inside = chat_file(isolated, [META, message(1, "user", "hi", 1)])
    assert [m["id"] for m in read_messages(str(inside), [str(isolated / "tmp")]) or []] == ["m1"]
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(inside.read_text())
    assert read_messages(str(outside), [str(isolated / "tmp")]) is None
    link = isolated / "tmp" / "atlas" / "chats" / "link.jsonl"
    link.symlink_to(outside)
    assert read_messages(str(link), [str(isolated / "tmp")]) is None


def test_read_messages_legacy_single_object(isolated: Path) -> None:
    folder = isolated / "tmp" / "atlas" / "chats"
    folder.mkdir(parents=True)
    path = folder / "session-old.json"
    doc = {**META, "messages": [message(1, "user", "hi", 1), message(2, "gemini", "yo", 2)]}
    path.write_text(json.dumps(doc, indent=2))
    got = read_messages(str(path), [str(isolated / "tmp")])
    assert [m["id"] for m in got or []] == ["m1", "m2"]


# -- which summary is fresh -------------------------------------------------------


def test_compression_at_the_start_of_the_turn_is_fresh() -> None:
    later = [message(3, "user", "second", 11), message(4, "gemini", "answer two", 12)]
    chat = messages_from_lines(_lines(*COMPRESSED_LAST, *later))
    assert fresh_summary(chat) == ("m90", SUMMARY)
    assert fresh_summary(chat, at_end=True) is None  # the turn went on: reported at its end


def test_compression_between_model_calls_of_the_turn_is_fresh() -> None:
    kept = [message(1, "user", "use the tools", 1), message(2, "gemini", "calling", 2)]
    chat = messages_from_lines(
        _lines(META, *kept, _compressed_at(5, *kept), message(3, "gemini", "done", 6))
    )
    assert fresh_summary(chat) == ("m90", SUMMARY)


def test_compression_of_an_earlier_turn_is_not_fresh() -> None:
    chat = messages_from_lines(
        _lines(
            META,
            message(1, "user", "first", 1),
            _compressed_at(5, message(1, "user", "first", 1)),
            message(2, "gemini", "answer one", 6),
            message(3, "user", "second", 7),
            message(4, "gemini", "answer two", 8),
        )
    )
    assert fresh_summary(chat) is None
    assert fresh_summary(chat, at_end=True) is None


def test_compress_then_quit_is_fresh_at_the_end() -> None:
    chat = messages_from_lines(_lines(*COMPRESSED_LAST))
    assert fresh_summary(chat, at_end=True) == ("m90", SUMMARY)


def test_no_acknowledgement_no_summary() -> None:
    chat = messages_from_lines(
        _lines(META, message(1, "user", SUMMARY, 1), message(2, "gemini", "ok", 2))
    )
    assert fresh_summary(chat) is None


def test_compression_due_by_gemini_rule() -> None:
    def chat(tokens: int, model: str = "gemini-2.5-pro") -> list[dict[str, Any]]:
        answer = message(2, "gemini", "a", 2, tokens=tokens)
        answer["model"] = model
        return messages_from_lines(_lines(META, message(1, "user", "q", 1), answer))

    assert compression_due(chat(524_288))
    assert not compression_due(chat(524_287))
    assert compression_due(chat(128_000, "gemma-4-31b-it"))
    assert not compression_due(messages_from_lines(_lines(META, message(1, "user", "q", 1))))
    stale = messages_from_lines(
        _lines(
            META,
            message(1, "user", "q", 1),
            message(2, "gemini", "a", 2, tokens=900_000),
            _compressed_at(5, message(2, "gemini", "a", 2, tokens=900_000)),
        )
    )
    assert not compression_due(stale)


def test_translator_without_reader_looks_for_nothing() -> None:
    tr = GeminiTranslator()
    base = {"session_id": "s-1", "cwd": "/srv/atlas", "transcript_path": "/x/chat.jsonl"}
    assert tr.translate("PreCompress", {**base, "trigger": "auto"}) == []
    calls = tr.translate("AfterAgent", {**base, "prompt": "q", "prompt_response": "a"})
    assert [c.action for c in calls] == ["session_checkpoint_extract"]


# -- the hook command on real chat files --------------------------------------------


def _payload(event: str, path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "s-1",
        "transcript_path": str(path),
        "cwd": "/srv/atlas",
        "hook_event_name": event,
        "timestamp": "2026-11-24T09:12:30.000Z",
        **extra,
    }


def _hook(daemon: ScriptedDaemon, event: str, path: Path, **extra: Any) -> HookRun:
    """``event`` through the hook command, its payload naming the chat file ``path``."""
    return run_hook("gemini", event, _payload(event, path, **extra), daemon_url=daemon.url)


def test_after_agent_sends_the_summary_then_the_checkpoint(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    path = chat_file(
        isolated,
        [
            META,
            message(1, "user", "first", 1),
            message(2, "gemini", "answer one", 2, tokens=700_000),
            _compressed_at(10, message(2, "gemini", "answer one", 2)),
            message(3, "user", "second", 11),
            message(4, "gemini", "answer two", 12, tokens=900),
        ],
    )
    run = _hook(scripted_daemon, "AfterAgent", path, prompt="second", prompt_response="answer two")
    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    got = scripted_daemon.wait_for(2)
    assert [r.path for r in got] == [
        "/api/hooks/compaction-complete",
        "/api/hooks/session-checkpoint-extract",
    ]
    assert got[0].json == {
        "sessionKey": "s-1",
        "summary": SUMMARY,
        "project": "/srv/atlas",
        "harness": "gemini",
        "runtimePath": "legacy",
    }
    assert got[1].staged == path.read_bytes()
    assert outbox_left() == []


def test_pre_compress_auto_only_when_due(scripted_daemon: ScriptedDaemon, isolated: Path) -> None:
    small = chat_file(
        isolated,
        [META, message(1, "user", "q", 1), message(2, "gemini", "a", 2, tokens=900)],
        "small",
    )
    big = chat_file(
        isolated,
        [META, message(1, "user", "q", 1), message(2, "gemini", "a", 2, tokens=600_000)],
        "big",
    )
    quiet = _hook(scripted_daemon, "PreCompress", small, trigger="auto")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"{}", b"")
    due = _hook(scripted_daemon, "PreCompress", big, trigger="auto")
    assert (due.returncode, due.stdout, due.stderr) == (0, b"{}", b"")
    got = scripted_daemon.wait_for(1)
    assert [r.path for r in got] == ["/api/hooks/pre-compaction"]
    assert got[0].json["sessionContext"] == "Gemini CLI compression (auto)"


def test_session_end_after_compress_sends_the_summary(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    path = chat_file(isolated, COMPRESSED_LAST)
    run = _hook(scripted_daemon, "SessionEnd", path, reason="exit")
    assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    got = scripted_daemon.wait_for(2)
    assert outbox_left() == []
    assert [r.path for r in got] == ["/api/hooks/compaction-complete", "/api/hooks/session-end"]
    assert got[0].json["summary"] == SUMMARY
    assert got[1].json["reason"] == "exit"


def test_chat_outside_the_roots_is_not_read(
    scripted_daemon: ScriptedDaemon, isolated: Path, tmp_path: Path
) -> None:
    inside = chat_file(
        isolated,
        [META, message(1, "user", "q", 1), _compressed_at(5), message(2, "user", "again", 6)],
    )
    outside = tmp_path / "chat.jsonl"
    outside.write_bytes(inside.read_bytes())
    run = _hook(scripted_daemon, "AfterAgent", outside, prompt="again", prompt_response="ok")
    assert (run.returncode, run.stdout) == (0, b"{}")
    got = scripted_daemon.wait_for(1)
    assert [r.path for r in got] == ["/api/hooks/session-checkpoint-extract"]
    assert "transcriptPath" not in got[0].json or not str(got[0].json["transcriptPath"]).endswith(
        "chat.jsonl"
    )


def test_a_summary_is_claimed_once(tmp_path: Path) -> None:
    from signet_adapter_gemini._once import claim_summary

    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    assert claim_summary(env, "s-1", "m90")
    assert not claim_summary(env, "s-1", "m90")
    assert claim_summary(env, "s-1", "m91")
    assert claim_summary(env, "s-2", "m90")
    folder = tmp_path / "state" / "signet-sdk" / "gemini-compactions"
    assert folder.stat().st_mode & 0o777 == 0o700
    blocked = {"XDG_STATE_HOME": str(tmp_path / "file")}
    (tmp_path / "file").write_text("not a directory")
    assert claim_summary(blocked, "s-1", "m90")  # cannot claim: send rather than lose it


def test_session_end_fired_three_times_at_once_sends_the_summary_once(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    """Interactive /quit runs SessionEnd's hooks three times within 0.1 s."""
    import concurrent.futures

    path = chat_file(isolated, COMPRESSED_LAST)
    payload = _payload("SessionEnd", path, reason="exit")
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        runs = list(
            pool.map(
                lambda _: run_hook("gemini", "SessionEnd", payload, daemon_url=scripted_daemon.url),
                range(3),
            )
        )
    assert all((r.returncode, r.stdout, r.stderr) == (0, b"{}", b"") for r in runs)
    scripted_daemon.wait_for(4)
    assert outbox_left() == []
    paths = [r.path for r in scripted_daemon.requests]
    assert paths.count("/api/hooks/compaction-complete") == 1
    assert paths.count("/api/hooks/session-end") == 3  # the daemon drops the repeats


def test_auto_pre_compaction_once_between_compressions(
    scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    """A compression Gemini gives up on leaves the count high; PreCompress keeps firing."""
    due = [META, message(1, "user", "q", 1), message(2, "gemini", "a", 2, tokens=600_000)]
    path = chat_file(isolated, due)
    payload = _payload("PreCompress", path, trigger="auto")
    for _ in range(3):
        run = run_hook("gemini", "PreCompress", payload, daemon_url=scripted_daemon.url)
        assert (run.returncode, run.stdout, run.stderr) == (0, b"{}", b"")
    later = [
        *due,
        _compressed_at(10, message(2, "gemini", "a", 2)),
        message(3, "user", "again", 11),
        message(4, "gemini", "b", 12, tokens=700_000),
    ]
    chat_file(isolated, later)
    run = run_hook("gemini", "PreCompress", payload, daemon_url=scripted_daemon.url)
    assert run.returncode == 0
    manual = run_hook(
        "gemini", "PreCompress", {**payload, "trigger": "manual"}, daemon_url=scripted_daemon.url
    )
    assert manual.returncode == 0
    scripted_daemon.wait_for(3)
    contexts = [r.json["sessionContext"] for r in scripted_daemon.requests]
    assert contexts == [
        "Gemini CLI compression (auto)",
        "Gemini CLI compression (auto)",
        "Gemini CLI compression (manual)",
    ]
