"""A test server on 127.0.0.1: a free port, a daemon thread, closed by ``close`` or ``with``.

The scripted daemon, the recording proxy and the fake model server all serve
this way; here is the one place that starts a ``ThreadingHTTPServer`` and
stops it again (shutdown, close the socket, join the thread).
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

__all__ = ["LoopbackServer", "QuietHandler"]


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 (kept-alive connections, as harnesses use them) and no access log on stderr."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return


class LoopbackServer:
    """Serves ``handler`` on ``127.0.0.1:<port>`` (a free port) until :meth:`close`."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port: int = self.server.server_address[1]
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
