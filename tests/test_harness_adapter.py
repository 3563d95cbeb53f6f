"""HarnessAdapter.handle: native events through the typed client, failing open."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import signet_sdk as s
from signet_sdk.testing.mock_daemon import MockDaemon


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[MockDaemon, str]]:
    mock = MockDaemon()
    with mock.serve() as handle:
        yield mock, handle.url


def test_generic_handle_returns_the_inject_text(served: tuple[MockDaemon, str]) -> None:
    mock, url = served
    with s.create_adapter("my-cli", url) as adapter:
        adapter.remember(s.RememberParams(content="the build cache lives on disk three"))
        out = adapter.handle("session-start", {"sessionKey": "ha-1", "project": "/srv/x"})
    assert out.exit_code == 0 and "the build cache lives on disk three" in out.stdout
    assert mock.requests_to("/api/hooks/session-start")[-1].json == {
        "sessionKey": "ha-1",
        "project": "/srv/x",
        "harness": "my-cli",
    }


def test_handle_fails_open_when_the_daemon_is_down() -> None:
    with s.create_adapter("my-cli", "http://127.0.0.1:9", max_retries=0, timeout=1) as adapter:
        assert adapter.handle("session-start", {"sessionKey": "k"}) == s.NativeOutput()
        with pytest.raises(s.NotSentError):
            adapter.handle("session-start", {"sessionKey": "k"}, fail_open=False)


def test_handle_fails_open_on_a_bad_payload(served: tuple[MockDaemon, str]) -> None:
    _, url = served
    with s.create_adapter("my-cli", url) as adapter:
        assert adapter.handle("no-such-event", {}) == s.NativeOutput()
        with pytest.raises(s.PayloadError) as info:
            adapter.handle("user-prompt-submit", {"userMessage": 5}, fail_open=False)
    assert info.value.field == "userMessage"


def test_claude_code_library_path_stages_the_transcript(
    served: tuple[MockDaemon, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mock, url = served
    monkeypatch.setenv("SIGNET_TRANSCRIPT_ROOTS", str(tmp_path))
    transcript = tmp_path / "session.jsonl"
    lines = [
        '{"type":"user","message":{"role":"user","content":"Ship the billing fix today?"}}',
        '{"type":"assistant","message":{"role":"assistant","content":"Yes, after review."}}',
    ]
    transcript.write_text("\n".join(lines * 10) + "\n")
    adapter = s.create_adapter("claude-code", url)
    payload = {
        "session_id": "ha-cc-1",
        "cwd": "/srv/billing",
        "hook_event_name": "SessionEnd",
        "reason": "other",
        "transcript_path": str(transcript),
    }
    output, results = adapter.run_event("SessionEnd", payload)
    adapter.close()
    assert output == s.NativeOutput() and results[0].queued is True
    sent = mock.requests_to("/api/hooks/session-end")[-1].json
    assert sent is not None
    staged = sent["transcriptPath"]
    assert staged.startswith("/tmp/signet/") and not os.path.exists(staged)
    assert sent["cwd"] == "/srv/billing" and sent["runtimePath"] == "legacy"
    stored = s.AdapterClient("claude-code", url).get_session_transcript("ha-cc-1")
    assert "Ship the billing fix today?" in stored.content


def test_claude_code_library_path_refuses_transcripts_outside_its_roots(
    served: tuple[MockDaemon, str], tmp_path: Path
) -> None:
    mock, url = served
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text('{"type":"user"}\n')
    with s.create_adapter("claude-code", url) as adapter:
        payload = {"session_id": "ha-cc-2", "reason": "other", "transcript_path": str(outside)}
        adapter.handle("SessionEnd", payload)
    sent = mock.requests_to("/api/hooks/session-end")[-1].json
    assert sent is not None and "transcriptPath" not in sent and "transcript" not in sent
