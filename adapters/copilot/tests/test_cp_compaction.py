"""Finding a compaction's summary in ``events.jsonl`` (``_events``, ``_session``, ``_state``).

Copilot CLI runs no hook after a compaction; its summary is a
``session.compaction_complete`` line, and Copilot writes the file about
100 ms after the events happen. Each summary must reach the daemon exactly
once: found by a later hook of the main agent, claimed by the first to find
it, never found again once the session's cursor has passed it, and never
missed by the hooks that wait for the file (the end of a turn, the end of
the session). The layouts below are the ones Copilot CLI 1.0.102 writes.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cp_events import (
    AGENT,
    SESSION,
    SUMMARY,
    T0,
    assistant,
    compaction,
    conversation_bytes,
    events_file,
    hook_end,
    hook_start,
    other,
    payload,
    user,
)
from signet_adapter_copilot._events import (
    compactions,
    conversation,
    lines_backward,
    lines_forward,
    open_events,
    own_line_written,
    whole_lines_end,
)
from signet_adapter_copilot._session import look_at_session


def _lines(records: list[dict[str, Any]]) -> list[bytes]:
    return [json.dumps(r).encode() for r in records]


START = payload(T0, source="new", initialPrompt="How do we deploy atlas?")
PROMPT = payload(T0 + 100, prompt="How do we deploy atlas?")
STOP = payload(T0 + 900, stopReason="end_turn")
PRE = payload(T0 + 5000, trigger="manual", customInstructions="")
NEXT = payload(T0 + 9000, prompt="and the staging database?")
END = payload(T0 + 20000, reason="user_exit")

#: A prompt, its turn, then /compact: what the file holds before the session's next hook.
TURN_THEN_COMPACT = [
    other("session.start"),
    hook_start("sessionStart", START),
    hook_start("userPromptSubmitted", PROMPT),
    hook_end("sessionStart"),
    hook_end("userPromptSubmitted"),
    user("How do we deploy atlas?"),
    other("system.message"),
    assistant("Run make ship."),
    other("assistant.turn_end"),
    hook_start("agentStop", STOP),
    hook_end("agentStop"),
    other("session.compaction_start"),
    hook_start("preCompact", PRE),
    hook_end("preCompact"),
    other("model.messages_snapshot"),
    compaction(),
]
CONVERSATION = conversation_bytes(
    ("user", "How do we deploy atlas?"), ("assistant", "Run make ship.")
)


def _look(event: str, given: dict[str, Any], **options: Any) -> tuple[list[str], str | None]:
    options.setdefault("with_conversation", False)
    found, path = look_at_session(dict(os.environ), SESSION, event, given, **options)
    return [summary for _, summary in found], path


def _append(path: Path, *records: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in records))


# -- reading the file -----------------------------------------------------------


def test_compactions_are_the_main_agents_successful_ones_in_order() -> None:
    first, second = compaction("ONE"), compaction("TWO")
    records = [
        first,
        compaction(success=False),
        compaction("   "),
        compaction("SUBAGENT", agent=AGENT),
        other("session.info"),
        second,
    ]
    assert compactions(_lines(records)) == [(first["id"], "ONE"), (second["id"], "TWO")]
    assert compactions([b'{"type":"session.compaction_complete","data":{"summ']) == []


def test_a_hooks_own_line_is_known_by_its_type_and_timestamp() -> None:
    records = [*TURN_THEN_COMPACT, hook_start("sessionEnd", END)]
    backwards = list(reversed(_lines(records)))
    assert own_line_written(backwards, "sessionEnd", END)
    assert own_line_written(backwards, "agentStop", STOP)
    assert not own_line_written(backwards, "userPromptSubmitted", NEXT)
    assert not own_line_written(backwards, "sessionEnd", {**END, "timestamp": T0 + 1})
    assert not own_line_written(backwards, "agentStop", {**STOP, "sessionId": AGENT})
    # A subagent's hook with the same input is not this one.
    sub = [hook_start("agentStop", STOP, agent=AGENT)]
    assert not own_line_written(_lines(sub), "agentStop", STOP)
    # Without a timestamp, the whole input must be the payload.
    bare = {"sessionId": SESSION, "reason": "user_exit"}
    assert own_line_written(_lines([hook_start("sessionEnd", bare)]), "sessionEnd", bare)
    assert not own_line_written(_lines([hook_start("sessionEnd", END)]), "sessionEnd", bare)


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 18])
def test_lines_are_read_whole_in_both_directions(tmp_path: Path, chunk: int) -> None:
    lines = [b"first", b'{"a": "\xc3\xa9"}', b"", b"x" * 100, b"unfinished"]
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"\n".join(lines))
    fd = os.open(path, os.O_RDONLY)
    try:
        size = path.stat().st_size
        assert list(lines_forward(fd, size, chunk)) == [b"first", b'{"a": "\xc3\xa9"}', b"x" * 100]
        assert list(lines_forward(fd, size, chunk, start=6)) == [b'{"a": "\xc3\xa9"}', b"x" * 100]
        assert list(lines_backward(fd, size, chunk)) == [
            b"unfinished",
            b"x" * 100,
            b'{"a": "\xc3\xa9"}',
            b"first",
        ]
        assert list(lines_backward(fd, size, chunk, floor=size - 20)) == [
            b"unfinished",
            b"x" * 9,
        ]
        assert whole_lines_end(fd, size) == size - len(b"unfinished")
        assert whole_lines_end(fd, size, start=size - 3) == size - 3
    finally:
        os.close(fd)


def test_the_conversation_is_what_the_user_typed_and_the_main_agent_wrote() -> None:
    records = [
        other("session.start"),
        user("How do we deploy atlas?"),
        other("system.message"),
        assistant(""),  # a turn of tool calls only
        assistant("Run make ship."),
        user("a skill's instructions", source="skill-pdf"),
        user("keep going", isAutopilotContinuation=True),
        user("list the scripts", agent=AGENT),
        assistant("deploy.sh", agent=AGENT),
        user("Thanks \u2713"),
    ]
    assert conversation(_lines(records)) == conversation_bytes(
        ("user", "How do we deploy atlas?"),
        ("assistant", "Run make ship."),
        ("user", "Thanks \u2713"),
    )
    assert conversation(_lines([other("session.start")])) == b""


def test_the_file_is_read_only_inside_the_roots_and_never_through_a_link(
    tmp_path: Path, isolated: Path
) -> None:
    path = events_file(isolated, [compaction()])
    roots = [str(isolated / "session-state")]
    opened = open_events(str(path), roots)
    assert opened is not None
    os.close(opened[0])
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text("{}\n")
    assert open_events(str(outside), roots) is None
    link = path.parent / "link.jsonl"
    link.symlink_to(path)
    assert open_events(str(link), roots) is None
    assert open_events("relative/events.jsonl", roots) is None
    assert open_events(str(path.parent / "missing.jsonl"), roots) is None
    assert open_events(str(path.parent), roots) is None


# -- one look per hook ------------------------------------------------------------


def test_the_first_hook_to_look_reports_a_summary_and_no_later_one_does(isolated: Path) -> None:
    path = events_file(isolated, [*TURN_THEN_COMPACT, hook_start("userPromptSubmitted", NEXT)])

    assert _look("userPromptSubmitted", NEXT) == ([SUMMARY], None)

    _append(path, user("and the staging database?"), hook_start("agentStop", STOP))
    assert _look("agentStop", STOP) == ([], None)
    _append(path, hook_start("sessionEnd", END))
    assert _look("sessionEnd", END) == ([], None)
    # A later /compact is the next hook's to report.
    _append(path, compaction("SECOND"), hook_start("sessionEnd", END))
    assert _look("sessionEnd", END) == (["SECOND"], None)


def test_a_summary_found_twice_is_reported_once(isolated: Path) -> None:
    """sessionStart and userPromptSubmitted look at once, or a hook installed twice runs
    twice: the claim, not the cursor, keeps the second from reporting it."""
    events_file(isolated, [*TURN_THEN_COMPACT, hook_start("sessionEnd", END)])
    state = Path(os.environ["XDG_STATE_HOME"]) / "signet-sdk" / "copilot-compactions"

    assert _look("sessionEnd", END) == ([SUMMARY], None)
    (state / f"{SESSION}.cursor").unlink()  # as if the second looked before the first moved it
    assert _look("sessionEnd", END) == ([], None)


def test_a_line_still_being_written_is_read_once_it_is_whole(isolated: Path) -> None:
    path = events_file(isolated, [hook_start("agentStop", STOP)])
    whole = json.dumps(compaction("LATE")) + "\n"
    with path.open("a", encoding="utf-8") as fh:
        fh.write(whole[:40])

    assert _look("userPromptSubmitted", NEXT) == ([], None)

    with path.open("a", encoding="utf-8") as fh:
        fh.write(whole[40:])
    assert _look("userPromptSubmitted", NEXT) == (["LATE"], None)


def test_a_hook_that_settles_waits_for_copilot_to_write_the_file(isolated: Path) -> None:
    """Copilot writes the turn, the /compact and the hook's own line about 100 ms late:
    the end of the session waits for them, then finds the summary and the whole turn."""
    head = TURN_THEN_COMPACT[:5]
    path = events_file(isolated, head)

    def copilot_writes_late() -> None:
        time.sleep(0.3)
        _append(path, *TURN_THEN_COMPACT[5:], hook_start("sessionEnd", END))

    writer = threading.Thread(target=copilot_writes_late)
    writer.start()
    try:
        found, conversation_path = _look("sessionEnd", END, with_conversation=True, settle=5.0)
    finally:
        writer.join()

    assert found == [SUMMARY]
    assert conversation_path is not None
    assert Path(conversation_path).read_bytes() == CONVERSATION
    assert oct(Path(conversation_path).stat().st_mode & 0o777) == "0o600"


def test_a_hook_that_settles_gives_up_at_its_limit_and_takes_what_is_there(
    isolated: Path,
) -> None:
    events_file(isolated, TURN_THEN_COMPACT)  # its own line never comes
    begun = time.monotonic()
    found, _ = _look("sessionEnd", END, settle=0.3)
    assert found == [SUMMARY]
    assert time.monotonic() - begun >= 0.3


def test_a_hook_without_its_file_finds_nothing_and_waits_for_no_session(isolated: Path) -> None:
    """Copilot makes a session's folder before its first hook: without one, nothing to wait for."""
    begun = time.monotonic()
    assert _look("sessionEnd", END, with_conversation=True, settle=30.0) == ([], None)
    assert time.monotonic() - begun < 10
    env = dict(os.environ)
    options: dict[str, Any] = {"with_conversation": True}
    assert look_at_session(env, "../escape", "sessionEnd", END, **options) == ([], None)


def test_a_file_without_a_conversation_is_told_from_no_file(isolated: Path) -> None:
    """Read, but no message typed by the user or written by the agent: "", not None (no file)."""
    events_file(isolated, [other("system.message"), user("skill", source="skill")])
    assert _look("sessionEnd", END, with_conversation=True) == ([], "")
    assert _look("sessionEnd", END) == ([], None)  # not asked for


def test_a_cursor_past_the_end_means_another_file_and_starts_over(isolated: Path) -> None:
    state = Path(os.environ["XDG_STATE_HOME"]) / "signet-sdk" / "copilot-compactions"
    state.mkdir(parents=True)
    (state / f"{SESSION}.cursor").write_text("99999999")
    events_file(isolated, [compaction("FRESH"), hook_start("sessionEnd", END)])
    assert _look("sessionEnd", END) == (["FRESH"], None)
    assert (
        int((state / f"{SESSION}.cursor").read_text())
        == (isolated / "session-state" / SESSION / "events.jsonl").stat().st_size
    )
