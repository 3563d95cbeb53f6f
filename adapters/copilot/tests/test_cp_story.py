"""``signet-sdk demo``'s two sessions, played through the Copilot CLI adapter alone.

The story's compaction step is agentStop finding ``/compact``'s summary in
the events.jsonl the story writes; the demo requires it to be stored as a
memory, and session two to be given the fact session one remembered.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from signet_adapter_copilot import PLUGIN

from signet_sdk.cli.demo import Story
from signet_sdk.runtime.registry import create_adapter
from signet_sdk.testing import MockDaemon


def test_the_demo_story_passes_for_copilot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SIGNET_TRANSCRIPT_ROOTS", str(tmp_path))
    mock = MockDaemon(db_path=tmp_path / "demo.sqlite3")
    with mock.serve() as handle, create_adapter("copilot", handle.url) as adapter:
        failures = Story(PLUGIN, adapter, tmp_path).play()

    assert failures == []
    out = capsys.readouterr().out
    assert "compaction completes             agentStop" in out
    done = [r for r in mock.requests if r.path == "/api/hooks/compaction-complete"]
    assert [r.json["summary"] for r in done] == [
        "Decided for copilot: billing deploys blue-green on Tuesdays; staging stays on "
        "pg-staging-2."
    ]
