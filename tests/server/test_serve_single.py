"""One adapter server per state directory, and a background one never outlives its state file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .server_support import serve_process, stand_in_daemon

#: "Within seconds": the server checks its state file every second, then drains.
EXITS_WITHIN = 8.0


def _state(tmp_path: Path) -> Path:
    return tmp_path / "signet-sdk" / "adapter-server.json"


def test_a_second_server_for_the_same_state_directory_exits_at_once(tmp_path: Path) -> None:
    with stand_in_daemon() as daemon, serve_process(daemon.url, tmp_path) as (first, url):
        started = time.monotonic()
        second = subprocess.run(
            [sys.executable, "-m", "signet_sdk.server", "--port", "0", "--idle-exit", "900"],
            env={"XDG_STATE_HOME": str(tmp_path), "SIGNET_DAEMON_URL": daemon.url},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert time.monotonic() - started < EXITS_WITHIN
        assert second.returncode == 1
        assert f"another server (pid {first.pid}) already serves" in second.stderr
        assert second.stdout == ""  # it never listened
        assert json.loads(_state(tmp_path).read_text())["url"] == url
        assert first.poll() is None  # the first keeps serving


def _exits_in_time(proc: subprocess.Popen[str]) -> tuple[float, str]:
    started = time.monotonic()
    proc.wait(timeout=60)
    took = time.monotonic() - started
    assert proc.stderr is not None
    return took, proc.stderr.read()


def test_a_background_server_exits_once_its_state_directory_is_gone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with (
        stand_in_daemon() as daemon,
        serve_process(daemon.url, home, "--idle-exit", "900") as (proc, _),
    ):
        shutil.rmtree(home)  # a temporary HOME removed under a running server
        took, err = _exits_in_time(proc)
    assert took < EXITS_WITHIN, took
    assert proc.returncode == 0
    assert "the state file is gone, exiting" in err


def test_a_background_server_exits_once_its_state_file_names_another(tmp_path: Path) -> None:
    with (
        stand_in_daemon() as daemon,
        serve_process(daemon.url, tmp_path, "--idle-exit", "900") as (proc, _),
    ):
        state = _state(tmp_path)
        record = json.loads(state.read_text())
        state.write_text(json.dumps({**record, "pid": 1, "url": "http://127.0.0.1:1"}))
        took, err = _exits_in_time(proc)
        assert json.loads(state.read_text())["pid"] == 1  # not its file to remove
    assert took < EXITS_WITHIN, took
    assert "names another server (pid 1), exiting" in err


def test_a_server_started_by_hand_keeps_serving_without_its_state_file(tmp_path: Path) -> None:
    with stand_in_daemon() as daemon, serve_process(daemon.url, tmp_path) as (proc, _):
        _state(tmp_path).unlink()
        time.sleep(2.5)
        assert proc.poll() is None  # no --idle-exit: reached by its URL, not only the file
