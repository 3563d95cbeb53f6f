"""A standard-library client for processes that start per event (harness hooks).

Importing httpx and pydantic costs a hook process more time than the daemon
call itself, so hooks send plain dicts over a bare socket here. Requests
are built and answers judged by the same sans-I/O core as the full clients,
and retried under the same rules.
"""

from __future__ import annotations

import _socket
import time

from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.errors import APIConnectionError, APITimeoutError, NotSentError, SignetError
from signet_sdk.wire.request import PreparedRequest, build_request, judge_response
from signet_sdk.wire.retry import CallBudget, RetryPolicy
from signet_sdk.wire.url import Origin, parse_origin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from signet_sdk.wire.config import ClientConfig

__all__ = ["LeanClient", "send_prepared"]

#: Answers larger than this are not a hook's JSON: refuse (and fail open) rather than
#: buffer them or hand them to a harness as context.
MAX_RESPONSE_BYTES = 16 * 1024 * 1024


class _Malformed(Exception):
    """The peer's bytes are not an HTTP/1.1 response."""


def _open(host: str, port: int, timeout: float | None) -> Any:
    """A connected TCP socket, trying each address of ``host`` in turn.

    The C module ``_socket`` directly: ``socket``'s Python layer imports
    ``enum`` and ``selectors``, milliseconds on every hook. An ASCII host is
    passed as bytes, so resolving it does not load the idna codec either.
    """
    address: str | bytes = host.encode("ascii") if host.isascii() else host
    last: OSError = OSError(f"no address found for {host}")
    for family, kind, proto, _, where in _socket.getaddrinfo(address, port, 0, _socket.SOCK_STREAM):
        sock = _socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(where)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
    raise last


def _connect(request: PreparedRequest, origin: Origin, timeout: float | None) -> Any:
    host = origin.host
    try:
        sock = _open(host, origin.port, timeout)
    except OSError as exc:  # refused, unreachable, or no connection within the deadline
        raise NotSentError(
            f"cannot connect to the Signet daemon at {request.url}: {exc}",
            method=request.method,
            url=request.url,
        ) from exc
    if origin.scheme == "https":
        import socket  # only remote daemons pay for TLS (and the full socket layer)
        import ssl

        wrapped = socket.socket(fileno=sock.detach())
        try:
            sock = ssl.create_default_context().wrap_socket(wrapped, server_hostname=host)
        except OSError as exc:
            wrapped.close()
            raise NotSentError(
                f"TLS handshake failed: {request.url}: {exc}",
                method=request.method,
                url=request.url,
            ) from exc
    return sock


def _head(request: PreparedRequest, netloc: str) -> bytes:
    lines = [f"{request.method} {request.target} HTTP/1.1", f"Host: {netloc}"]
    lines.append("Connection: close")
    lines += [f"{k}: {v}" for k, v in request.headers.items()]
    if request.content is not None or request.method in ("POST", "PATCH", "PUT"):
        lines.append(f"Content-Length: {len(request.content or b'')}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class _Reader:
    """Reads one HTTP/1.1 response off a socket, every read bounded by the deadline."""

    def __init__(self, sock: Any, deadline: float | None) -> None:
        self.sock = sock
        self.deadline = deadline
        # A bytearray grows and is consumed from the front in amortised O(1);
        # ``bytes += chunk`` made a large answer cost quadratic time.
        self.buf = bytearray()
        self.eof = False

    def _fill(self) -> None:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("deadline passed")
            self.sock.settimeout(left)
        chunk = self.sock.recv(65536)
        if not chunk:
            self.eof = True
        self.buf += chunk
        if len(self.buf) > MAX_RESPONSE_BYTES:
            raise _Malformed("response too large")

    def until(self, marker: bytes) -> bytes:
        start = 0
        while (found := self.buf.find(marker, start)) < 0:
            if self.eof:
                raise _Malformed("connection closed mid-response")
            start = max(0, len(self.buf) - len(marker) + 1)  # never rescan what was seen
            self._fill()
        head = bytes(self.buf[:found])
        del self.buf[: found + len(marker)]
        return head

    def exactly(self, n: int) -> bytes:
        if n > MAX_RESPONSE_BYTES:
            raise _Malformed("response too large")
        while len(self.buf) < n:
            if self.eof:
                raise _Malformed("connection closed mid-body")
            self._fill()
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def rest(self) -> bytes:
        while not self.eof:
            self._fill()
        out = bytes(self.buf)
        self.buf.clear()
        return out

    def response(self, method: str) -> tuple[int, dict[str, str], bytes]:
        head = self.until(b"\r\n\r\n").decode("latin-1")
        status_line, *header_lines = head.split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise _Malformed(f"bad status line {status_line[:60]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        for line in header_lines:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return status, headers, b""
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return status, headers, self._chunked()
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                raise _Malformed(f"bad content-length {length!r}")
            return status, headers, self.exactly(int(length))
        return status, headers, self.rest()

    def _chunked(self) -> bytes:
        body = bytearray()
        while True:
            size_line = self.until(b"\r\n").split(b";", 1)[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                raise _Malformed(f"bad chunk size {size_line[:20]!r}") from None
            if size == 0:
                self.until(b"\r\n")  # trailers are not used by the daemon
                return bytes(body)
            body += self.exactly(size)
            if len(body) > MAX_RESPONSE_BYTES:
                raise _Malformed("response too large")
            self.exactly(2)


def send_prepared(request: PreparedRequest, timeout: float | None) -> Any:
    """One attempt over a fresh connection; returns the decoded 2xx body.

    A minimal HTTP/1.1 exchange over a socket (``Connection: close``): the
    standard library's ``http.client`` drags in the ``email`` package, which
    alone costs a hook process more start-up time than the daemon call.
    """
    origin = parse_origin(request.url[: len(request.url) - len(request.target)])
    deadline = None if timeout is None else time.monotonic() + timeout
    sock = _connect(request, origin, timeout)
    kw = {"method": request.method, "url": request.url}
    try:
        try:
            if deadline is not None:  # the connect took part of it; sending gets the rest
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
            sock.sendall(_head(request, origin.netloc) + (request.content or b""))
            status, headers, data = _Reader(sock, deadline).response(request.method)
        except TimeoutError as exc:
            raise APITimeoutError(
                f"no answer within {timeout}s: {request.method} {request.url}", **kw
            ) from exc
        except (OSError, _Malformed) as exc:
            raise APIConnectionError(
                f"connection failed: {request.method} {request.url}: {exc}", **kw
            ) from exc
    finally:
        sock.close()
    return judge_response(request, status, headers, data)


class LeanClient:
    """Calls endpoints by name with dict bodies; no third-party imports."""

    def __init__(self, config: ClientConfig, policy: RetryPolicy | None = None) -> None:
        self.config = config
        self.policy = policy or RetryPolicy(max_retries=config.max_retries)

    def call(
        self,
        name: str,
        body: Mapping[str, Any] | None = None,
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Any:
        request = build_request(
            self.config,
            endpoint(name),
            body=body,
            path_params=path_params,
            query=query,
            timeout=timeout,
        )
        budget = CallBudget(self.policy, request.timeout, time.monotonic)
        while True:
            try:
                return send_prepared(request, budget.attempt_timeout())
            except SignetError as exc:
                time.sleep(budget.next_delay(request.endpoint, exc))
