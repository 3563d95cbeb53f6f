"""The embedded app (``RuntimeAdapterServer(...).asgi``) on a state directory it cannot write.

An application that mounts the app gets the hook path's outbox folder, through
the same function and the same checks (``signet_sdk.runtime.files.outbox_dir``).
When the folder cannot hold a write (a file in its way, a state directory that is
a file, a full disk, a read-only one: the last two made in this process by
failing ``os.write``/``os.open`` under it), the app still answers every event
with its output, sends each write directly within the event's deadline, logs
that once, and never answers 500.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from signet_sdk.server import RuntimeAdapterServer
from signet_sdk.testing.mock_daemon import MockDaemon

from ..fault_support import break_disk

pytestmark = pytest.mark.anyio

FAULTS = ("outbox-file", "state-file", "full", "read-only")


def _break(state: Path, fault: str, monkeypatch: pytest.MonkeyPatch) -> None:
    root = state / "signet-sdk"
    root.mkdir(parents=True, mode=0o700, exist_ok=True)
    if fault == "outbox-file":
        (root / "outbox").write_text("not a folder\n")
    elif fault == "state-file":
        root.rmdir()
        root.write_text("not a folder\n")
    else:
        break_disk(monkeypatch, root, fault)


def _events(tag: str) -> list[tuple[str, dict[str, Any]]]:
    """A detached write (answered once on disk) and one written before the answer."""
    ctx = {"agentId": "main", "sessionKey": f"agent:main:{tag}", "sessionId": tag}
    return [
        (
            "/v1/openclaw/events/after_compaction",
            {"messageCount": 2, "compactedCount": 2, "summary": f"Summary {tag}.", "ctx": ctx},
        ),
        (
            "/v1/claude-code/events/PostCompact",
            {
                "session_id": f"{tag}-cc",
                "cwd": "/w/atlas",
                "hook_event_name": "PostCompact",
                "trigger": "manual",
                "compact_summary": f"We chose make ship ({tag}).",
            },
        ),
    ]


@pytest.mark.parametrize("fault", FAULTS)
async def test_every_write_is_sent_directly_and_said_once(
    private_state: Path,
    daemon: tuple[MockDaemon, str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    fault: str,
) -> None:
    mock, url = daemon
    _break(private_state, fault, monkeypatch)
    server = RuntimeAdapterServer(url)  # building it touches no disk
    answers = []
    with caplog.at_level(logging.WARNING, logger="signet_sdk"):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=server.asgi), base_url="http://127.0.0.1:3851"
        ) as client:
            for route, payload in _events(fault):
                answers.append(await client.post(route, json=payload))
        await server.aclose()
    monkeypatch.undo()
    for answer in answers:
        assert answer.status_code == 200, answer.text
        assert answer.json()["degraded"] is None and answer.json()["pending"] == []
    assert answers[0].json()["data"] is None
    compactions = mock.requests_to("/api/hooks/compaction-complete")
    assert [r.status for r in compactions] == [200, 200]  # each write once
    assert mock.memory_count() == 2
    said = [r.getMessage() for r in caplog.records if "outbox unusable" in r.getMessage()]
    assert len(said) == 1, said  # once for the two writes
    assert said[0].endswith("writes are sent directly, without a durable copy")
