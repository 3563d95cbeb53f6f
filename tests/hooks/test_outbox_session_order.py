"""A session's writes reach the daemon in the order they were put.

A send that a crash cut (the daemon applied it, the answer never came) is
in doubt and resent only after it settles. Meanwhile the session goes on: a
later write of the same session must not overtake it, or the daemon applies
the late one to a session that has moved on (a compaction summary resent
after the session's end replaces the stored transcript). Writes of other
sessions, and writes that name no session, keep no order and go at once.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from signet_sdk.hooks.outbox import Outbox
from signet_sdk.hooks.sender import outbox_sender
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.errors import APITimeoutError

HOOKS = ("/api/hooks/compaction-complete", "/api/hooks/session-end", "/api/hooks/remember")


def sender_to(url: str) -> Any:
    send = outbox_sender(resolve_config(url, env={}))
    return lambda entry, body: send(entry, body, timeout=5.0)


def answer_lost(url: str) -> Any:
    """A send the daemon applies whose answer never reaches the sender (a crash)."""
    send = sender_to(url)

    def cut(entry: Any, body: Any) -> Any:
        send(entry, body)
        raise APITimeoutError("no answer", method="POST", url=url)

    return cut


def arrivals(daemon: MockDaemon) -> list[tuple[str, str | None]]:
    """Each write the daemon received, and each look at its summaries, in order."""
    return [
        (r.path, r.json.get("sessionKey") if isinstance(r.json, dict) else None)
        for r in daemon.requests
        if r.path in HOOKS or r.path == "/api/sessions/summaries"
    ]


def test_a_later_write_waits_for_its_sessions_write_in_doubt(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str]
) -> None:
    daemon, url = mock_daemon
    outbox = Outbox(tmp_path / "outbox", settle=0.6)
    summary = outbox.put(
        "compaction_complete", {"sessionKey": "s1", "summary": "We chose sqlite."}, harness="h"
    )
    assert outbox.deliver(summary.id, answer_lost(url)) == "failed"
    end = outbox.put("session_end", {"sessionKey": "s1", "sessionId": "s1"}, harness="h")
    other = outbox.put("session_end", {"sessionKey": "s2", "sessionId": "s2"}, harness="h")
    loose = outbox.put("remember", {"content": "The user prefers tabs."}, harness="h")

    send = sender_to(url)
    assert outbox.deliver(end.id, send) == "waiting"
    assert outbox.deliver(other.id, send) == "sent"
    assert outbox.deliver(loose.id, send) == "sent"
    assert outbox.pending() == [summary.id, end.id]

    counts = outbox.flush(send, deadline=time.monotonic() + 10)
    assert counts["sent"] == 2 and outbox.pending() == []
    assert arrivals(daemon) == [
        ("/api/hooks/compaction-complete", "s1"),  # applied, its answer lost
        ("/api/hooks/session-end", "s2"),
        ("/api/hooks/remember", None),
        # Once settled, the sender finds the summary stored and sends no repeat;
        # only then does the session's end go.
        ("/api/sessions/summaries", None),
        ("/api/hooks/session-end", "s1"),
    ]
    assert len(daemon.requests_to("/api/hooks/session-end")) == 2


def test_a_failed_write_holds_its_session_for_the_rest_of_the_run(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str]
) -> None:
    """One flush tries a failing write once; its session's later writes wait for the next run."""
    daemon, url = mock_daemon
    outbox = Outbox(tmp_path / "outbox", settle=0.0)
    first = outbox.put("session_checkpoint_extract", {"sessionKey": "s1"}, harness="h")
    second = outbox.put("session_end", {"sessionKey": "s1", "sessionId": "s1"}, harness="h")
    third = outbox.put("session_end", {"sessionKey": "s2", "sessionId": "s2"}, harness="h")
    real = sender_to(url)

    def refuse_checkpoints(entry: Any, body: Any) -> Any:
        if entry.action == "session_checkpoint_extract":
            raise APITimeoutError("no answer", method="POST", url=url)
        return real(entry, body)

    counts = outbox.flush(refuse_checkpoints, deadline=time.monotonic() + 10)
    assert counts == {"failed": 1, "waiting": 1, "sent": 1}
    assert outbox.pending() == [first.id, second.id]
    assert outbox.attempts(first.id) == 1 and outbox.attempts(second.id) == 0

    counts = outbox.flush(real, deadline=time.monotonic() + 10)
    assert counts == {"sent": 2} and outbox.pending() == []
    ends = [json.loads(r.body)["sessionKey"] for r in daemon.requests_to("/api/hooks/session-end")]
    assert ends == ["s2", "s1"]
    assert third.id not in outbox.pending()


def test_a_dead_write_no_longer_holds_its_session(tmp_path: Path) -> None:
    """After its last attempt a write goes to dead/, and the session's next write goes on."""
    outbox = Outbox(tmp_path / "outbox", settle=0.0, max_attempts=1)
    first = outbox.put("compaction_complete", {"sessionKey": "s1", "summary": "x"}, harness="h")
    second = outbox.put("session_end", {"sessionKey": "s1", "sessionId": "s1"}, harness="h")
    sent: list[str] = []

    def send(entry: Any, body: Any) -> Any:
        if entry.id == first.id:
            raise APITimeoutError("no answer", method="POST", url="http://127.0.0.1:9")
        sent.append(entry.id)
        return {}

    assert outbox.deliver(second.id, send) == "waiting"
    assert outbox.deliver(first.id, send) == "dead"
    assert outbox.deliver(second.id, send) == "sent"
    assert sent == [second.id]
    assert (Path(outbox.dead) / f"{first.id}.json").exists()


def test_sessions_are_told_apart_by_harness_and_agent(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox", settle=60.0)
    held = outbox.put("session_end", {"sessionKey": "k", "sessionId": "k"}, harness="a")

    def in_doubt(entry: Any, body: Any) -> Any:
        raise APITimeoutError("no answer", method="POST", url="http://127.0.0.1:9")

    assert outbox.deliver(held.id, in_doubt) == "failed"
    same = outbox.put("session_end", {"sessionKey": "k", "sessionId": "k"}, harness="a")
    other_harness = outbox.put("session_end", {"sessionKey": "k", "sessionId": "k"}, harness="b")
    other_agent = outbox.put(
        "session_end", {"sessionKey": "k", "sessionId": "k"}, harness="a", agent_id="other"
    )
    assert outbox.queued_before(same) == held.id
    assert outbox.queued_before(other_harness) is None
    assert outbox.queued_before(other_agent) is None
    # A fresh Outbox on the same folder (another process) reads each entry's session from disk.
    again = Outbox(tmp_path / "outbox", settle=60.0)
    assert again.queued_before(same) == held.id
    assert again.deliver(same.id, in_doubt) == "waiting"


def test_a_flush_lists_the_folder_once_a_pass_not_once_an_entry(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str], monkeypatch: Any
) -> None:
    """After a long outage a flush meets thousands of entries: listing the folder
    again for each one made it quadratic. Its own pass already knows, oldest
    first, which sessions still have an entry pending."""
    daemon, url = mock_daemon
    outbox = Outbox(tmp_path / "outbox")
    for n in range(40):
        outbox.put("remember", {"content": f"fact {n}", "sessionKey": f"s{n % 3}"}, harness="h")
    listings = 0
    real_listdir = os.listdir

    def counting_listdir(path: Any) -> list[str]:
        nonlocal listings
        listings += 1
        return real_listdir(path)

    monkeypatch.setattr(os, "listdir", counting_listdir)
    counts = outbox.flush(sender_to(url), deadline=time.monotonic() + 10)
    assert counts == {"sent": 40} and outbox.pending() == []
    assert listings <= 2  # the pass, and the empty check after it
    sent = [r.json["content"] for r in daemon.requests if r.path == "/api/hooks/remember"]
    assert sent == [f"fact {n}" for n in range(40)]
