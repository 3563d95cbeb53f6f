"""Serving on a real socket: ``MockDaemon.serve`` and the ``dev-daemon`` entry point."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from signet_sdk.cli import main as cli_main
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.testing.mock_daemon._serve import default_db_path

from ...daemon_support import wait_for_health


def test_serve_on_a_free_port_and_always_stop() -> None:
    daemon = MockDaemon(version="0.109")
    with daemon.serve() as server:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", server.url)
        assert server.port > 0
        with httpx.Client(base_url=server.url, timeout=5) as client:
            health = client.get("/health").json()
            assert (health["status"], health["port"]) == ("healthy", server.port)
            r = client.post(
                "/api/hooks/session-start",
                json={"harness": "h", "sessionKey": "s1"},
                headers={"x-signet-runtime-path": "plugin"},
            )
            assert r.status_code == 200
            r = client.post(
                "/api/hooks/session-start",
                json={"harness": "h", "sessionKey": "s1"},
                headers={"x-signet-runtime-path": "legacy"},
            )
            assert (r.status_code, r.json()) == (409, {"error": "session claimed by plugin path"})
            assert client.get("/nope").text == "404 Not Found"
        assert [r.status for r in daemon.requests] == [200, 200, 409, 404]
        port = server.port
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
    daemon.close()


def test_serve_stops_even_when_the_body_raises() -> None:
    daemon = MockDaemon(version="0.109")
    with pytest.raises(RuntimeError, match="boom"), daemon.serve() as server:
        url = server.url
        raise RuntimeError("boom")
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/health", timeout=2)
    daemon.close()


def test_memories_persist_across_restarts_but_claims_do_not(tmp_path: Path) -> None:
    db = tmp_path / "dev.sqlite3"
    first = MockDaemon(version="0.109", db_path=db)
    with first.serve() as server, httpx.Client(base_url=server.url, timeout=5) as client:
        client.post("/api/memory/remember", json={"content": "The staging cluster is eu-west-1"})
        client.post(
            "/api/hooks/session-start",
            json={"harness": "h", "sessionKey": "s1"},
            headers={"x-signet-runtime-path": "plugin"},
        )
    first.close()
    second = MockDaemon(version="0.109", db_path=db)
    with second.serve() as server, httpx.Client(base_url=server.url, timeout=5) as client:
        hits = client.post("/api/memory/recall", json={"query": "staging cluster"}).json()
        assert [h["content"] for h in hits["results"]] == ["The staging cluster is eu-west-1"]
        r = client.post(
            "/api/hooks/user-prompt-submit",
            json={"harness": "h", "sessionKey": "s1", "userMessage": "hello"},
        )
        assert r.json()["sessionKnown"] is False  # claims live in memory only
    second.close()


def test_cli_refuses_a_taken_port(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code = cli_main(["dev-daemon", "--port", str(port), "--db", str(tmp_path / "d.sqlite3")])
    assert code == 2
    err = capsys.readouterr().err
    assert err == (
        f"signet-sdk dev-daemon: port {port} on 127.0.0.1 is already in use "
        "(is a Signet daemon running? pick another with --port)\n"
    )


def test_cli_rejects_a_malformed_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["dev-daemon", "--token", "no-role-here"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("signet-sdk dev-daemon: --token 'no-role-here': expected TOKEN=ROLE")


def test_default_db_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "signet-sdk" / "dev-daemon.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_db_path() == Path.home() / ".local/share/signet-sdk/dev-daemon.sqlite3"


def test_cli_serves_until_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite3"
    code = (
        "import sys; from signet_sdk.cli import main; "
        f"sys.exit(main(['dev-daemon', '--port', '0', '--db', {str(db)!r}]))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        match = re.search(
            r"listening on (http://127\.0\.0\.1:\d+) as Signet 0\.145 \(auth: local, db: (.+)\)",
            banner,
        )
        assert match, banner
        assert match.group(2) == str(db)
        url = match.group(1)
        wait_for_health(url, attempts=100)
        r = httpx.post(f"{url}/api/memory/remember", json={"content": "cli fact"}, timeout=5)
        assert r.status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert out == ""  # nothing on stdout after the banner
    assert '"POST /api/memory/remember" 200' in err
    assert err.endswith("signet-sdk dev-daemon: stopped\n")
    assert "Traceback" not in err
    assert db.exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_cli_stops_cleanly_on_signals(tmp_path: Path, sig: signal.Signals) -> None:
    code = (
        "import sys; from signet_sdk.cli import main; "
        f"sys.exit(main(['dev-daemon', '--port', '0', '--db', {str(tmp_path / 'x.sqlite3')!r}]))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        url = re.search(r"(http://\S+)", proc.stdout.readline()).group(1)  # type: ignore[union-attr]
        with (
            httpx.Client(timeout=5) as client,
            client.stream("GET", f"{url}/api/logs/stream") as stream,
        ):
            assert next(stream.iter_lines()) == 'data: {"type":"connected"}'
            proc.send_signal(sig)  # an open stream must not hold the shutdown up
            proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)
    assert proc.returncode == 0


def test_kept_alive_connections_have_nagle_off() -> None:
    """A response written as head then body must not wait for a delayed ACK (40 ms a call)."""
    daemon = MockDaemon(version="0.109")
    with daemon.serve() as server, httpx.Client(base_url=server.url, timeout=5) as client:
        for _ in range(2):  # the second request rides the kept-alive connection
            assert client.get("/health").status_code == 200
        connections = list(server._server.server_state.connections)
        assert connections
        for protocol in connections:
            sock = protocol.transport.get_extra_info("socket")
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    daemon.close()


def test_cli_refuses_an_open_bind_without_a_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["dev-daemon", "--host", "0.0.0.0", "--port", "0"]) == 2
    assert "refusing to listen on 0.0.0.0" in capsys.readouterr().err
