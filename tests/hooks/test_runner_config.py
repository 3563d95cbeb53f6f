"""A hook whose settings cannot all be read: the harness still gets its answer, no write is lost.

A typo in one ``SIGNET_*`` variable must not cost the user's transcripts:
a timeout that cannot be read falls back to its default, and a daemon
address that cannot be read keeps the writes in the outbox until a hook
runs with one that can (no other daemon is guessed at). Off switches and
settings that stop the hook still answer the harness with the plugin's
neutral output, which Cursor needs on every prompt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

from ..fault_support import hook_env, run_hook, session_end_keys

CURSOR_PROMPT = json.dumps(
    {
        "conversation_id": "c1",
        "generation_id": "g1",
        "hook_event_name": "beforeSubmitPrompt",
        "prompt": "hi",
        "workspace_roots": ["/repo"],
    }
).encode()


def _end(session: str) -> bytes:
    return json.dumps(
        {"hook_event_name": "SessionEnd", "session_id": session, "reason": "other"}
    ).encode()


def _log(home: Path) -> str:
    return (home / "state" / "signet-sdk" / "hooks.log").read_text()


@pytest.mark.parametrize(
    "setting",
    [
        {"SIGNET_BYPASS": "1"},
        {"SIGNET_NO_HOOKS": "1"},
        {"SIGNET_TOKEN": "caf\u00e9"},  # a setting that stops the hook
        {"SIGNET_DAEMON_URL": "localhost:3850"},  # no scheme: nothing may be sent
    ],
    ids=["bypass", "no-hooks", "bad-token", "bad-address"],
)
def test_cursor_gets_its_answer_whatever_stops_the_hook(
    tmp_path: Path, setting: dict[str, str]
) -> None:
    done = run_hook(
        hook_env(tmp_path, **setting),
        harness="cursor",
        event="beforeSubmitPrompt",
        payload=CURSOR_PROMPT,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert json.loads(done.stdout) == {"continue": True}


def test_a_timeout_that_cannot_be_read_falls_back_and_the_write_is_sent(
    tmp_path: Path,
) -> None:
    with MockDaemon() as daemon, daemon.serve() as handle:
        env = hook_env(tmp_path, SIGNET_DAEMON_URL=handle.url, SIGNET_FETCH_TIMEOUT="ten")
        done = run_hook(env, event="SessionEnd", payload=_end("s-timeout"))
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        assert session_end_keys(daemon) == ["s-timeout"]
    assert "SIGNET_FETCH_TIMEOUT: must be milliseconds" in _log(tmp_path)
    assert "its default is used" in _log(tmp_path)


def test_an_address_that_cannot_be_read_keeps_the_write_until_it_is_fixed(
    tmp_path: Path,
) -> None:
    with MockDaemon() as daemon, daemon.serve() as handle:
        bad = hook_env(tmp_path, SIGNET_DAEMON_URL=handle.url.removeprefix("http://"))
        done = run_hook(bad, event="SessionEnd", payload=_end("s-held"))
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        assert session_end_keys(daemon, seconds=1.0) == []  # nothing sent, not even to the default
        pending = list((tmp_path / "state" / "signet-sdk" / "outbox").glob("*.json"))
        assert len(pending) == 1 and json.loads(pending[0].read_text())["action"] == "session_end"
        assert "writes are kept in the outbox, nothing is sent" in _log(tmp_path)

        # The next hook, with the address fixed, delivers it.
        fixed = hook_env(tmp_path, SIGNET_DAEMON_URL=handle.url)
        start = b'{"hook_event_name": "SessionStart", "session_id": "s-next", "source": "startup"}'
        assert run_hook(fixed, event="SessionStart", payload=start).returncode == 0
        assert session_end_keys(daemon) == ["s-held"]


def test_a_hook_started_with_stdout_closed_still_keeps_its_write(tmp_path: Path) -> None:
    import os
    import subprocess

    from signet_sdk.testing.hook_process import SIGNET_SDK

    with MockDaemon() as daemon, daemon.serve() as handle:
        env = hook_env(tmp_path, SIGNET_DAEMON_URL=handle.url)
        done = subprocess.run(
            [SIGNET_SDK, "hook", "claude-code", "SessionEnd"],
            input=_end("s-closed"),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: os.close(1),
            timeout=30,
        )
        assert (done.returncode, done.stderr) == (0, b"")
        assert session_end_keys(daemon) == ["s-closed"]


def test_a_transcript_copy_no_entry_names_is_not_left_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    from signet_sdk.hooks import outbox as outbox_module
    from signet_sdk.hooks.outbox import Outbox
    from signet_sdk.runtime.transcripts import TranscriptSnapshot

    real = outbox_module.write_durably

    def full_disk(path: str, data: bytes, **kwargs: object) -> None:
        if str(path).endswith(".json"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, data)

    monkeypatch.setattr(outbox_module, "write_durably", full_disk)
    outbox = Outbox(tmp_path / "outbox")
    snapshot = TranscriptSnapshot(b'{"role":"user"}\n', 16, False)
    with pytest.raises(OSError, match="No space left"):
        outbox.put("session_end", {"sessionKey": "s"}, harness="h", transcript=snapshot)
    assert sorted(p.name for p in (tmp_path / "outbox").iterdir() if not p.is_dir()) == []


def test_an_internal_error_still_gives_cursor_its_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from signet_sdk.hooks import runner
    from signet_sdk.runtime.registry import find_plugin

    def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("a bug past the translator")

    monkeypatch.setattr(runner, "_run", broken)
    monkeypatch.setattr(runner.os, "environ", dict(runner.os.environ))  # SIGNET_NO_HOOKS is set
    plugin = find_plugin("cursor")
    assert plugin is not None
    out = io.BytesIO()
    env = hook_env(tmp_path, SIGNET_DAEMON_URL="http://127.0.0.1:9")
    assert runner.run_hook(plugin, "beforeSubmitPrompt", stdout=out, env=env) == 0
    assert json.loads(out.getvalue()) == {"continue": True}
    assert "internal error, failed open: RuntimeError: a bug past the translator" in _log(tmp_path)


def test_a_payload_behind_a_byte_order_mark_is_read_and_its_write_sent(tmp_path: Path) -> None:
    """A wrapper script (Windows PowerShell's, say) may put a BOM before the JSON."""
    end = b'\xef\xbb\xbf{"hook_event_name": "SessionEnd", "session_id": "s-bom", "reason": "exit"}'
    with MockDaemon() as daemon, daemon.serve() as handle:
        env = hook_env(tmp_path, SIGNET_DAEMON_URL=handle.url)
        done = run_hook(env, event="SessionEnd", payload=end)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        assert session_end_keys(daemon) == ["s-bom"]
