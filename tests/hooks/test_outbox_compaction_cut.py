"""A compaction summary whose daemon was killed between storing it and resetting the session.

The daemon's compaction-complete stores the summary, writes its artifact
file, then deletes the session's stored transcript and extract cursor, in a
second transaction. Killed in between, it keeps the summary and the old
transcript; a session end keeps the longer of the stored and the sent
transcript, so a harness that sends only what followed the compaction (Hermes
compresses in place) would lose those turns. The repeat of such a summary
finds it stored, sees that the daemon that stored it has stopped since and
that the session still has a transcript, and sends it again: the daemon
resets the transcript, and the summary is stored twice. Everywhere else the
summary found stays the only one.

The mock daemon's ``restart`` is the kill and restart: it keeps the database.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.hooks.outbox import Outbox
from signet_sdk.hooks.sender import outbox_sender
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.wire.config import resolve_config

KEY = "20261124_093000_5be1c2d3e4"
SUMMARY = "Atlas release so far: the migrations are reviewed, staging is next."
BODY = {"sessionKey": KEY, "summary": SUMMARY, "project": "/srv/atlas"}
BEFORE = "user: what is left in step 0?\n\nassistant: Step 0 needs the migrations reviewed."
ENTRY_ID = "ev-3f0c9a7b21d4e8f6-compaction_complete"


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private state directory, where the sender's log line goes."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "signet-sdk"


def deliver_once(daemon: MockDaemon, url: str, outbox: Outbox) -> None:
    """The first send: the summary stored and the session's transcript reset."""
    daemon.store.upsert_transcript(KEY, "default", BEFORE, "hermes-agent", "/srv/atlas")
    outbox.put("compaction_complete", BODY, harness="hermes-agent", entry_id=ENTRY_ID)
    assert outbox.deliver(ENTRY_ID, send_to(url)) == "sent"
    assert daemon.store.get_transcript(KEY, "default") is None


def send_to(url: str) -> Any:
    send = outbox_sender(resolve_config(url, env={}))
    return lambda entry, body: send(entry, body, timeout=5.0)


def repeat(url: str, outbox: Outbox) -> None:
    """The same write again under its id, as a repeat (a shim's fallback, a settled doubt)."""
    outbox.put("compaction_complete", BODY, harness="hermes-agent", entry_id=ENTRY_ID, repeat=True)
    assert outbox.deliver(ENTRY_ID, send_to(url)) == "sent"
    assert outbox.pending() == []


def delivered_then_repeated(
    daemon: MockDaemon, url: str, folder: Path, *, restart_first: bool, transcript_left: bool
) -> None:
    """The summary delivered, the daemon restarted (before that or after it), then the repeat.

    ``transcript_left`` stores the old transcript again after the delivery, as a
    daemon killed before its reset leaves it.
    """
    outbox = Outbox(folder)
    if restart_first:
        daemon.advance(2.0)
        daemon.restart()
    deliver_once(daemon, url, outbox)
    if transcript_left:
        daemon.store.upsert_transcript(KEY, "default", BEFORE, "hermes-agent", "/srv/atlas")
    if not restart_first:
        daemon.advance(2.0)
        daemon.restart()
    repeat(url, outbox)


def summaries(daemon: MockDaemon) -> int:
    sends = daemon.requests_to("/api/hooks/compaction-complete", "POST")
    return sum(1 for s in sends if s.response_json and s.response_json.get("memoryId"))


def test_a_summary_stored_by_a_daemon_killed_before_its_reset_is_sent_again(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str], state: Path
) -> None:
    daemon, url = mock_daemon
    # Killed before its second transaction: the old transcript is still there.
    delivered_then_repeated(
        daemon, url, tmp_path / "outbox", restart_first=False, transcript_left=True
    )

    assert daemon.store.get_transcript(KEY, "default") is None  # reset at last
    assert summaries(daemon) == 2  # the price: the summary is stored twice
    assert daemon.memory_count() == 2
    looked = [r.path for r in daemon.requests[-4:]]
    assert looked == [
        "/api/sessions/summaries",
        "/health",
        f"/api/sessions/{KEY}/transcript",
        "/api/hooks/compaction-complete",
    ]
    log = (state / "hooks.log").read_text()
    assert f"outbox {ENTRY_ID} compaction_complete: its summary was stored by a daemon" in log
    assert "sent again so the daemon resets it (the summary is stored twice)" in log


@pytest.mark.parametrize(
    ("restart_first", "transcript_left", "last_looked"),
    [
        # No restart since the summary was stored: its handler ran to the end.
        (True, True, "/health"),
        # The reset ran (or there was never a transcript): nothing to reset.
        (False, False, f"/api/sessions/{KEY}/transcript"),
    ],
    ids=["restarted-before-the-summary", "no-transcript-left"],
)
def test_the_summary_found_stays_the_only_one(
    tmp_path: Path,
    mock_daemon: tuple[MockDaemon, str],
    state: Path,
    restart_first: bool,
    transcript_left: bool,
    last_looked: str,
) -> None:
    daemon, url = mock_daemon
    delivered_then_repeated(
        daemon,
        url,
        tmp_path / "outbox",
        restart_first=restart_first,
        transcript_left=transcript_left,
    )

    assert summaries(daemon) == 1 and daemon.memory_count() == 1
    assert daemon.requests[-1].path == last_looked  # and no compaction-complete after it
    assert not (state / "hooks.log").exists()


def test_a_daemon_without_the_transcript_route_counts_as_keeping_one(
    tmp_path: Path, state: Path
) -> None:
    """Signet 0.109 has no ``GET /api/sessions/:key/transcript``: after a restart the
    repeat cannot tell whether the reset ran, and a repeat is better than lost turns."""
    daemon = MockDaemon(version="0.109")
    with daemon.serve() as handle:
        delivered_then_repeated(
            daemon, handle.url, tmp_path / "outbox", restart_first=False, transcript_left=False
        )
    daemon.close()
    assert summaries(daemon) == 2
    assert "sent again so the daemon resets it" in (state / "hooks.log").read_text()


def test_a_summary_whose_send_was_answered_with_a_server_error_is_sent_again(
    tmp_path: Path, mock_daemon: tuple[MockDaemon, str], state: Path
) -> None:
    """A 500 after the summary was stored: the daemon's handler stopped before its reset
    (everything after the reset is caught), with no restart to see."""
    daemon, url = mock_daemon
    outbox = Outbox(tmp_path / "outbox")
    deliver_once(daemon, url, outbox)
    daemon.store.upsert_transcript(KEY, "default", BEFORE, "hermes-agent", "/srv/atlas")
    # The outbox as its send left it: the entry kept, its marker saying "answered 5xx".
    outbox.put("compaction_complete", BODY, harness="hermes-agent", entry_id=ENTRY_ID)
    marker = Path(outbox.root) / f"{ENTRY_ID}.sending"
    marker.touch()
    os.utime(marker, (0, 0))

    assert outbox.deliver(ENTRY_ID, send_to(url)) == "sent"

    assert daemon.store.get_transcript(KEY, "default") is None
    assert summaries(daemon) == 2
    assert [r.path for r in daemon.requests[-3:]] == [
        "/api/sessions/summaries",
        f"/api/sessions/{KEY}/transcript",
        "/api/hooks/compaction-complete",
    ]
    assert "stored by a daemon that answered an error" in (state / "hooks.log").read_text()
