"""Guards for what fault injection found: deadlines, header values, secrets, file modes.

Each test reproduces one finding against a daemon (the mock, behind a
fault-injecting proxy on 127.0.0.1) or against the files a hook writes.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from signet_sdk import AdapterClient, AsyncAdapterClient, SessionStartParams
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.errors import APITimeoutError, ConfigError
from signet_sdk.wire.lean import LeanClient

from ..fault_support import SIGNET_SDK, FaultProxy, hook_env, run_hook


@pytest.fixture
def upstream() -> Iterator[tuple[str, int]]:
    daemon = MockDaemon()
    with daemon.serve() as handle:
        yield handle.host, handle.port
    daemon.close()


# -- a deadline is a deadline ---------------------------------------------------


@pytest.fixture
def trickle(upstream: tuple[str, int]) -> Iterator[FaultProxy]:
    """The daemon's answer, one byte every 50 ms (an answer of ~300 bytes takes 15 s)."""
    with FaultProxy(upstream, mode="trickle", delay=0.05) as proxy:
        yield proxy


def test_sync_client_deadline_covers_a_trickling_answer(trickle: FaultProxy) -> None:
    client = AdapterClient("h", trickle.url, timeout=1.0, max_retries=0)
    started = time.monotonic()
    with pytest.raises(APITimeoutError):
        client.on_session_start(SessionStartParams(session_key="k-1"))
    assert time.monotonic() - started < 1.6
    client.close()


@pytest.mark.anyio
async def test_async_client_deadline_covers_a_trickling_answer(trickle: FaultProxy) -> None:
    async with AsyncAdapterClient("h", trickle.url, timeout=1.0, max_retries=0) as client:
        started = time.monotonic()
        with pytest.raises(APITimeoutError):
            await client.on_session_start(SessionStartParams(session_key="k-1"))
        assert time.monotonic() - started < 1.6


def test_lean_client_deadline_covers_a_trickling_answer(trickle: FaultProxy) -> None:
    lean = LeanClient(resolve_config(trickle.url, harness="h", max_retries=0, env={}))
    started = time.monotonic()
    with pytest.raises(APITimeoutError):
        lean.call("session_start", {"sessionKey": "k-1"}, timeout=1.0)
    assert time.monotonic() - started < 1.6


# -- header values --------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("agent_id", "agent\r\nX-Evil: 1"),
        ("agent_id", "agént"),
        ("token", "tok\nen"),
        ("token", "tökén"),
        ("actor", "me\r\n"),
        ("actor", "José"),
    ],
)
def test_header_bound_settings_are_refused_naming_the_field(option: str, value: str) -> None:
    # The error names the setting by its option name: the field is the option.
    with pytest.raises(ConfigError) as caught:
        resolve_config("http://127.0.0.1:9", env={}, **{option: value})  # type: ignore[arg-type]
    assert caught.value.field == option


@pytest.mark.parametrize("variable", ["SIGNET_AGENT_ID", "SIGNET_TOKEN"])
def test_hook_with_a_non_ascii_setting_fails_open_and_names_it(
    tmp_path: Path, upstream: tuple[str, int], variable: str
) -> None:
    env = hook_env(
        tmp_path,
        SIGNET_DAEMON_URL=f"http://{upstream[0]}:{upstream[1]}",
        **{variable: "caf\u00e9\r\nX-Injected: 1"},
    )
    done = run_hook(env)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    log = (tmp_path / "state" / "signet-sdk" / "hooks.log").read_text()
    assert f"configuration error, hook skipped: {variable}" in log
    assert "X-Injected" not in log and "caf" not in log  # the value itself is not echoed


# -- secrets ------------------------------------------------------------------


def test_token_is_masked_in_the_config_and_client_repr() -> None:
    config = resolve_config("http://127.0.0.1:9", token="s3cret-token", env={})
    assert "s3cret-token" not in repr(config)
    client = AdapterClient("h", "http://127.0.0.1:9", token="s3cret-token")
    assert "s3cret-token" not in repr(client)
    client.close()


def test_daemon_url_credentials_never_reach_hooks_log(tmp_path: Path) -> None:
    done = run_hook(hook_env(tmp_path, SIGNET_DAEMON_URL="http://alice:hunter2@127.0.0.1:9"))
    assert done.returncode == 0
    log = (tmp_path / "state" / "signet-sdk" / "hooks.log").read_text()
    assert log and "hunter2" not in log and "alice" not in log


# -- files --------------------------------------------------------------------


def test_state_dir_and_files_are_private_even_with_a_permissive_umask(tmp_path: Path) -> None:
    code = (
        "import os\n"
        "os.umask(0)\n"
        "from signet_sdk.hooks.outbox import Outbox\n"
        "from signet_sdk.hooks.process import hook_log\n"
        f"env = {{'XDG_STATE_HOME': {str(tmp_path)!r}}}\n"
        "hook_log('x', env=env)\n"
        f"ob = Outbox({str(tmp_path / 'signet-sdk' / 'outbox')!r}, max_attempts=1)\n"
        "e = ob.put('remember', {'content': 'c'}, harness='h')\n"
        "ob.deliver(e.id, lambda e, b: 1 / 0)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)
    root = tmp_path / "signet-sdk"
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
    assert list((root / "outbox" / "dead").glob("*.reason"))


def test_a_state_directory_swapped_for_a_link_is_not_written_through(tmp_path: Path) -> None:
    """The write still reaches the daemon, sent at once instead of through the outbox."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "signet-sdk").symlink_to(elsewhere, target_is_directory=True)
    payload = b'{"hook_event_name": "SessionEnd", "session_id": "s-link", "reason": "other"}'
    with MockDaemon() as daemon, daemon.serve() as handle:
        env = hook_env(tmp_path, SIGNET_DAEMON_URL=handle.url)
        done = run_hook(env, event="SessionEnd", payload=payload)
        ends = daemon.requests_to("/api/hooks/session-end")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert list(elsewhere.iterdir()) == []
    assert [r.json["sessionKey"] for r in ends] == ["s-link"]


# -- the dev daemon -------------------------------------------------------------


def test_dev_daemon_database_files_are_private(tmp_path: Path) -> None:
    db = tmp_path / "d.sqlite3"
    code = (
        "import os, stat\n"
        "os.umask(0o022)\n"
        "from signet_sdk.testing.mock_daemon import MockDaemon\n"
        f"d = MockDaemon(db_path={str(db)!r})\n"
        "d.memory_count()\n"
        f"folder = {str(tmp_path)!r}\n"
        "for name in sorted(os.listdir(folder)):\n"
        "    print(name, oct(stat.S_IMODE(os.stat(os.path.join(folder, name)).st_mode)))\n"
        "d.close()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    modes = dict(line.split() for line in done.stdout.splitlines())
    assert set(modes) >= {"d.sqlite3", "d.sqlite3-wal", "d.sqlite3-shm"}
    assert set(modes.values()) == {"0o600"}


@pytest.mark.parametrize(
    "argv",
    [
        ["--host", "0.0.0.0"],
        ["--host", "0.0.0.0", "--auth-mode", "team"],
        ["--host", "192.0.2.1", "--auth-mode", "local", "--token", "t=admin"],
    ],
)
def test_dev_daemon_refuses_a_non_loopback_bind_without_a_token(argv: list[str]) -> None:
    done = subprocess.run(
        [SIGNET_SDK, "dev-daemon", "--port", "0", *argv],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "refusing to listen on" in done.stderr and "--token" in done.stderr


def test_directories_created_for_the_outbox_are_all_private(tmp_path: Path) -> None:
    """``os.makedirs`` gives the parents it creates 0755; none of ours may be."""
    from signet_sdk.hooks.outbox import Outbox

    old = os.umask(0o022)
    try:
        Outbox(tmp_path / "a" / "signet-sdk" / "outbox").put("remember", {"content": "c"})
    finally:
        os.umask(old)
    for folder in ("a", "a/signet-sdk", "a/signet-sdk/outbox"):
        assert stat.S_IMODE((tmp_path / folder).stat().st_mode) == 0o700, folder
