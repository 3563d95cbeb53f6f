"""A hook's deadline runs from when the harness started it, Python's start-up included.

On a loaded machine a hook process can take seconds to reach its first line
of our code (60 hooks at once on 2 cores: over 2 s), and the harness's own
timeout has been running all that while. The deadline counts from the
process's start, so the harness hears back before it gives up; a hook that
starts after its whole deadline still gets a moment to keep its writes.

A process whose ``exec`` is held back (``preexec_fn`` sleeps in the child
after the fork) starts late exactly as a hook does on a busy machine: its
start time is the fork's.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from signet_sdk.hooks.deadline import Deadline, process_age
from signet_sdk.testing.hook_process import SIGNET_SDK

from ..fault_support import PROMPT, FaultProxy, hook_env, sender_idle

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="the process start time is read from /proc"
)

#: How long the child waits between its fork and its exec.
LATE = 3.0


def _late_hook(
    env: dict[str, str], event: str, payload: bytes, payload_after: float = 0.0
) -> tuple[float, bytes, int]:
    """Run ``signet-sdk hook claude-code <event>`` started ``LATE`` seconds late.

    The payload reaches its stdin ``payload_after`` seconds after the exec
    (``Popen`` returns once the child has exec'd).
    """
    started = time.monotonic()
    with subprocess.Popen(
        [SIGNET_SDK, "hook", "claude-code", event],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        preexec_fn=lambda: time.sleep(LATE),
    ) as hook:
        assert hook.stdin is not None and hook.stdout is not None
        time.sleep(payload_after)
        try:
            hook.stdin.write(payload)
            hook.stdin.close()
        except BrokenPipeError:  # it has gone without reading: the test's assertions say so
            pass
        stdout = hook.stdout.read()
        code = hook.wait(timeout=60)
    return time.monotonic() - started, stdout, code


def test_a_late_started_hook_answers_within_the_deadline_from_its_start(tmp_path: Path) -> None:
    hung = FaultProxy(mode="hang")
    try:
        env = hook_env(tmp_path, SIGNET_DAEMON_URL=hung.url, SIGNET_PROMPT_SUBMIT_TIMEOUT="6000")
        took, stdout, code = _late_hook(env, "UserPromptSubmit", PROMPT)
    finally:
        hung.close()
    assert (code, stdout) == (0, b"")
    # From its start: about 6 s. Counted from our first line instead, 3 s + start-up + 6 s.
    assert LATE + 1.0 < took < 8.0, took


def test_a_hook_started_after_its_deadline_still_keeps_its_write(tmp_path: Path) -> None:
    hung = FaultProxy(mode="hang")
    outbox = tmp_path / "state" / "signet-sdk" / "outbox"
    end = {"hook_event_name": "SessionEnd", "session_id": "s-late", "reason": "other"}
    try:
        env = hook_env(tmp_path, SIGNET_DAEMON_URL=hung.url, SIGNET_FETCH_TIMEOUT="1000")
        # The payload comes while the hook waits for it, after its whole deadline.
        took, stdout, code = _late_hook(env, "SessionEnd", json.dumps(end).encode(), 0.3)
    finally:
        hung.close()
    assert (code, stdout) == (0, b"")
    assert took < LATE + 5.0, took
    pending = [json.loads(p.read_text()) for p in outbox.glob("*.json")]
    assert [(e["action"], e["body"]["sessionKey"]) for e in pending] == [("session_end", "s-late")]
    wait = time.monotonic() + 30
    while not sender_idle(outbox) and time.monotonic() < wait:
        time.sleep(0.1)


@pytest.mark.parametrize(
    ("seconds", "spent", "left"),
    [(10.0, 0.0, 10.0), (10.0, 2.5, 7.5), (10.0, 30.0, 1.0), (0.5, 30.0, 0.5)],
)
def test_the_timer_gets_what_start_up_left_but_never_less_than_a_second(
    seconds: float, spent: float, left: float
) -> None:
    deadline = Deadline(seconds, None, spent)
    try:
        assert deadline.left() == pytest.approx(left, abs=0.2)
    finally:
        deadline.disarm()  # its timer would end this process


def test_process_age_is_the_time_since_the_fork() -> None:
    code = "from signet_sdk.hooks.deadline import process_age; print(process_age())"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: time.sleep(1.5),
    )
    assert 1.4 < float(done.stdout) < 10.0, done.stdout
    assert 0.0 <= process_age() < time.clock_gettime(time.CLOCK_BOOTTIME)
