"""A checkpoint whose transcript cannot be read still goes, without one, and says why.

When a hook harness's transcript path is missing, a directory, unreadable or
outside the allowed roots, ``signet-sdk hook`` still sends
``session-checkpoint-extract``, with neither ``transcript`` nor
``transcriptPath``, and ``hooks.log`` names the path that was not read. It is
not dropped because such a checkpoint is not a no-op on the daemons we
support: TS 0.109.15 and 0.145.8 both fall back to the transcript the daemon
stored for the session (``handleCheckpointExtract``, platform/daemon/src/
hooks.ts:3445-3449 in 0.109.15, :1994-1998 in 0.145.8) and extract what it
holds past the session's cursor; 0.145.8 grows that stored transcript with
every prompt-submit that carries no transcript (hooks.ts:1459-1475). The
route also claims the session for the runtime path and renews it before it
looks for a transcript (routes/hooks-routes.ts:429-446 in 0.109.15, :434-451
in 0.145.8). The mock daemon falls back the same way; here its store is
seeded with what prompt-submits would have left there.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from signet_sdk.testing import hook_log_lines, outbox_left, run_hook
from signet_sdk.testing.mock_daemon import MockDaemon

SESSION = "cc-7d1e4b2a-checkpoint"
PROJECT = "/home/dev/projects/atlas"
CHECKPOINT = "/api/hooks/session-checkpoint-extract"
#: What the daemon already holds for the session: over the 500-byte delta it extracts.
STORED = "".join(
    f'{{"role":"user","content":"step {n}: how do we deploy atlas to staging?"}}\n'
    for n in range(20)
)


def _transcript_path(kind: str, tmp_path: Path) -> Path:
    """A ``transcript_path`` the hook may not or cannot read, of the given ``kind``."""
    projects = tmp_path / "home" / ".claude" / "projects" / "atlas"
    projects.mkdir(parents=True)
    if kind == "missing":
        return projects / "gone.jsonl"
    if kind == "directory":
        folder = projects / "a-folder.jsonl"
        folder.mkdir()
        return folder
    if kind == "unreadable":
        locked = projects / "locked.jsonl"
        locked.write_text('{"role":"user","content":"secret"}\n')
        locked.chmod(0)
        return locked
    outside = tmp_path / "elsewhere" / "session.jsonl"  # "outside": not under the roots
    outside.parent.mkdir()
    outside.write_text('{"role":"user","content":"not ours"}\n')
    return outside


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIGNET_", "CLAUDE_"))}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        SIGNET_OUTBOX_FLUSH_SECONDS="2",
    )
    return env


@pytest.mark.parametrize("kind", ["missing", "directory", "unreadable", "outside"])
@pytest.mark.parametrize("stored", [True, False], ids=["stored", "nothing-stored"])
def test_the_checkpoint_goes_without_its_transcript_and_the_log_names_the_path(
    kind: str, stored: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if kind == "unreadable" and os.geteuid() == 0:
        pytest.skip("root reads a file without read permission")
    path = _transcript_path(kind, tmp_path)
    env = _env(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)  # hook_log_lines and outbox_left look here
    stop = {
        "session_id": SESSION,
        "transcript_path": str(path),
        "cwd": PROJECT,
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }

    with MockDaemon() as daemon, daemon.serve() as handle:
        if stored:
            daemon.store.upsert_transcript(SESSION, "default", STORED, "claude-code", PROJECT)
        run = run_hook("claude-code", "Stop", stop, daemon_url=handle.url, env=env)
        assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")

        assert [r.path for r in daemon.requests] == [CHECKPOINT]
        (sent,) = daemon.requests_to(CHECKPOINT, "POST")
        assert sent.json == {
            "harness": "claude-code",
            "sessionKey": SESSION,
            "project": PROJECT,
            "runtimePath": "legacy",
        }
        jobs = daemon.summary_jobs()
        if stored:  # the daemon extracted its own stored transcript
            assert sent.response_json["queued"] is True
            assert [job["transcript"] for job in jobs] == [STORED]
        else:
            assert sent.response_json == {"skipped": True}
            assert jobs == []
    assert outbox_left(5) == []

    said = [line for line in hook_log_lines() if "transcript not sent" in line]
    assert len(said) == 1 and str(path) in said[0], hook_log_lines()
