"""Bad options and unusable daemons: one line naming the problem, exit 2 (usage) or 1, no traceback.

Each case is one an exploratory tester met as a traceback (or minutes of
silence): a port out of range, a ``--db`` that is not a database, a
``--daemon-url`` that is not a URL, is down, hangs or is another server.
"""

from __future__ import annotations

import http.server
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from signet_sdk.cli import commands
from signet_sdk.cli import main as cli_main


def _usage_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run ``argv`` in process; assert exit 2 with nothing on stdout; the last stderr line."""
    assert cli_main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("usage: ")
    return err.splitlines()[-1]


@pytest.mark.parametrize("command", ["serve", "dev-daemon"])
@pytest.mark.parametrize("port", ["99999", "-1", "65536"])
def test_a_port_out_of_range_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], command: str, port: str
) -> None:
    assert _usage_error(capsys, [command, "--port", port]) == (
        f"signet-sdk {command}: error: argument --port: must be 0-65535, not {port}"
    )


def test_a_port_that_is_no_number_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert _usage_error(capsys, ["serve", "--port", "x"]) == (
        "signet-sdk serve: error: argument --port: not a port number: 'x'"
    )


@pytest.mark.parametrize("seconds", ["-5", "nan"])
def test_idle_exit_below_zero_or_nan_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], seconds: str
) -> None:
    assert _usage_error(capsys, ["serve", "--port", "0", "--idle-exit", seconds]) == (
        f"signet-sdk serve: error: argument --idle-exit: must be 0 or more seconds, not {seconds}"
    )


def test_dev_daemon_refuses_a_db_that_is_not_a_database(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 100)
    assert cli_main(["dev-daemon", "--port", "0", "--db", str(text)]) == 2
    assert capsys.readouterr() == (
        "",
        f"signet-sdk dev-daemon: --db {text}: cannot use it as the SQLite database: "
        "file is not a database\n",
    )
    assert text.read_text() == "not a database\n" * 100  # left as it was


def test_dev_daemon_refuses_a_db_that_is_a_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert cli_main(["dev-daemon", "--port", "0", "--db", str(tmp_path)]) == 2
    assert capsys.readouterr() == (
        "",
        f"signet-sdk dev-daemon: --db {tmp_path}: cannot use it as the SQLite database: "
        "Is a directory\n",
    )


@pytest.mark.parametrize("command", ["demo", "parity"])
def test_a_daemon_url_that_is_no_url_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert cli_main([command, "--daemon-url", "localhost"]) == 2
    assert capsys.readouterr() == (
        "",
        f"signet-sdk {command}: --daemon-url: expected an http(s) origin: expected an http(s) "
        "origin like http://127.0.0.1:3850, got 'localhost'\n",
    )


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("command", ["demo", "parity"])
def test_a_daemon_that_is_down_stops_at_once(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    assert cli_main([command, "--daemon-url", url]) == 1
    assert capsys.readouterr() == (
        "",
        f"signet-sdk {command}: no Signet daemon answers at {url} (--daemon-url): "
        f"cannot connect to the Signet daemon at {url}/health: [Errno 111] Connection refused\n",
    )


def test_demo_names_the_variable_when_the_url_comes_from_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNET_DAEMON_URL", "localhost")
    assert cli_main(["demo"]) == 2
    assert capsys.readouterr()[1].startswith("signet-sdk demo: SIGNET_DAEMON_URL: expected an")


def test_parity_against_a_daemon_that_never_answers_stops_after_its_health_deadline(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It used to wait out every vector's timeout: minutes without a line of output."""
    monkeypatch.setattr(commands, "HEALTH_SECONDS", 0.5)
    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        assert cli_main(["parity", "--daemon-url", url]) == 1
    assert capsys.readouterr() == (
        "",
        f"signet-sdk parity: no Signet daemon answers at {url} (--daemon-url): "
        f"no answer within 0.5s: GET {url}/health\n",
    )


class _Answers(http.server.BaseHTTPRequestHandler):
    """``/health`` as a daemon answers it (when ``healthy``), 500 (or 404) for the rest."""

    healthy = True

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path == "/health" and self.healthy:
            status, body = 200, b'{"status": "healthy", "version": "0.145.0"}'
        elif self.healthy:
            status, body = 500, b'{"error": "disk full"}'
        else:
            status, body = 404, b"<html>File not found</html>"
        self.send_response(status)
        self.send_header("content-type", "application/json" if self.healthy else "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PATCH = do_DELETE = _answer

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _server(healthy: bool) -> Iterator[str]:
    handler = type("Handler", (_Answers,), {"healthy": healthy})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.parametrize("command", ["demo", "parity"])
def test_another_server_at_the_url_is_not_taken_for_a_daemon(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    with _server(healthy=False) as url:
        assert cli_main([command, "--daemon-url", url]) == 1
    assert capsys.readouterr() == (
        "",
        f"signet-sdk {command}: {url} (--daemon-url) answered GET /health with 404: "
        "is it a Signet daemon?\n",
    )


@pytest.mark.parametrize("named_by", ["flag", "variable"])
def test_demo_stops_with_one_line_when_the_daemon_fails_mid_story(
    tmp_path: Path, home: dict[str, str], named_by: str
) -> None:
    """One line, naming the daemon the demo checked, whether the flag or the variable named it.

    With a blank ``--daemon-url`` the choice is ``SIGNET_DAEMON_URL``'s in every
    part: the check once took the variable's daemon while the story took a
    bundled one and the closing parity run the blank flag as its URL.
    """
    with _server(healthy=True) as url:
        flag, variable = (url, {}) if named_by == "flag" else (" ", {"SIGNET_DAEMON_URL": url})
        proc = subprocess.run(
            [sys.executable, "-m", "signet_sdk", "demo", "--daemon-url", flag],
            capture_output=True,
            text=True,
            env={**home, "SIGNET_MAX_RETRIES": "0", **variable},
            timeout=300,
        )
    assert proc.returncode == 1
    assert proc.stderr == (
        f"signet-sdk demo: a call to the daemon at {url} failed: "
        f"POST {url}/api/hooks/remember -> 500: disk full\n"
    )
    assert proc.stdout.startswith(f"daemon: {url}\n\n== generic")


@pytest.mark.parametrize(
    ("flag", "variable", "chosen"),
    [
        ("http://127.0.0.1:1", "http://127.0.0.1:2", ("http://127.0.0.1:1", "--daemon-url")),
        (" http://127.0.0.1:1 ", "", ("http://127.0.0.1:1", "--daemon-url")),
        (None, " http://127.0.0.1:2", ("http://127.0.0.1:2", "SIGNET_DAEMON_URL")),
        (" ", "http://127.0.0.1:2", ("http://127.0.0.1:2", "SIGNET_DAEMON_URL")),
        ("", " ", None),
        (None, None, None),
    ],
)
def test_one_function_chooses_the_daemon(
    monkeypatch: pytest.MonkeyPatch, flag: str | None, variable: str | None, chosen: object
) -> None:
    if variable is None:
        monkeypatch.delenv("SIGNET_DAEMON_URL", raising=False)
    else:
        monkeypatch.setenv("SIGNET_DAEMON_URL", variable)
    assert commands.given_daemon(flag) == chosen
    assert commands.given_daemon(flag, variable=False) == (
        chosen if chosen is None or chosen[1] == "--daemon-url" else None
    )


@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_an_install_names_a_timeout_it_cannot_read_in_one_line(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    verb: str,
) -> None:
    """Cursor's installer writes the hook timeouts: ``SIGNET_FETCH_TIMEOUT=abc`` was a traceback."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("SIGNET_FETCH_TIMEOUT", "abc")
    assert cli_main([verb, "cursor", "--dry-run"]) == 1
    assert capsys.readouterr() == (
        "",
        f"signet-sdk {verb} cursor: SIGNET_FETCH_TIMEOUT: must be milliseconds, got 'abc'\n",
    )
    assert list(tmp_path.iterdir()) == []
