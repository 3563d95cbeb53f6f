"""Serving the mock on a real socket: ``MockDaemon.serve`` and ``signet-sdk dev-daemon``.

uvicorn (the ``server`` extra) is imported here only, lazily. The socket is
bound before uvicorn starts, so "port already in use" is one clear line and
exit code 2 rather than a traceback, and ``port=0`` can report its port.
"""

from __future__ import annotations

import errno
import ipaddress
import logging
import os
import signal
import socket
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._context import DAEMON_VERSION, ROLE_PERMISSIONS

if TYPE_CHECKING:
    from ._app import MockDaemon

PROG = "signet-sdk dev-daemon"


def _uvicorn() -> Any:
    try:
        import uvicorn
    except ImportError as exc:
        hint = "install the server extra: pip install 'signet-sdk[server]'"
        raise RuntimeError(f"uvicorn is not installed; {hint}") from exc
    return uvicorn


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket, bound before uvicorn runs (raises ``OSError``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on
    # accepted sockets whose proto says TCP. With Nagle on, a response written
    # as head then body waits for the client's delayed ACK: 40 ms per call on
    # every kept-alive connection.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        if os.name != "nt":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def _make_server(daemon: MockDaemon) -> Any:
    uvicorn = _uvicorn()

    class _Server(uvicorn.Server):  # type: ignore[misc, name-defined]
        """Close log streams before uvicorn waits for connections to drain."""

        async def shutdown(self, sockets: Any = None) -> None:
            daemon.close_log_streams()
            await super().shutdown(sockets=sockets)

    settings = {"lifespan": "on", "log_level": "warning", "access_log": False}
    return _Server(uvicorn.Config(daemon, timeout_graceful_shutdown=3, **settings))


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


@dataclass
class ServerHandle:
    """A running mock daemon: its URL, and a way to stop it."""

    url: str
    host: str
    port: int
    daemon: MockDaemon
    _server: Any = field(repr=False)
    _thread: threading.Thread = field(repr=False)
    _sock: socket.socket = field(repr=False)

    def stop(self, timeout: float = 10.0) -> None:
        """Close log streams, ask uvicorn to exit, and wait for the thread."""
        self.daemon.close_log_streams()
        self._server.should_exit = True
        self._thread.join(timeout)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(timeout)
        self._sock.close()
        self.daemon.port = None

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_server(daemon: MockDaemon, host: str, port: int, timeout: float = 10.0) -> ServerHandle:
    """Serve ``daemon`` from a background thread; returns once connections are accepted."""
    sock = _bind(host, port)
    daemon.port = actual = int(sock.getsockname()[1])
    server = _make_server(daemon)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name=f"mock-daemon-{actual}", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive():
            sock.close()
            raise RuntimeError(f"mock daemon failed to start on {host}:{actual}")
        if time.monotonic() > deadline:
            server.should_exit = True
            thread.join(timeout)
            sock.close()
            raise TimeoutError(f"mock daemon did not start within {timeout} s")
        time.sleep(0.005)
    return ServerHandle(_url(host, actual), host, actual, daemon, server, thread, sock)


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/signet-sdk/dev-daemon.sqlite3`` (or under ``~/.local/share``)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(base) / "signet-sdk" / "dev-daemon.sqlite3"


def _tokens(values: list[str]) -> dict[str, str]:
    tokens: dict[str, str] = {}
    for value in values:
        token, sep, role = value.partition("=")
        if not sep or not token or role not in ROLE_PERMISSIONS:
            roles = ", ".join(sorted(ROLE_PERMISSIONS))
            raise ValueError(f"--token {value!r}: expected TOKEN=ROLE with ROLE one of {roles}")
        tokens[token] = role
    return tokens


def serve_from_args(args: Any) -> int:
    """``signet-sdk dev-daemon`` (``args``: ``host``, ``port``, ``db``, ``auth_mode``,
    ``token`` list of ``TOKEN=ROLE``, ``daemon_version`` the release line to answer as):
    serve until interrupted; 2 when the port is taken."""

    def fail(code: int, message: str) -> int:
        sys.stderr.write(f"{PROG}: {message}\n")
        return code

    try:
        tokens = _tokens(list(args.token))
    except ValueError as exc:
        return fail(2, str(exc))
    try:
        loopback = args.host == "localhost" or ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and (args.auth_mode == "local" or not tokens):
        return fail(
            2,
            f"refusing to listen on {args.host} without --auth-mode team and a --token "
            "(anyone who can reach it could read and write the memories)",
        )
    try:
        _uvicorn()
    except RuntimeError as exc:
        return fail(1, str(exc))
    db_path: Path = Path(args.db) if args.db else default_db_path()
    try:
        db_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        return fail(2, f"cannot create {db_path.parent}: {exc.strerror}")
    try:
        sock = _bind(args.host, args.port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return fail(
                2,
                f"port {args.port} on {args.host} is already in use "
                "(is a Signet daemon running? pick another with --port)",
            )
        return fail(2, f"cannot listen on {args.host}:{args.port}: {exc.strerror}")

    from ._app import MockDaemon

    if args.auth_mode != "local" and not tokens:
        fail(0, f"warning: --auth-mode {args.auth_mode} without any --token")
    version = getattr(args, "daemon_version", None) or DAEMON_VERSION
    try:
        daemon = MockDaemon(
            db_path=db_path, auth_mode=args.auth_mode, tokens=tokens, version=version
        )
    except (OSError, sqlite3.Error) as exc:
        # A directory, a file that is not SQLite, one we may not open: the option is wrong.
        sock.close()
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return fail(2, f"--db {db_path}: cannot use it as the SQLite database: {reason}")
    daemon.port = port = int(sock.getsockname()[1])
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    request_log = logging.getLogger("signet_sdk.testing.mock_daemon")
    request_log.addHandler(handler)
    request_log.setLevel(logging.INFO)
    request_log.propagate = False  # one line per request on stderr, nowhere else
    sys.stdout.write(
        f"{PROG}: listening on {_url(args.host, port)} as Signet {version} "
        f"(auth: {args.auth_mode}, db: {db_path}); Ctrl-C to stop\n"
    )
    sys.stdout.flush()
    server = _make_server(daemon)
    if threading.current_thread() is threading.main_thread():
        # uvicorn re-raises the signal that stopped it once it has shut down;
        # turning SIGTERM into KeyboardInterrupt lets both end here cleanly.
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        request_log.removeHandler(handler)
        sock.close()
        daemon.close()
    return fail(0, "stopped")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
