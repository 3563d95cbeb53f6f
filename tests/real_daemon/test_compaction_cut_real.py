"""A compaction summary whose daemon was killed before it reset the session, on the real daemon.

Signet 0.145.8's compaction-complete stores the summary, writes its artifact
file and only then, in a second transaction, deletes the session's stored
transcript. A SIGKILL between the two (the load scenario in
``test_load_restart.py`` meets it about once in 20 runs) leaves the summary
and the old transcript; the session's end keeps the longer of the stored and
the sent transcript, so Hermes Agent's turns after an in-place compression
were lost. The kill cannot be aimed at that window, so these tests build the
state it leaves: the summary delivered once, the transcript stored again,
the daemon killed and restarted on its data. Then the outbox's repeat of the
summary runs, and the session ends with only what followed the compaction.
The first test is what the daemon does alone; the second, what the sender's
repeat changes.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.hooks.outbox import Outbox
from signet_sdk.hooks.sender import outbox_sender
from signet_sdk.testing.real_daemon import DaemonKit, RealDaemon
from signet_sdk.wire.config import resolve_config

from .test_load_restart import _version

PROJECT = "/srv/atlas"


def _turns(marker: str, first: int, last: int) -> str:
    return "\n\n".join(
        f"user: What is left in step {t}?\n\nassistant: Step {t} ({marker}{t}q) needs review."
        for t in range(first, last + 1)
    )


def _post(daemon: RealDaemon, path: str, body: dict[str, Any]) -> dict[str, Any]:
    status, answer = daemon.request("POST", path, json.dumps(body).encode())
    assert status == 200, (path, status, answer[:300])
    decoded: dict[str, Any] = json.loads(answer)
    return decoded


def _cut_compaction(daemon: RealDaemon, outbox: Outbox, key: str, marker: str) -> str:
    """The state a kill between the summary and the reset leaves; the outbox entry's id."""
    summary = f"Atlas release so far, summary {marker}s."
    before = _turns(marker, 0, 5)
    hook = {"harness": "hermes-agent", "sessionKey": key, "project": PROJECT}
    _post(daemon, "/api/hooks/session-checkpoint-extract", {**hook, "transcript": before})
    body = {"sessionKey": key, "summary": summary, "project": PROJECT}
    entry = outbox.put("compaction_complete", body, harness="hermes-agent")
    assert outbox.deliver(entry.id, _send(daemon)) == "sent"
    # The reset did not happen: the transcript from before the compaction is back.
    _post(daemon, "/api/hooks/session-checkpoint-extract", {**hook, "transcript": before})
    return entry.id


def _send(daemon: RealDaemon) -> Any:
    send = outbox_sender(resolve_config(daemon.url, env={}))
    return lambda entry, body: send(entry, body, timeout=30.0)


def _end(daemon: RealDaemon, key: str, marker: str) -> str:
    """End the session with the summary and the two turns after it, as Hermes sends them."""
    after = f"summary: Atlas release so far, summary {marker}s.\n\n" + _turns(marker, 6, 7)
    body = {"harness": "hermes-agent", "sessionKey": key, "sessionId": key}
    _post(daemon, "/api/hooks/session-end", {**body, "cwd": PROJECT, "transcript": after})
    status, answer = daemon.request("GET", f"/api/sessions/{key}/transcript")
    assert status == 200
    content: str = json.loads(answer)["content"]
    return content


def _summaries(daemon: RealDaemon, key: str) -> int:
    status, answer = daemon.request("GET", f"/api/sessions/summaries?sessionKey={key}&limit=50")
    assert status == 200
    rows = json.loads(answer)["summaries"]
    return sum(1 for r in rows if r.get("source_type") == "compaction")


@pytest.fixture
def daemon(real_daemon_kit: DaemonKit) -> Any:
    started = real_daemon_kit.start(_version(real_daemon_kit))
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "signet-sdk"


def test_the_daemon_alone_keeps_the_transcript_from_before_the_compaction(
    daemon: RealDaemon, tmp_path: Path, state: Path
) -> None:
    key, marker = f"20261124_093000_{uuid.uuid4().hex[:10]}", f"m{uuid.uuid4().hex[:6]}x"
    _cut_compaction(daemon, Outbox(tmp_path / "outbox"), key, marker)
    daemon.kill()
    daemon.restart()

    stored = _end(daemon, key, marker)

    assert f"{marker}5q" in stored and f"{marker}6q" not in stored  # the later turns are lost
    assert _summaries(daemon, key) == 1


def test_the_repeat_of_a_cut_summary_resets_the_session_and_loses_no_turn(
    daemon: RealDaemon, tmp_path: Path, state: Path
) -> None:
    key, marker = f"20261124_093000_{uuid.uuid4().hex[:10]}", f"m{uuid.uuid4().hex[:6]}x"
    outbox = Outbox(tmp_path / "outbox")
    entry_id = _cut_compaction(daemon, outbox, key, marker)
    daemon.kill()
    daemon.restart()
    body = {"sessionKey": key, "summary": f"Atlas release so far, summary {marker}s."}
    outbox.put(
        "compaction_complete",
        {**body, "project": PROJECT},
        harness="hermes-agent",
        entry_id=entry_id,
        repeat=True,
    )
    assert outbox.deliver(entry_id, _send(daemon)) == "sent"

    stored = _end(daemon, key, marker)

    assert all(f"{marker}{t}q" in stored for t in (6, 7))
    assert f"{marker}0q" not in stored  # the transcript was reset before the end
    assert _summaries(daemon, key) == 2  # the price of the repeat
    assert "sent again so the daemon resets it" in (state / "hooks.log").read_text()
