"""The circuit breaker the hook processes share (signet_sdk.hooks.breaker)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from signet_sdk.hooks.breaker import Breaker, breaker_for, breaker_name, counts_as_failure
from signet_sdk.wire.errors import (
    APITimeoutError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    NotSentError,
    RateLimitError,
    ServiceUnavailableError,
)

from ..fault_support import FaultProxy, hook_env, run_hook

DAEMON = "http://127.0.0.1:3850"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_opens_after_n_failures_logs_once_and_closes_on_success(tmp_path: Path) -> None:
    clock, lines = Clock(), []
    breaker = Breaker(str(tmp_path / "breaker"), failures=3, cooldown=30, clock=clock)
    for _ in range(2):
        breaker.failed(lines.append)
    assert breaker.open_for() == 0 and lines == []
    breaker.failed(lines.append)
    assert breaker.open_for() == 30.0 and len(lines) == 1
    assert "3 failures in a row" in lines[0] and "SIGNET_BREAKER_FAILURES=0" in lines[0]
    breaker.failed(lines.append)  # a hook already in flight when it opened
    assert len(lines) == 1
    clock.now += 30
    assert breaker.open_for() == 0  # the cool-down is over: the next call may go
    breaker.failed(lines.append)  # ... and it failed: open again, said again
    assert breaker.open_for() == 30.0 and len(lines) == 2
    clock.now += 31
    breaker.succeeded()
    assert (tmp_path / "breaker").read_text() == "0 0.000"
    assert stat.S_IMODE((tmp_path / "breaker").stat().st_mode) == 0o600
    breaker.failed(lines.append)
    assert breaker.open_for() == 0


def test_only_daemon_trouble_counts() -> None:
    kw = {"method": "POST", "url": "http://x"}
    status = {**kw, "body": {}, "headers": {}}
    assert counts_as_failure(NotSentError("x", **kw))
    assert counts_as_failure(APITimeoutError("x", **kw))
    assert counts_as_failure(InternalServerError("x", status_code=500, **status))
    assert not counts_as_failure(BadRequestError("x", status_code=400, **status))
    assert not counts_as_failure(ConflictError("x", status_code=409, **status))
    assert not counts_as_failure(RateLimitError("x", status_code=429, **status))


@pytest.mark.parametrize(
    ("error", "headers", "counts"),
    [
        ("Service Unavailable", {}, True),  # no answer worth the name: a daemon in trouble
        ("Daemon is starting", {"retry-after": "2"}, False),  # busy, and says for how long
        ("Too many concurrent prompt submissions", {}, False),  # a newer daemon shedding load
        ("Synthesis worker not running", {}, False),  # a worker it lacks: no retry helps
    ],
)
def test_a_busy_daemon_does_not_open_the_breaker(
    error: str, headers: dict[str, str], counts: bool
) -> None:
    exc = ServiceUnavailableError(
        error,
        method="POST",
        url="http://x",
        status_code=503,
        body={"error": error},
        headers=headers,
    )
    assert counts_as_failure(exc) is counts


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("http://127.0.0.1:3850", "breaker-127.0.0.1-3850"),
        ("http://localhost:3850/", "breaker-localhost-3850"),
        ("http://LOCALHOST:3851/api", "breaker-localhost-3851"),
        ("https://memory.example", "breaker-memory.example-443"),
        ("http://memory.example", "breaker-memory.example-80"),
        ("http://user:secret@127.0.0.1:3850", "breaker-127.0.0.1-3850"),
        ("http://[::1]:3850", "breaker-1--3850"),
        ("http://../../etc:1", "breaker-..-80"),  # a name, never a path
    ],
)
def test_each_daemon_has_a_breaker_file_of_its_own(url: str, name: str) -> None:
    assert breaker_name(url) == name
    assert "/" not in name and not name.startswith(".")


def test_a_daemon_that_is_down_does_not_hold_back_another(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path), "SIGNET_BREAKER_FAILURES": "1"}
    down = breaker_for(env, "http://127.0.0.1:3850")
    up = breaker_for(env, "http://127.0.0.1:3851")
    assert down is not None and up is not None and down.path != up.path
    down.failed(lambda line: None)
    assert down.open_for() > 0 and up.open_for() == 0
    again = breaker_for(env, "http://127.0.0.1:3850/")  # another process, the same daemon
    assert again is not None and again.open_for() > 0


def test_settings_and_off_switch(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path)}
    on = breaker_for(env, DAEMON)
    assert on is not None and (on.failures, on.cooldown) == (3, 30.0)
    tuned = breaker_for(
        {**env, "SIGNET_BREAKER_FAILURES": "5", "SIGNET_BREAKER_COOLDOWN": "7"}, DAEMON
    )
    assert tuned is not None and (tuned.failures, tuned.cooldown) == (5, 7.0)
    assert breaker_for({**env, "SIGNET_BREAKER_FAILURES": "0"}, DAEMON) is None


def test_a_planted_link_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "victim"
    target.write_text("keep")
    (tmp_path / "breaker").symlink_to(target)
    breaker = Breaker(str(tmp_path / "breaker"))
    assert breaker.open_for() == 0
    breaker.failed(lambda line: None)
    assert target.read_text() == "keep"


@pytest.mark.parametrize("off", [False, True])
def test_hooks_stop_calling_a_daemon_that_never_answers(tmp_path: Path, off: bool) -> None:
    with FaultProxy(mode="hang") as hung:
        env = hook_env(
            tmp_path,
            SIGNET_DAEMON_URL=hung.url,
            SIGNET_PROMPT_SUBMIT_TIMEOUT="1000",
            SIGNET_BREAKER_FAILURES="0" if off else "2",
        )
        for _ in range(4):
            done = run_hook(env)
            assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        reached = len(hung.requests_to("/api/hooks/user-prompt-submit"))
    log = (tmp_path / "state" / "signet-sdk" / "hooks.log").read_text()
    if off:
        assert reached == 4 and "skip it" not in log
    else:
        assert reached == 2  # the third and fourth prompts cost no network at all
        assert log.count("hooks skip it for 30s") == 1
        assert log.count("failed open") == 2  # one per call that was made


@pytest.mark.parametrize(
    ("event", "notice", "told"),
    [("UserPromptSubmit", "1", True), ("UserPromptSubmit", "", False), ("Stop", "1", False)],
)
def test_degraded_notice_is_one_line_and_opt_in(
    tmp_path: Path, event: str, notice: str, told: bool
) -> None:
    env = hook_env(
        tmp_path,
        SIGNET_DAEMON_URL="http://127.0.0.1:9",
        SIGNET_DEGRADED_NOTICE=notice,
        SIGNET_OUTBOX_FLUSH_SECONDS="0",
    )
    payload = {"hook_event_name": event, "session_id": "s", "prompt": "hi", "cwd": "/w"}
    done = run_hook(env, event=event, payload=json.dumps(payload).encode())
    assert (done.returncode, done.stderr) == (0, b"")
    if not told:
        assert done.stdout == b""
        return
    out = json.loads(done.stdout)
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "[Signet memory could not be loaded for this turn: the memory "
            "daemon did not answer (NotSentError). Continue without it.]",
        }
    }
