"""The durable outbox and transcript staging (signet_sdk.hooks.outbox), as the hook uses them."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.hooks.outbox import Entry, Outbox
from signet_sdk.hooks.runner import outbox_sender
from signet_sdk.runtime import transcripts as _outbox
from signet_sdk.runtime.transcripts import (
    STAGED_MAX_BYTES,
    TranscriptRefused,
    TranscriptSnapshot,
    fit_inline_transcript,
    snapshot_transcript,
    stage_file,
)
from signet_sdk.testing import Reply, ScriptedDaemon
from signet_sdk.wire.config import resolve_config

BODY = {"sessionKey": "s-1", "sessionId": "s-1", "cwd": "/w", "reason": "other"}


def sender(url: str) -> Any:
    send = outbox_sender(resolve_config(url, env={}))
    return lambda entry, body: send(entry, body)


def put(outbox: Outbox, data: bytes | None = b'{"type":"user"}\n', **body: Any) -> Entry:
    snap = TranscriptSnapshot(data, len(data), False) if data is not None else None
    return outbox.put(
        "session_end",
        dict(BODY, **body),
        harness="claude-code",
        runtime_path="legacy",
        transcript=snap,
    )


# -- durability and exactly-once replay ------------------------------------------


def test_entry_killed_after_hand_off_is_replayed_exactly_once(
    tmp_path: Path, scripted_daemon: ScriptedDaemon
) -> None:
    root = tmp_path / "outbox"
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from signet_sdk.hooks.outbox import Outbox\n"
        "from signet_sdk.runtime.transcripts import TranscriptSnapshot\n"
        f"ob = Outbox(Path({str(root)!r}))\n"
        "ob.put('session_end', {'sessionKey': 'k', 'reason': 'other'}, harness='claude-code',\n"
        "       runtime_path='legacy', transcript=TranscriptSnapshot(b'line\\n', 5, False))\n"
        "os.kill(os.getpid(), 9)\n"  # killed before any send, as Claude Code may do
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert proc.returncode == -9
    outbox = Outbox(root)
    assert len(outbox.pending()) == 1

    scripted_daemon.default = Reply(200, {"memoriesSaved": 0, "queued": True}, delay=0.3)
    send = sender(scripted_daemon.url)
    results: list[dict[str, int]] = []

    def flush() -> None:
        results.append(Outbox(root).flush(send, deadline=_later(5)))

    threads = [threading.Thread(target=flush) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(scripted_daemon.requests) == 1  # three replayers, one delivery
    request = scripted_daemon.requests[0]
    assert request.json["sessionKey"] == "k"
    assert request.json["harness"] == "claude-code"
    assert request.headers["x-signet-runtime-path"] == "legacy"
    assert request.staged == b"line\n"
    assert outbox.pending() == []
    assert sum(r.get("sent", 0) for r in results) == 1
    Outbox(root).flush(send, deadline=_later(1))
    assert len(scripted_daemon.requests) == 1


def _later(seconds: float) -> float:
    import time

    return time.monotonic() + seconds


def test_concurrent_flushers_deliver_each_entry_once(
    tmp_path: Path, scripted_daemon: ScriptedDaemon
) -> None:
    outbox = Outbox(tmp_path / "outbox")
    for i in range(6):
        put(outbox, sessionKey=f"s-{i}")
    scripted_daemon.default = Reply(200, {"memoriesSaved": 0}, delay=0.05)
    send = sender(scripted_daemon.url)
    threads = [
        threading.Thread(target=lambda: Outbox(outbox.root).flush(send, deadline=_later(5)))
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys = sorted(r.json["sessionKey"] for r in scripted_daemon.requests)
    assert keys == [f"s-{i}" for i in range(6)]
    assert outbox.pending() == []


def test_files_are_private_and_written_atomically(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox")
    entry = put(outbox)
    assert stat.S_IMODE(Path(outbox.root).stat().st_mode) == 0o700
    for suffix in (".json", ".transcript"):
        path = Path(outbox.root) / f"{entry.id}{suffix}"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not [p for p in Path(outbox.root).iterdir() if p.name.startswith(".tmp-")]
    record = json.loads((Path(outbox.root) / f"{entry.id}.json").read_text())
    assert record["body"] == BODY
    assert record["transcript"]["bytes"] == len(b'{"type":"user"}\n')


def test_unreachable_daemon_is_not_an_attempt(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox", max_attempts=1)
    entry = put(outbox)
    send = sender("http://127.0.0.1:9")
    assert outbox.deliver(entry.id, send) == "kept"
    assert outbox.attempts(entry.id) == 0
    assert outbox.pending() == [entry.id]


def test_repeated_failures_end_in_dead_letters(
    tmp_path: Path, scripted_daemon: ScriptedDaemon
) -> None:
    lines: list[str] = []
    outbox = Outbox(tmp_path / "outbox", max_attempts=2, log=lines.append)
    entry = put(outbox)
    scripted_daemon.default = Reply(500, {"error": "Hook execution failed"})
    send = sender(scripted_daemon.url)
    assert outbox.flush(send, deadline=_later(5)) == {"failed": 1}  # once per run
    assert outbox.attempts(entry.id) == 1
    assert outbox.flush(send, deadline=_later(5)) == {"dead": 1}
    assert outbox.pending() == []
    dead = Path(outbox.root) / "dead"
    assert (dead / f"{entry.id}.json").exists()
    assert (dead / f"{entry.id}.transcript").exists()
    assert "gave up after 2 attempts" in (dead / f"{entry.id}.reason").read_text()
    assert any("moved to" in line for line in lines)


@pytest.mark.parametrize("status", [400, 409, 413, 422])
def test_unacceptable_requests_are_dead_at_once(
    tmp_path: Path, scripted_daemon: ScriptedDaemon, status: int
) -> None:
    outbox = Outbox(tmp_path / "outbox")
    entry = put(outbox)
    scripted_daemon.default = Reply(status, {"error": "no"})
    assert outbox.deliver(entry.id, sender(scripted_daemon.url)) == "dead"
    assert (Path(outbox.root) / "dead" / f"{entry.id}.reason").exists()


def test_corrupt_entry_is_kept_as_a_dead_letter(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox")
    Path(outbox.root).mkdir(parents=True)
    (Path(outbox.root) / "00000000000000000001-1-aaaaaa.json").write_text("{half")
    assert outbox.deliver("00000000000000000001-1-aaaaaa", sender("http://127.0.0.1:9")) == "dead"
    dead = Path(outbox.root) / "dead" / "00000000000000000001-1-aaaaaa.json"
    assert dead.read_text() == "{half"


# -- transcripts ---------------------------------------------------------------


@pytest.fixture
def roots(tmp_path: Path) -> list[str]:
    root = tmp_path / "projects"
    root.mkdir()
    return [str(root)]


def test_snapshot_reads_a_transcript_under_the_roots(roots: list[str]) -> None:
    path = Path(roots[0]) / "s.jsonl"
    path.write_bytes(b'{"a":1}\n')
    snap = snapshot_transcript(str(path), roots)
    assert (snap.data, snap.source_bytes, snap.truncated) == (b'{"a":1}\n', 8, False)


def test_snapshot_refuses_symlinks(roots: list[str], tmp_path: Path) -> None:
    target = Path(roots[0]) / "real.jsonl"
    target.write_text("x\n")
    link = Path(roots[0]) / "link.jsonl"
    link.symlink_to(target)
    with pytest.raises(TranscriptRefused, match="symlink"):
        snapshot_transcript(str(link), roots)
    outside = tmp_path / "secret"
    outside.write_text("private\n")
    escape = Path(roots[0]) / "escape.jsonl"
    escape.symlink_to(outside)
    with pytest.raises(TranscriptRefused, match="outside"):
        snapshot_transcript(str(escape), roots)


@pytest.mark.parametrize("where", ["outside", "relative", "directory", "missing"])
def test_snapshot_refuses_other_paths(roots: list[str], tmp_path: Path, where: str) -> None:
    path = {
        "outside": tmp_path / "elsewhere.jsonl",
        "relative": Path("projects/s.jsonl"),
        "directory": Path(roots[0]) / "dir.jsonl",
        "missing": Path(roots[0]) / "missing.jsonl",
    }[where]
    if where == "outside":
        path.write_text("x\n")
    if where == "directory":
        path.mkdir()
    with pytest.raises(TranscriptRefused):
        snapshot_transcript(str(path), roots)


def test_large_transcript_keeps_its_newest_whole_lines(roots: list[str]) -> None:
    path = Path(roots[0]) / "big.jsonl"
    lines = [json.dumps({"n": i, "pad": "x" * 90}) + "\n" for i in range(20000)]
    path.write_text("".join(lines))
    snap = snapshot_transcript(str(path), roots, tail_bytes=500_000)
    assert snap.truncated and snap.source_bytes == path.stat().st_size
    assert len(snap.data) <= 500_000
    text = snap.data.decode()
    assert text.endswith(lines[-1])
    assert json.loads(text.splitlines()[0])["n"] > 0  # starts on a whole line


def test_stage_file_is_private_and_capped(tmp_path: Path) -> None:
    root = tmp_path / "signet"
    path = Path(stage_file(b"abc\n", "entry-1", root))
    assert path.parent == root and path.read_bytes() == b"abc\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    with pytest.raises(ValueError):
        stage_file(b"x" * (STAGED_MAX_BYTES + 1), "too-big", root)


def test_stage_root_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "signet"
    link.symlink_to(real)
    with pytest.raises(OSError, match="not a directory"):
        stage_file(b"abc\n", "e", link)


def test_default_staging_root_is_tmp_signet() -> None:
    path = Path(stage_file(b"x\n", "probe"))
    try:
        assert os.path.realpath(path).startswith("/tmp/signet/")
        assert stat.S_IMODE(Path("/tmp/signet").stat().st_mode) == 0o700
    finally:
        path.unlink()


def test_transcript_over_the_file_cap_is_sent_inline(
    tmp_path: Path, scripted_daemon: ScriptedDaemon
) -> None:
    outbox = Outbox(tmp_path / "outbox", staging_root=tmp_path / "signet")
    data = b"".join(b'{"n":%d}\n' % i for i in range(60000))
    assert len(data) > STAGED_MAX_BYTES
    entry = put(outbox, data)
    assert outbox.deliver(entry.id, sender(scripted_daemon.url)) == "sent"
    (request,) = scripted_daemon.requests
    assert "transcriptPath" not in request.json
    assert request.json["transcript"] == data.decode()


def test_transcript_falls_back_to_inline_when_staging_is_unusable(
    tmp_path: Path, scripted_daemon: ScriptedDaemon
) -> None:
    blocker = tmp_path / "signet"
    blocker.write_text("a file where the staging directory should be")
    lines: list[str] = []
    outbox = Outbox(tmp_path / "outbox", staging_root=blocker, log=lines.append)
    entry = put(outbox, b'{"a":1}\n')
    assert outbox.deliver(entry.id, sender(scripted_daemon.url)) == "sent"
    assert scripted_daemon.requests[0].json["transcript"] == '{"a":1}\n'
    assert any("cannot stage" in line for line in lines)


def test_inline_transcript_keeps_the_request_under_the_body_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_outbox, "REQUEST_MAX_BYTES", 200_000)
    monkeypatch.setattr(_outbox, "_REQUEST_MARGIN", 1_000)
    lines = [json.dumps({"n": i, "text": 'quote " and \\ slash'}) + "\n" for i in range(10000)]
    data = "".join(lines).encode()
    text, dropped = fit_inline_transcript(BODY, data)
    body = dict(BODY, transcript=text)
    assert len(json.dumps(body, ensure_ascii=False).encode()) <= 200_000
    assert dropped > 0 and text.endswith(lines[-1])
    assert text.startswith('{"n": ')  # cut on a line boundary


def test_a_nul_in_the_transcript_path_keeps_the_write(tmp_path: Path) -> None:
    from signet_sdk.runtime.transcripts import take_transcript

    lines: list[str] = []
    body, snapshot = take_transcript(
        {"sessionKey": "s", "transcriptPath": f"{tmp_path}/a\x00b.jsonl"},
        [str(tmp_path)],
        lines.append,
    )
    assert body == {"sessionKey": "s"} and snapshot is None
    assert any("NUL" in line for line in lines)


@pytest.mark.parametrize("status", [429, 503])
def test_backpressure_never_turns_an_entry_into_a_dead_letter(
    tmp_path: Path, scripted_daemon: ScriptedDaemon, status: int
) -> None:
    outbox = Outbox(tmp_path / "outbox", max_attempts=1)
    entry = put(outbox)
    scripted_daemon.default = Reply(status, {"error": "busy"})
    for _ in range(3):
        assert outbox.deliver(entry.id, sender(scripted_daemon.url)) == "kept"
    assert outbox.pending() == [entry.id] and outbox.attempts(entry.id) == 0
    assert not (Path(outbox.root) / "dead").exists()
    scripted_daemon.default = Reply(200, {"memoriesSaved": 1})
    assert outbox.deliver(entry.id, sender(scripted_daemon.url)) == "sent"


def test_one_sender_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from signet_sdk.hooks import sender as runner

    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "SIGNET_DAEMON_URL": "http://127.0.0.1:9"}
    held = runner._flusher_lock(env)
    assert held is not None and held >= 0
    try:
        assert runner.flush(0.1, env) == {"busy": 1}
        assert runner.spawn_flusher(env) == 0  # no process started while one works
    finally:
        os.close(held)
    assert runner.flush(0.1, env) == {}


def test_sweep_removes_only_old_leftovers(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox")
    entry = put(outbox)
    root = Path(outbox.root)
    old = [root / ".tmp-x.json-1-aa", root / "123-1-bb.transcript", root / "123-1-bb.attempts"]
    fresh = root / ".tmp-y.json-2-cc"
    for path in [*old, fresh]:
        path.write_text("x")
    for path in old:
        os.utime(path, (1_000_000, 1_000_000))
    assert outbox.sweep(max_age=3600) == 3
    assert not any(p.exists() for p in old) and fresh.exists()
    assert outbox.pending() == [entry.id] and (root / f"{entry.id}.transcript").exists()


def test_dead_letter_reasons_are_private(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox", max_attempts=1)
    entry = put(outbox)
    assert outbox.deliver(entry.id, lambda e, b: (_ for _ in ()).throw(RuntimeError("x"))) == "dead"
    reason = Path(outbox.root) / "dead" / f"{entry.id}.reason"
    assert stat.S_IMODE(reason.stat().st_mode) == 0o600


def test_a_write_queued_while_the_sender_works_is_sent_by_it(
    tmp_path: Path, scripted_daemon: ScriptedDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook that sees a busy sender starts none: the busy one must take its write."""
    from signet_sdk.hooks import sender as runner

    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "SIGNET_DAEMON_URL": scripted_daemon.url}
    outbox = Outbox(tmp_path / "state" / "signet-sdk" / "outbox")
    first = put(outbox, sessionKey="first")
    real = runner.outbox_sender
    late: list[Entry] = []

    def sender_with_a_hook_meanwhile(config: Any) -> Any:
        send = real(config)

        def wrapped(entry: Entry, body: dict[str, Any], timeout: float | None = None) -> Any:
            if not late:  # a hook queues its write while this sender holds the lock
                late.append(put(outbox, sessionKey="late"))
                assert runner.spawn_flusher(env) == 0
            return send(entry, body, timeout)

        return wrapped

    monkeypatch.setattr(runner, "outbox_sender", sender_with_a_hook_meanwhile)
    runner.flush(5.0, env)
    assert outbox.pending() == []
    keys = [r.json["sessionKey"] for r in scripted_daemon.requests]
    assert sorted(keys) == ["first", "late"] and first.id != late[0].id
