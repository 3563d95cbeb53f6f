"""The hooks' file work on real folders: Kimi's session files and the SDK's state.

Kimi Code 2.1.0's session layout and log records are laid out by
``km_wire`` as the real ``kimi`` writes them; the state folder is the
test's private one. Covered: the conversation derived from ``wire.jsonl``,
each compaction reported once (and the start context held again after
it), the start context held and taken once, which processes count as
gone, and the late ends they make.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from km_wire import (
    PROJECT,
    SESSION,
    answer,
    append,
    bucket,
    compaction,
    make_session,
    preamble,
    turn_records,
)
from signet_adapter_kimi import _session
from signet_adapter_kimi._paths import session_dir
from signet_adapter_kimi._process import alive, kimi_process
from signet_adapter_kimi._session import HookFiles, finished
from signet_adapter_kimi._state import OpenProcess, open_process, open_processes

from signet_sdk.testing import sdk_state_dir

OTHER = "session_9d4b1c2e-5f60-4a7b-8c9d-0e1f2a3b4c5d"


def _lines(path: str | None) -> list[dict[str, str]]:
    assert path is not None
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def _start_time(pid: int) -> int:
    raw = Path(f"/proc/{pid}/stat").read_bytes()
    return int(raw.rpartition(b")")[2].split()[19])


def test_the_conversation_is_the_users_words_and_the_answers(isolated: Path) -> None:
    records = [
        *preamble(1),
        *turn_records("How do atlas deploys work?", "Through make ship.", 0, 10),
        answer("", 20, tool=True),  # a tool call with no text: not conversation
        *turn_records("And staging?", "pg-staging-2.", 1, 30),
    ]
    make_session(isolated, records)

    summaries, path = HookFiles(dict(os.environ)).look(SESSION, PROJECT, conversation=True)

    assert summaries == []
    assert path == str(sdk_state_dir() / "kimi" / "transcripts" / f"{SESSION}.jsonl")
    assert _lines(path) == [
        {"role": "user", "content": "How do atlas deploys work?"},
        {"role": "assistant", "content": "Through make ship."},
        {"role": "user", "content": "And staging?"},
        {"role": "assistant", "content": "pg-staging-2."},
    ]
    assert oct(os.stat(path).st_mode & 0o777) == oct(0o600)


def test_the_conversation_file_only_grows_and_skips_a_line_being_written(isolated: Path) -> None:
    wire = make_session(isolated, turn_records("first", "one", 0, 10))
    _, path = HookFiles(dict(os.environ)).look(SESSION, PROJECT, conversation=True)
    before = Path(str(path)).read_bytes()
    append(wire, *turn_records("second", "two", 1, 20))
    with wire.open("a") as fh:
        fh.write('{"type": "turn.prompt", "origin": {"kind": "user"}, "input": [{"type": "te')

    _, again = HookFiles(dict(os.environ)).look(SESSION, PROJECT, conversation=True)

    after = Path(str(again)).read_bytes()
    assert again == path and after.startswith(before) and after != before
    assert [m["content"] for m in _lines(again)] == ["first", "one", "second", "two"]


def test_each_compaction_is_reported_once_by_whichever_hook_finds_it(isolated: Path) -> None:
    wire = make_session(isolated, [*turn_records("q", "a", 0, 10), compaction("S1", 100)])
    env = dict(os.environ)

    first, _ = HookFiles(env).look(SESSION, PROJECT, conversation=False)
    second, _ = HookFiles(env).look(SESSION, PROJECT, conversation=True)
    append(wire, compaction("S2", 200))
    third, _ = HookFiles(env).look(SESSION, PROJECT, conversation=False)

    assert (first, second, third) == (["S1"], [], ["S2"])


def _look_while_written(
    wire: Path, late: list[dict[str, Any]], **flags: bool
) -> tuple[list[str], str | None]:
    """``HookFiles.look`` with ``flags`` while Kimi appends ``late`` to ``wire`` 0.3 s in:
    Kimi writes its log a moment after the events a hook reports."""
    writer = threading.Timer(0.3, lambda: append(wire, *late))
    writer.start()
    try:
        return HookFiles(dict(os.environ)).look(SESSION, PROJECT, **flags)
    finally:
        writer.join()


def test_post_compact_waits_for_the_compaction_record(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_session, "SETTLE_SECONDS", 20.0)
    wire = make_session(isolated, turn_records("q", "a", 0, 10))
    late = [compaction("LATE-SUMMARY", 100)]
    found, _ = _look_while_written(wire, late, conversation=False, settle=True)
    assert found == ["LATE-SUMMARY"]


def test_stop_waits_for_the_log_to_end_with_the_answer(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kimi writes its log a moment after the events: the turn Stop ends may not be there."""
    monkeypatch.setattr(_session, "SETTLE_SECONDS", 20.0)
    wire = make_session(isolated, preamble(1))
    late = turn_records("first", "one", 0, 10)
    _, path = _look_while_written(wire, late, conversation=True, turn_end=True)
    assert [m["content"] for m in _lines(path)] == ["first", "one"]


def test_the_start_context_is_held_once_and_again_after_a_compaction(isolated: Path) -> None:
    wire = make_session(isolated, turn_records("q", "a", 0, 10))
    files = HookFiles(dict(os.environ))
    files.keep_context(SESSION, "START")

    assert (files.take_context(SESSION), files.take_context(SESSION)) == ("START", None)
    append(wire, compaction("S1", 100))
    files.look(SESSION, PROJECT, conversation=False)
    assert (files.take_context(SESSION), files.take_context(SESSION)) == ("START", None)


def test_a_session_kimi_does_not_keep_leaves_no_trace(isolated: Path) -> None:
    """A story's or a vector's session: nothing is swept, recorded or held."""
    files = HookFiles(dict(os.environ))
    assert files.begin("demo-kimi-1", "/srv/demo") == []
    files.keep_context("demo-kimi-1", "START")
    assert files.take_context("demo-kimi-1") is None
    assert not (sdk_state_dir() / "kimi").exists()


def test_session_dir_finds_the_session_in_any_bucket(isolated: Path) -> None:
    make_session(isolated, [], cwd="/srv/elsewhere")
    env = dict(os.environ)
    found = session_dir(env, SESSION, PROJECT)  # the payload's cwd is not the session's
    assert found == str(isolated / "sessions" / bucket("/srv/elsewhere") / SESSION)
    assert session_dir(env, "../" + SESSION, PROJECT) is None
    assert session_dir(env, OTHER, PROJECT) is None


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _record(env: dict[str, str], session: str, pid: int | None, started: int | None) -> None:
    folder = session_dir(env, session, PROJECT)
    assert folder is not None
    open_process(env, OpenProcess(session, PROJECT, folder, pid, started, time.time()))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_only_sessions_whose_process_has_gone_are_ended(isolated: Path) -> None:
    env = dict(os.environ)
    gone = make_session(isolated, [*turn_records("q", "a", 0, 10), compaction("S1", 50)])
    make_session(isolated, turn_records("q2", "a2", 0, 10), session=OTHER)
    me = os.getpid()
    _record(env, SESSION, _dead_pid(), None)
    _record(env, OTHER, me, _start_time(me))  # still running
    _record(env, SESSION, me, _start_time(me) + 1)  # the id now names another process

    endings = finished(env, None)

    (ending,) = endings  # two gone processes of one session make one end
    assert (ending.session, ending.cwd, ending.summaries) == (SESSION, PROJECT, ["S1"])
    assert [m["content"] for m in _lines(ending.transcript)] == ["q", "a"]
    assert [(r.session, r.pid) for r in open_processes(env)] == [(OTHER, me)]
    assert finished(env, None) == []  # taken: nobody ends it twice
    assert gone.exists()


def test_a_process_that_cannot_be_checked_has_ended_once_its_log_is_idle(isolated: Path) -> None:
    env = dict(os.environ)
    wire = make_session(isolated, turn_records("q", "a", 0, 10))
    _record(env, SESSION, None, None)

    assert finished(env, None) == []  # its log changed just now
    old = time.time() - _session.IDLE_SECONDS - 60
    os.utime(wire, (old, old))
    (ending,) = finished(env, None)
    assert ending.session == SESSION


def test_begin_records_this_process_after_ending_the_others(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = dict(os.environ)
    make_session(isolated, turn_records("q", "a", 0, 10))
    make_session(isolated, turn_records("q2", "a2", 0, 10), session=OTHER)
    _record(env, OTHER, _dead_pid(), None)
    monkeypatch.setattr(_session, "kimi_process", lambda: (4242, 77))

    endings = HookFiles(env).begin(SESSION, PROJECT)

    assert [e.session for e in endings] == [OTHER]
    (record,) = open_processes(env)
    assert (record.session, record.cwd, record.pid, record.started) == (SESSION, PROJECT, 4242, 77)
    assert record.folder == str(isolated / "sessions" / bucket(PROJECT) / SESSION)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_kimi_process_is_found_above_the_shell_kimi_runs_hooks_through() -> None:
    code = "from signet_adapter_kimi._process import kimi_process; print(kimi_process())"
    quoted = code.replace('"', '\\"')
    # ``; true`` keeps the shell from replacing itself with the command, as Kimi's sh -c does.
    out = subprocess.run(
        ["/bin/sh", "-c", f'"{sys.executable}" -c "{quoted}"; true'],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == str((os.getpid(), _start_time(os.getpid())))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_alive_tells_a_running_process_from_a_gone_or_reused_one() -> None:
    me = os.getpid()
    assert alive(me, _start_time(me)) is True
    assert alive(me, None) is True
    assert alive(me, _start_time(me) + 1) is False
    assert alive(_dead_pid(), None) is False
    assert kimi_process() is not None
