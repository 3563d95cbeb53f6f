"""The translator, the session notes and the summary claims, in-process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from signet_adapter_qwen_code import TRANSLATOR
from signet_adapter_qwen_code._once import claim_summary
from signet_adapter_qwen_code._paths import qwen_dir, runtime_dir, transcript_roots
from signet_adapter_qwen_code._sessions import SessionNotes, notes_for, process_started
from signet_adapter_qwen_code._translate import (
    MAX_GUIDANCE_CHARS,
    QwenCodeTranslator,
    guidance,
    translator_for,
)

from signet_sdk.plugin import LifecycleCall, PayloadError

A, B, C = "a0000000-0000-4000-8000-00000000000a", "b000", "c000"


def payload(event: str, session: str = A, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/home/dev/.qwen/projects/-atlas/chats/{session}.jsonl",
        "cwd": "/home/dev/atlas",
        "hook_event_name": event,
        **extra,
    }


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A process that runs until the test ends it (a stand-in for a Qwen Code process)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def gone_pid() -> int:
    """The number of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# -- the session notes ------------------------------------------------------------


def test_a_session_whose_process_is_gone_is_ended_once(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    folder = str(tmp_path / "notes")
    old = SessionNotes(folder, gone_pid())
    old.note(A, "/home/dev/atlas", "/q/a.jsonl")
    running = SessionNotes(folder, sleeper.pid, process_started(sleeper.pid))
    running.note(B, "/home/dev/other", "/q/b.jsonl")

    new = SessionNotes(folder, os.getpid())
    (ended,) = new.ended(C)
    assert {k: ended[k] for k in ("session", "project", "transcript")} == {
        "session": A,
        "project": "/home/dev/atlas",
        "transcript": "/q/a.jsonl",
    }
    assert new.ended(C) == []  # claimed: a second start does not end it again
    assert sorted(os.listdir(folder)) == [f"{B}.json"]  # B's process still runs


def test_the_starting_session_is_never_ended_and_a_resume_takes_its_note_over(
    tmp_path: Path,
) -> None:
    folder = str(tmp_path / "notes")
    SessionNotes(folder, gone_pid()).note(A, "/p", "/q/a.jsonl")
    resumed = SessionNotes(folder, os.getpid())
    assert resumed.ended(A) == []
    resumed.note(A, "/p", "/q/a.jsonl")
    assert SessionNotes(folder, os.getpid()).ended(B) == []  # A now runs in this process


def test_a_reused_process_number_does_not_keep_a_session_open(tmp_path: Path) -> None:
    folder = str(tmp_path / "notes")
    started = process_started(os.getpid())
    if not started:
        pytest.skip("no /proc start times on this system")
    SessionNotes(folder, os.getpid(), str(int(started) - 1)).note(A, "/p", "/q/a.jsonl")
    (ended,) = SessionNotes(folder, os.getpid(), started).ended(B)
    assert ended["session"] == A


def test_dropped_and_unreadable_notes(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    notes = SessionNotes(str(folder), gone_pid())
    notes.note(A, "/p", "/q/a.jsonl")
    notes.drop(A)
    notes.drop(A)  # twice: nothing to drop, no error
    (folder / "junk.json").write_text("{not json")
    assert SessionNotes(str(folder), os.getpid()).ended(B) == []
    assert not (folder / "junk.json").exists()  # an unreadable note is cleared away
    assert SessionNotes(str(tmp_path / "missing"), os.getpid()).ended(B) == []


def test_a_note_is_written_only_when_it_changes(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    notes = SessionNotes(str(folder), os.getpid())
    notes.note(A, "/p", "/q/a.jsonl")
    path = folder / f"{A}.json"
    os.utime(path, (1, 1))
    notes.note(A, "/p", "/q/a.jsonl")
    assert path.stat().st_mtime == 1
    notes.note(A, "/p", "/q/moved.jsonl")
    assert path.stat().st_mtime > 1
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_notes_follow_the_launcher_of_the_qwen_process(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path), "QWEN_CODE_LAUNCHER_PID": "4242"}
    notes = notes_for(env)
    assert notes is not None and notes.pid == 4242
    assert notes.folder == str(tmp_path / "signet-sdk" / "qwen-code-sessions")
    fallback = notes_for({"XDG_STATE_HOME": str(tmp_path)})
    assert fallback is not None and fallback.pid == os.getppid()


# -- the translator and its side state ------------------------------------------


class FakeNotes:
    """Session notes in memory: what the translator asked of them."""

    def __init__(self, ended: list[dict[str, Any]]) -> None:
        self.owed = ended
        self.calls: list[tuple[str, ...]] = []

    def ended(self, current: str) -> list[dict[str, Any]]:
        self.calls.append(("ended", current))
        owed, self.owed = self.owed, []
        return owed

    def note(self, session: str, project: str | None, transcript: str | None) -> None:
        self.calls.append(("note", session, str(project), str(transcript)))

    def drop(self, session: str) -> None:
        self.calls.append(("drop", session))


def translator(notes: FakeNotes | None = None, claim: Any = None) -> QwenCodeTranslator:
    held = cast("SessionNotes", notes)
    return QwenCodeTranslator((lambda: held) if notes else None, claim)


def test_session_start_ends_the_sessions_left_open_after_asking_for_context() -> None:
    owed = {"session": B, "project": "/home/dev/other", "transcript": "/q/b.jsonl", "pid": 7}
    notes = FakeNotes([owed, {"session": C, "project": None, "transcript": ""}])
    calls = translator(notes).translate("SessionStart", payload("SessionStart", source="startup"))
    assert calls == [
        LifecycleCall(
            "session_start", {"sessionKey": A, "project": "/home/dev/atlas", "source": "startup"}
        ),
        LifecycleCall(
            "session_end",
            {
                "sessionKey": B,
                "sessionId": B,
                "cwd": "/home/dev/other",
                "reason": "other",
                "transcriptPath": "/q/b.jsonl",
            },
        ),
        LifecycleCall("session_end", {"sessionKey": C, "sessionId": C, "reason": "other"}),
    ]
    transcript = payload("SessionStart")["transcript_path"]
    assert notes.calls == [("ended", A), ("note", A, "/home/dev/atlas", transcript)]
    # The context still comes from the first answer, the session start's.
    out = translator().render("SessionStart", {}, [{"inject": "CTX"}, {"ok": True}, None])
    assert out.data == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CTX"}
    }


def test_stop_notes_the_session_and_session_end_drops_it() -> None:
    notes = FakeNotes([])
    t = translator(notes)
    (checkpoint,) = t.translate("Stop", payload("Stop"))
    assert checkpoint.action == "session_checkpoint_extract"
    t.translate("Stop", payload("Stop", agent_id="sub-1"))  # a subagent's Stop: not noted
    (end,) = t.translate("SessionEnd", payload("SessionEnd", reason="prompt_input_exit"))
    assert end.body["reason"] == "prompt_input_exit"
    transcript = payload("Stop")["transcript_path"]
    assert notes.calls == [("note", A, "/home/dev/atlas", transcript), ("drop", A)]


def test_prompts_events_leave_the_notes_alone() -> None:
    def forbidden() -> None:
        raise AssertionError("the notes were opened")

    t = QwenCodeTranslator(cast("Any", forbidden))
    for event, extra in [
        ("UserPromptSubmit", {"prompt": "hi"}),
        ("PreCompact", {"trigger": "auto"}),
        ("PostCompact", {"compact_summary": "S"}),
        ("SubagentStart", {"agent_id": "x"}),
        ("SubagentStop", {"agent_id": "x"}),
    ]:
        t.translate(event, payload(event, **extra))


def test_a_summary_claimed_elsewhere_is_not_sent_again() -> None:
    seen: list[tuple[str, str]] = []

    def claim(session: str, summary: str) -> bool:
        seen.append((session, summary))
        return len(seen) == 1

    t = translator(claim=claim)
    event = payload("PostCompact", trigger="auto", compact_summary="SUMMARY")
    assert [c.action for c in t.translate("PostCompact", event)] == ["compaction_complete"]
    assert t.translate("PostCompact", event) == []
    assert seen == [(A, "SUMMARY"), (A, "SUMMARY")]


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"prompt": "model-bound text", "submitted_prompt": "typed"}, "typed"),
        ({"prompt": "model-bound text", "submitted_prompt": "  "}, "model-bound text"),
        ({"submitted_prompt": "typed"}, "typed"),
        ({"prompt": "only this"}, "only this"),
    ],
)
def test_the_users_own_words_are_recalled_for(fields: dict[str, str], words: str) -> None:
    (call,) = TRANSLATOR.translate("UserPromptSubmit", payload("UserPromptSubmit", **fields))
    assert (call.body["userPrompt"], call.body["userMessage"]) == (words, words)


def test_bad_fields_are_named() -> None:
    with pytest.raises(PayloadError) as bad:
        TRANSLATOR.translate("UserPromptSubmit", payload("UserPromptSubmit", prompt=3))
    assert bad.value.field == "prompt"
    with pytest.raises(PayloadError) as bad:
        TRANSLATOR.translate("SubagentStart", payload("SubagentStart"))
    assert bad.value.field == "agent_id"
    with pytest.raises(PayloadError) as bad:
        TRANSLATOR.translate("Notification", payload("Notification"))
    assert bad.value.field == "hook_event_name"


def test_guidance_for_the_summariser() -> None:
    assert guidance({"summaryPrompt": " P ", "guidelines": "G"}) == "P\n\nG"
    assert guidance({"summaryPrompt": "P\nG", "guidelines": "G"}) == "P\nG"
    assert guidance({"guidelines": "G"}) == "G"
    assert guidance({"summaryPrompt": "P", "bypassed": True}) == ""
    assert guidance({"skipped": True}) == guidance(None) == guidance({}) == ""
    long = "\n".join(f"line {i:05d} " + "x" * 40 for i in range(200))
    cut = guidance({"summaryPrompt": long})
    assert len(cut) <= MAX_GUIDANCE_CHARS and long.startswith(cut) and cut.endswith("x")
    out = TRANSLATOR.render("PreCompact", {}, [{"guidelines": "Keep decisions."}])
    assert out.text == (
        '{"hookSpecificOutput":{"hookEventName":"PreCompact",'
        '"additionalContext":"Keep decisions."}}'
    )
    assert TRANSLATOR.render("PreCompact", {}, []).text == ""


def test_side_state_only_for_hooks_qwen_code_runs(tmp_path: Path) -> None:
    assert translator_for({}) is TRANSLATOR
    assert translator_for({"QWEN_PROJECT_DIR": "  "}) is TRANSLATOR
    env = {"QWEN_PROJECT_DIR": "/p", "XDG_STATE_HOME": str(tmp_path)}
    t = translator_for(env)
    assert t is not TRANSLATOR and t.claim is not None
    assert t.notes() is not None and t.notes() is t.notes()


def test_a_summary_is_claimed_once_per_session(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path)}
    assert claim_summary(env, A, "S1")
    assert not claim_summary(env, A, "S1")
    assert claim_summary(env, A, "S2") and claim_summary(env, B, "S1")
    # No state directory to claim in (a file is in the way): the summary goes through.
    (tmp_path / "blocked").mkdir()
    (tmp_path / "blocked" / "signet-sdk").write_text("")
    blocked = {"XDG_STATE_HOME": str(tmp_path / "blocked")}
    assert claim_summary(blocked, A, "S1") and claim_summary(blocked, A, "S1")


# -- paths ---------------------------------------------------------------------


def test_where_qwen_code_keeps_its_files(tmp_path: Path) -> None:
    home = {"HOME": "/home/dev"}
    assert qwen_dir(home) == "/home/dev/.qwen"
    assert qwen_dir({**home, "QWEN_HOME": "/srv/qwen"}) == "/srv/qwen"
    assert runtime_dir({**home, "QWEN_RUNTIME_DIR": "/var/qwen"}) == "/var/qwen"
    extra = os.pathsep.join(["/data/records", "relative/ignored", ""])
    assert transcript_roots({**home, "SIGNET_TRANSCRIPT_ROOTS": extra}) == [
        "/home/dev/.qwen/projects",
        "/data/records",
    ]
