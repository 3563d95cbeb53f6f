"""A hook setting of ``nan``: read as its default, like any other value that is no number.

``float("nan")`` parses, and then passes every ``min``/``max`` clamp
unchanged, because each comparison with it is false. So ``nan`` went through
where ``ten`` fell back: a ``SIGNET_*_TIMEOUT`` of it failed every send
("Invalid value NaN") and counted each as an attempt, eight of which move a
write to the dead letters; a detached sender told to retry for ``nan``
seconds never stopped; a breaker cooldown of ``nan`` skipped the daemon for
"nans"; a settle time of ``nan`` never let an in-doubt write wait.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from signet_sdk.hooks import sender
from signet_sdk.hooks.breaker import breaker_for
from signet_sdk.hooks.entry import SETTLE_SECONDS, settle_seconds
from signet_sdk.hooks.runner import main
from signet_sdk.testing.mock_daemon import MockDaemon

from ..fault_support import hook_env, run_hook, session_end_keys


@pytest.mark.parametrize("name", ["SIGNET_FETCH_TIMEOUT", "SIGNET_SESSION_START_TIMEOUT"])
def test_a_nan_timeout_falls_back_and_the_write_is_sent(tmp_path: Path, name: str) -> None:
    end = {"hook_event_name": "SessionEnd", "session_id": "s-nan", "reason": "other"}
    with MockDaemon() as daemon, daemon.serve() as handle:
        env = hook_env(tmp_path, SIGNET_DAEMON_URL=handle.url, **{name: "nan"})
        done = run_hook(env, event="SessionEnd", payload=json.dumps(end).encode())
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        assert session_end_keys(daemon) == ["s-nan"]
    log = (tmp_path / "state" / "signet-sdk" / "hooks.log").read_text()
    assert (
        f"configuration error: {name}: must be milliseconds, got 'nan'; its default is used" in log
    )
    assert "Invalid value NaN" not in log


def test_a_nan_flush_time_starts_the_sender_with_its_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(sender, "_flusher_busy", lambda env: False)
    monkeypatch.setattr(sender, "spawn_detached", lambda argv, env: started.append(argv) or 1)
    sender.spawn_flusher(hook_env(tmp_path, SIGNET_OUTBOX_FLUSH_SECONDS="nan"))
    assert started[0][-2:] == ["--seconds", "60.0"]


def test_the_sender_refuses_nan_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("SIGNET_DAEMON_URL", "http://127.0.0.1:9")
    assert main(["flush", "--seconds", "nan"]) == 2
    assert capsys.readouterr().err == "--seconds: not a number: 'nan'\n"


def test_a_nan_settle_time_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGNET_OUTBOX_SETTLE_SECONDS", "nan")
    assert settle_seconds() == SETTLE_SECONDS


def test_a_nan_breaker_cooldown_is_the_default(tmp_path: Path) -> None:
    env = hook_env(tmp_path, SIGNET_BREAKER_COOLDOWN="nan")
    breaker = breaker_for(env, "http://127.0.0.1:3850")
    assert breaker is not None
    lines: list[str] = []
    for _ in range(3):
        breaker.failed(lines.append)
    assert lines == [
        "daemon unreachable (3 failures in a row): hooks skip it for 30s "
        "(SIGNET_BREAKER_FAILURES=0 turns this off)"
    ]
