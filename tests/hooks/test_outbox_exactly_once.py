"""Exactly once, as far as the daemon can tell: every outbox write against a slow daemon.

A daemon that applies a write and answers late makes the hook's send time
out; the entry is then in doubt, and whoever sends it next (the detached
sender, the next hook) must not make the daemon store it twice. These tests
run each durable write through a proxy that delays the mock daemon's answer
(or the request itself), then let the outbox send it again, and count what
the daemon stored.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.hooks.outbox import Outbox
from signet_sdk.hooks.sender import outbox_sender
from signet_sdk.runtime.transcripts import TranscriptSnapshot
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.errors import APITimeoutError

from ..fault_support import SIGNET_SDK, FaultProxy, hook_env, run_hook, sender_idle

TRANSCRIPT = "".join(
    f'{{"type":"user","message":{{"role":"user","content":"line {i} of a long talk"}}}}\n'
    for i in range(40)
).encode()

WRITES: dict[str, tuple[dict[str, Any], bool]] = {
    "session_end": ({"sessionKey": "s-end", "sessionId": "s-end", "cwd": "/w/p"}, True),
    "session_checkpoint_extract": ({"sessionKey": "s-ckpt", "project": "/w/p"}, True),
    "compaction_complete": ({"sessionKey": "s-cmp", "summary": "We chose sqlite."}, False),
    "remember": ({"content": "The user prefers tabs.", "sessionKey": "s-rem"}, False),
}


def stored(daemon: MockDaemon, action: str) -> int:
    """What the daemon kept for one write: a summary job or a memory."""
    if action in ("session_end", "session_checkpoint_extract"):
        return len(daemon.summary_jobs())
    return daemon.memory_count()


def put(outbox: Outbox, action: str) -> str:
    body, with_transcript = WRITES[action]
    snap = TranscriptSnapshot(TRANSCRIPT, len(TRANSCRIPT), False) if with_transcript else None
    entry = outbox.put(action, body, harness="claude-code", runtime_path="legacy", transcript=snap)
    return entry.id


def sender_to(url: str, timeout: float | None = None) -> Any:
    send = outbox_sender(resolve_config(url, env={}))
    return lambda entry, body: send(entry, body, timeout=timeout)


def proxy_to(url: str, mode: str, **options: Any) -> FaultProxy:
    """A :class:`FaultProxy` in front of the daemon at ``url``."""
    host, port = url.rsplit("//", 1)[1].split(":")
    return FaultProxy((host, int(port)), mode=mode, **options)


@contextmanager
def failed_first_send(
    folder: Path, url: str, action: str, fault: tuple[str, float, float], settle: float
) -> Iterator[tuple[Outbox, str]]:
    """An outbox holding ``action``'s write, whose first send failed by its deadline.

    ``fault`` is (proxy mode, its delay, the send's timeout): the proxy delays the
    request or its answer longer than the send waits, so whether the daemon stored
    the write is in doubt; the proxy stays up (the late one may still be on its
    way) until the block ends.
    """
    mode, delay, timeout = fault
    with proxy_to(url, mode, delay=delay) as proxy:
        outbox = Outbox(folder, settle=settle)
        entry_id = put(outbox, action)
        assert outbox.deliver(entry_id, sender_to(proxy.url, timeout=timeout)) == "failed"
        yield outbox, entry_id


@pytest.mark.parametrize("action", list(WRITES))
def test_late_answer_then_resend_is_stored_once(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str], action: str
) -> None:
    daemon, url = mock_daemon
    held = failed_first_send(tmp_path / "outbox", url, action, ("slow", 1.5, 0.4), settle=0.0)
    with held as (outbox, entry_id):
        assert outbox.in_doubt_for(entry_id) is not None
        # The detached sender takes over at once, while the late answer is still on its way.
        counts = outbox.flush(sender_to(url), deadline=time.monotonic() + 10)
    assert counts == {"sent": 1} and outbox.pending() == []
    assert stored(daemon, action) == 1
    sends = daemon.requests_to(f"/api/hooks/{action.replace('_', '-')}")
    # The daemon recognises the repeat, except compaction-complete, which it cannot:
    # for that one the sender found the stored summary and sent no repeat.
    assert len(sends) == (1 if action == "compaction_complete" else 2)
    if action == "compaction_complete":
        assert daemon.requests_to("/api/sessions/summaries", "GET")


@pytest.mark.parametrize("action", list(WRITES))
def test_request_held_back_then_resent_after_settling_is_stored_once(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str], action: str
) -> None:
    """The first send reaches the daemon only after the hook gave up on it."""
    daemon, url = mock_daemon
    held = failed_first_send(
        tmp_path / "outbox", url, action, ("slow_before", 1.0, 0.3), settle=2.0
    )
    with held as (outbox, entry_id):
        assert outbox.deliver(entry_id, sender_to(url)) == "settling"
        counts = outbox.flush(sender_to(url), deadline=time.monotonic() + 15)
    assert counts.get("sent") == 1 and outbox.pending() == []
    assert stored(daemon, action) == 1


def test_remember_carries_its_entry_id(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox")
    entry = outbox.put("remember", {"content": "x"}, harness="h")
    assert entry.body["sourceId"] == f"signet-sdk:{entry.id}"
    assert entry.body["idempotencyKey"] == entry.id
    own = outbox.put("remember", {"content": "y", "sourceId": "mine"}, harness="h")
    assert own.body["sourceId"] == "mine"


def test_a_hook_killed_mid_send_leaves_the_entry_in_doubt(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox", settle=60.0)
    entry_id = put(outbox, "session_end")

    def killed(entry: Any, body: Any) -> Any:
        raise APITimeoutError("no answer", method="POST", url="http://x")

    assert outbox.deliver(entry_id, killed) == "failed"
    assert outbox.deliver(entry_id, killed) == "settling"
    assert outbox.attempts(entry_id) == 1


@pytest.mark.parametrize("status", [429, 503])
def test_backpressure_waits_for_retry_after_and_spends_no_attempt(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str], status: int
) -> None:
    daemon, url = mock_daemon
    busy = {"error": "rate limit exceeded"}
    with proxy_to(
        url,
        "status",
        status=status,
        body=busy,
        headers={"Retry-After": "2"},
        fail_first=2,
    ) as proxy:
        outbox = Outbox(tmp_path / "outbox", max_attempts=1, settle=0.0)
        entry_id = put(outbox, "remember")
        waits: list[float] = []
        # No retries inside the call: each 429/503 reaches the outbox.
        send = outbox_sender(resolve_config(proxy.url, max_retries=0, env={}))
        counts = outbox.flush(send, deadline=time.monotonic() + 30, sleep=waits.append)
    assert counts == {"kept": 2, "sent": 1}
    assert waits == [2.0, 2.0]  # the daemon's Retry-After, not the 0.25 s back-off
    assert outbox.pending() == [] and outbox.attempts(entry_id) == 0
    assert not (Path(outbox.root) / "dead").exists()
    assert daemon.memory_count() == 1


# session_end is left out: a harness with no runtime path (this generic one) gets no
# tombstone from the daemon, so its session-end is sent at least once, not exactly once.
@pytest.mark.parametrize("action", ["compaction_complete", "remember"])
def test_hook_that_times_out_on_a_slow_daemon_stores_its_write_once(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str], action: str
) -> None:
    """The whole path: the hook gives up, its detached sender resends once settled."""
    import json

    daemon, url = mock_daemon
    body, _ = WRITES[action]
    with proxy_to(url, "slow", delay=2.0) as proxy:
        env = hook_env(
            tmp_path,
            SIGNET_DAEMON_URL=proxy.url,
            SIGNET_FETCH_TIMEOUT="1000",
            SIGNET_OUTBOX_SETTLE_SECONDS="1",
            SIGNET_OUTBOX_FLUSH_SECONDS="20",
            SIGNET_BREAKER_FAILURES="0",
        )
        slug = action.replace("_", "-")
        done = run_hook(env, "legacy-cli", slug, json.dumps(body).encode())
        assert (done.returncode, done.stderr) == (0, b"")
        outbox = tmp_path / "state" / "signet-sdk" / "outbox"
        end = time.monotonic() + 30
        while (list(outbox.glob("*.json")) or not sender_idle(outbox)) and time.monotonic() < end:
            time.sleep(0.1)
        assert list(outbox.glob("*.json")) == [] and sender_idle(outbox)
    assert stored(daemon, action) == 1


def _conflict(error: str) -> Any:
    from signet_sdk.wire.errors import status_error

    def send(entry: Any, body: Any) -> Any:
        raise status_error(
            method="POST",
            url="http://127.0.0.1:9/api/hooks/remember",
            status_code=409,
            body={"error": error},
            headers={},
        )

    return send


def test_a_409_naming_the_entrys_own_idempotency_key_counts_as_delivered(tmp_path: Path) -> None:
    # 0.145's answer to a resend whose key an earlier send already stored.
    outbox = Outbox(tmp_path / "outbox")
    entry_id = outbox.put("remember", {"content": "x"}, harness="h").id
    taken = _conflict("idempotencyKey already used for non-chunk content")
    assert outbox.deliver(entry_id, taken) == "sent"
    assert outbox.pending() == [] and not (Path(outbox.root) / "dead").exists()


def test_any_other_409_is_still_a_dead_letter(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox")
    entry_id = outbox.put("remember", {"content": "x"}, harness="h").id
    assert outbox.deliver(entry_id, _conflict("session claimed by plugin path")) == "dead"
    own = outbox.put("session_end", {"sessionKey": "k"}, harness="h").id
    taken = _conflict("idempotencyKey already used for non-chunk content")
    assert outbox.deliver(own, taken) == "dead"  # only a memory write carries the key
    assert len(list((Path(outbox.root) / "dead").glob("*.json"))) == 2


# -- one event id, end to end ---------------------------------------------------------

EVENT_ID = "01795000000000000000-0123456789abcdef"


def test_event_ids_have_one_shape() -> None:
    from signet_sdk.hooks.entry import valid_event_id

    assert valid_event_id(EVENT_ID)
    assert valid_event_id("01795000000000000000-" + "A1b2" * 16)  # up to 64 letters or digits
    for bad in (
        "",
        "1795000000000000000-0123456789abcdef",  # 19 digits of time
        "01795000000000000000_0123456789abcdef",
        "01795000000000000000-0123456",  # 7 characters after the time
        "01795000000000000000-" + "a" * 65,
        "01795000000000000000-../../etc/passwd",
        "01795000000000000000-0123456789abcdé",
        "\uff101795000000000000000-0123456789abcdef",  # a digit, but not an ASCII one
        None,
        17,
    ):
        assert not valid_event_id(bad), bad


def test_an_events_writes_are_named_by_its_id_and_their_action() -> None:
    from signet_sdk.hooks.entry import EventWrites

    writes = EventWrites(EVENT_ID)
    assert writes.entry_id("compaction_complete") == f"{EVENT_ID}-compaction_complete"
    assert writes.entry_id("session_checkpoint_extract") == (
        f"{EVENT_ID}-session_checkpoint_extract"
    )
    assert writes.entry_id("compaction_complete") == f"{EVENT_ID}-compaction_complete-2"
    again = EventWrites(EVENT_ID, repeat=True)  # the same event run again: the same ids
    assert again.entry_id("compaction_complete") == f"{EVENT_ID}-compaction_complete"
    with pytest.raises(ValueError, match="not an event id"):
        EventWrites("../outbox")


def test_a_write_put_again_under_its_id_is_the_one_already_stored(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox")
    entry_id = f"{EVENT_ID}-remember"
    first = outbox.put("remember", {"content": "first run"}, harness="h", entry_id=entry_id)
    again = outbox.put(
        "remember", {"content": "second run"}, harness="h", entry_id=entry_id, repeat=True
    )
    assert again == first and not again.resend  # the first run's entry, not sent yet
    assert outbox.pending() == [entry_id]
    assert first.body == {
        "content": "first run",
        "sourceId": f"signet-sdk:{entry_id}",
        "idempotencyKey": entry_id,
    }
    with pytest.raises(ValueError, match="letters, digits"):
        outbox.put("remember", {"content": "x"}, entry_id="../escape")


@pytest.mark.parametrize("action", ["compaction_complete", "remember"])
def test_a_repeat_of_a_delivered_write_is_not_stored_again(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str], action: str
) -> None:
    """The adapter server delivered the write and removed its entry; the hook process a
    shim fell back to stores it again under the same id, as a repeat."""
    daemon, url = mock_daemon
    outbox = Outbox(tmp_path / "outbox")
    body, _ = WRITES[action]
    entry_id = f"{EVENT_ID}-{action}"
    outbox.put(action, body, harness="claude-code", runtime_path="legacy", entry_id=entry_id)
    assert outbox.deliver(entry_id, sender_to(url)) == "sent" and outbox.pending() == []
    repeat = outbox.put(
        action, body, harness="claude-code", runtime_path="legacy", entry_id=entry_id, repeat=True
    )
    assert repeat.resend  # sent at once (nothing is in doubt), as a repeat
    assert outbox.deliver(entry_id, sender_to(url)) == "sent" and outbox.pending() == []
    assert stored(daemon, action) == 1
    sends = daemon.requests_to(f"/api/hooks/{action.replace('_', '-')}")
    if action == "compaction_complete":  # looked up, found, not sent again
        assert len(sends) == 1 and daemon.requests_to("/api/sessions/summaries", "GET")
    else:  # the same keys as the first send: the daemon's own de-duplication
        assert len(sends) == 2 and sends[1].json["idempotencyKey"] == entry_id
        assert sends[1].response_json["deduped"] is True


def test_a_repeat_of_a_write_never_delivered_is_stored(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str]
) -> None:
    daemon, url = mock_daemon
    outbox = Outbox(tmp_path / "outbox")
    body, _ = WRITES["compaction_complete"]
    entry_id = f"{EVENT_ID}-compaction_complete"
    outbox.put("compaction_complete", body, harness="h", entry_id=entry_id, repeat=True)
    assert outbox.deliver(entry_id, sender_to(url)) == "sent"
    assert stored(daemon, "compaction_complete") == 1


def test_hook_process_with_an_event_id_stores_a_delivered_write_once(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str]
) -> None:
    """``signet-sdk hook ... --event-id`` after the write was delivered under that id."""
    import json

    daemon, url = mock_daemon
    env = hook_env(tmp_path, SIGNET_DAEMON_URL=url, SIGNET_BREAKER_FAILURES="0")
    outbox = Outbox(tmp_path / "state" / "signet-sdk" / "outbox")
    body = {"sessionKey": "s-evt", "summary": "We chose sqlite, once."}
    entry_id = f"{EVENT_ID}-compaction_complete"
    # What the adapter server did before it went away: stored, delivered, removed.
    outbox.put("compaction_complete", body, harness="legacy-cli", entry_id=entry_id)
    assert outbox.deliver(entry_id, sender_to(url)) == "sent"
    payload = json.dumps(body).encode()
    argv = [SIGNET_SDK, "hook", "legacy-cli", "compaction-complete", "--event-id", EVENT_ID]
    done = subprocess.run(argv, input=payload, capture_output=True, env=env, timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert stored(daemon, "compaction_complete") == 1
    assert outbox.pending() == []
    # An id that is not one is said in hooks.log and left out: the event still runs.
    bad = [*argv[:-2], "--event-id=../x"]
    done = subprocess.run(bad, input=payload, capture_output=True, env=env, timeout=30)
    assert (done.returncode, done.stderr) == (0, b"")
    log = (tmp_path / "state" / "signet-sdk" / "hooks.log").read_text()
    assert "--event-id '../x' is not an event id: the event runs without it" in log
    assert stored(daemon, "compaction_complete") == 2  # a new write: stored


def test_a_repeat_finds_a_summary_filed_under_the_agent_its_key_names(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str]
) -> None:
    """An OpenClaw key (``agent:<id>:<session>``) files the summary under that agent."""
    daemon, url = mock_daemon
    outbox = Outbox(tmp_path / "outbox")
    body = {"sessionKey": "agent:ops:s-7", "summary": "Deploys go through make ship."}
    entry_id = f"{EVENT_ID}-compaction_complete"
    outbox.put("compaction_complete", body, harness="openclaw", entry_id=entry_id)
    assert outbox.deliver(entry_id, sender_to(url)) == "sent"
    outbox.put("compaction_complete", body, harness="openclaw", entry_id=entry_id, repeat=True)
    assert outbox.deliver(entry_id, sender_to(url)) == "sent"
    assert stored(daemon, "compaction_complete") == 1
    (look,) = daemon.requests_to("/api/sessions/summaries", "GET")
    assert look.query["sessionKey"] == "agent:ops:s-7"
