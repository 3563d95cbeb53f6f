"""``signet-sdk serve`` as a real process: socket, state file, idle exit, SIGTERM drain, logs."""

from __future__ import annotations

import json
import signal
import stat
import threading
import time
from pathlib import Path

import httpx

from signet_sdk.server.discovery import discover

from .server_support import serve_process, stand_in_daemon

CC_PROMPT = {"session_id": "p-1", "cwd": "/srv/atlas", "prompt": "which deploy day?"}


def test_state_file_for_shims_while_running(tmp_path: Path) -> None:
    with stand_in_daemon() as daemon, serve_process(daemon.url, tmp_path) as (proc, url):
        path = tmp_path / "signet-sdk" / "adapter-server.json"
        record = json.loads(path.read_text())
        assert record == {
            "url": url,
            "port": int(url.rsplit(":", 1)[1]),
            "pid": proc.pid,
            "token": None,
        }
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert discover({"XDG_STATE_HOME": str(tmp_path)}) == (url, None)
        explicit = {"SIGNET_ADAPTER_URL": "http://127.0.0.1:1/", "SIGNET_ADAPTER_TOKEN": "t"}
        both = {**explicit, "XDG_STATE_HOME": str(tmp_path)}
        assert discover(both) == ("http://127.0.0.1:1", "t")  # the variable wins
        assert httpx.get(f"{url}/health", timeout=10).json()["status"] == "ok"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert not path.exists()  # removed on exit
        assert discover({"XDG_STATE_HOME": str(tmp_path)}) is None


def test_a_token_goes_to_the_state_file_and_every_request_needs_it(tmp_path: Path) -> None:
    token = "state-file-token-0123456789"
    env = {"SIGNET_ADAPTER_SERVER_TOKEN": token}  # how the shims start one: not in argv
    with stand_in_daemon() as daemon, serve_process(daemon.url, tmp_path, env=env) as (_, url):
        assert discover({"XDG_STATE_HOME": str(tmp_path)}) == (url, token)
        anon = httpx.post(f"{url}/v1/h/lifecycle/recall", json={"query": "q"}, timeout=10)
        assert anon.status_code == 401
        auth = {"authorization": f"Bearer {token}"}
        ok = httpx.post(f"{url}/v1/h/lifecycle/recall", json={"query": "q"}, headers=auth)
        assert ok.status_code == 200


def test_sigterm_with_requests_in_flight_loses_none(tmp_path: Path) -> None:
    results: list[int] = []

    def one(url: str, n: int) -> None:
        if n % 2:
            answer = httpx.post(
                f"{url}/v1/x/lifecycle/user-prompt-submit",
                json={"sessionKey": f"s{n}", "userMessage": "hello"},
                timeout=20,
            )
        else:
            answer = httpx.post(
                f"{url}/v1/claude-code/events/UserPromptSubmit",
                json={**CC_PROMPT, "session_id": f"s{n}"},
                timeout=20,
            )
            assert answer.json()["degraded"] is None
        results.append(answer.status_code)

    with stand_in_daemon(delay=1.0) as daemon, serve_process(daemon.url, tmp_path) as (proc, url):
        threads = [threading.Thread(target=one, args=(url, n)) for n in range(6)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 10
        while daemon.received < 6 and time.monotonic() < deadline:
            time.sleep(0.01)
        # Every request is now waiting on the daemon (it answers after 1 s): stop the server.
        assert daemon.received == 6 and daemon.answered == 0
        proc.send_signal(signal.SIGTERM)
        for t in threads:
            t.join(timeout=20)
        assert proc.wait(timeout=20) == 0
    assert results == [200] * 6
    assert daemon.answered == 6


def test_idle_exit(tmp_path: Path) -> None:
    with (
        stand_in_daemon() as daemon,
        serve_process(daemon.url, tmp_path, "--idle-exit", "1") as (
            proc,
            _,
        ),
    ):
        assert proc.wait(timeout=15) == 0
    assert not (tmp_path / "signet-sdk" / "adapter-server.json").exists()


def test_tokens_never_reach_the_output(tmp_path: Path) -> None:
    server_token = "server-secret-5f1e2d"
    daemon_token = "daemon-secret-9a8b7c"
    env = {"SIGNET_TOKEN": daemon_token, "SIGNET_ADAPTER_SERVER_TOKEN": server_token}
    with (
        stand_in_daemon(status=500) as daemon,
        serve_process(daemon.url, tmp_path, env=env) as (proc, url),
    ):
        auth = {"authorization": f"Bearer {server_token}"}
        for path, body in (
            ("/v1/h/lifecycle/recall", {"query": "q"}),
            ("/v1/claude-code/events/UserPromptSubmit", CC_PROMPT),
            ("/v1/claude-code/events/PostCompact", {**CC_PROMPT, "compact_summary": "s"}),
        ):
            httpx.post(f"{url}{path}", json=body, headers=auth, timeout=20)
        httpx.get(f"{url}/health", headers=auth, timeout=20)
        httpx.get(f"{url}/health", headers={"authorization": "Bearer wrong"}, timeout=20)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    assert daemon.received >= 3
    for secret in (server_token, daemon_token):
        assert secret not in out and secret not in err
    assert "Traceback" not in err


def test_sigterm_finishes_background_deliveries(tmp_path: Path) -> None:
    end = {"session_id": "bye-1", "cwd": "/srv/atlas", "reason": "exit"}
    with stand_in_daemon(delay=1.0) as daemon, serve_process(daemon.url, tmp_path) as (proc, url):
        answer = httpx.post(f"{url}/v1/claude-code/events/SessionEnd", json=end, timeout=20)
        assert answer.status_code == 200 and len(answer.json()["pending"]) == 1
        proc.send_signal(signal.SIGTERM)  # while the write is still on its way
        assert proc.wait(timeout=20) == 0
        assert daemon.paths == ["/api/hooks/session-end"] and daemon.answered == 1
    assert list((tmp_path / "signet-sdk" / "outbox").glob("*.json")) == []
