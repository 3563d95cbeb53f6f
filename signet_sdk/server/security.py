"""The adapter server's gate: Host check, bearer token, body limit, as one ASGI middleware.

Runs before FastAPI sees a request, so a refused request costs no routing,
no validation and no daemon call. On a shared machine any local user (and
any web page, through DNS rebinding) can reach a loopback port:

* ``Host`` must name the address the server is bound to (or an allowed
  alias); a rebinding page sends its own host name and is refused (421).
  By default the loopback names (``127.0.0.1``, ``localhost``, ``[::1]``)
  on any port are accepted; ``signet-sdk serve`` narrows that to its own
  address and port. A name without a port allows every port.
* With a token, every request needs ``Authorization: Bearer <token>``,
  compared in constant time; without one, only ``/health`` answers, and
  only ``{"status": "ok"}``.
* A body over the limit is refused (413) from its ``Content-Length``, or
  as soon as the bytes received pass the limit.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

__all__ = ["LOOPBACK_HOSTS", "Gate", "split_host"]

#: The Host names a loopback server answers to when no list is given.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def _refuse(
    send: Send, status: int, error: str, extra: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    body = ('{"error":"' + error.replace('"', "'") + '"}').encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Gate:
    """ASGI middleware enforcing the server's security model."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None,
        allowed_hosts: Iterable[str] | None,
        body_limit: int,
        any_ip: bool = False,
    ) -> None:
        self.app = app
        self._token = None if token is None else token.encode()
        hosts = LOOPBACK_HOSTS if allowed_hosts is None else tuple(allowed_hosts)
        #: "*" (or an empty list) turns the check off, for a server behind your own front.
        self._check_host = bool(hosts) and "*" not in hosts
        self._exact = {h.lower() for h in hosts if split_host(h)[1] is not None}
        self._any_port = {h.lower() for h in hosts if split_host(h)[1] is None}
        #: A wildcard bind answers to any IP literal: rebinding always sends a DNS name.
        self._any_ip = any_ip
        self.body_limit = body_limit

    def host_allowed(self, host: str) -> bool:
        if not self._check_host or host in self._exact:
            return True
        name, _ = split_host(host)
        if name in self._any_port:
            return True
        return self._any_ip and _is_ip(name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[bytes, bytes] = {}
        for name, value in scope.get("headers", ()):
            headers.setdefault(name.lower(), value)
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if not self.host_allowed(host):
            await _refuse(send, 421, "unexpected Host header; this server answers its own address")
            return
        if self._token is not None:
            given = _bearer(headers.get(b"authorization", b""))
            if not given or not hmac.compare_digest(given, self._token):
                if scope.get("path") == "/health" and scope.get("method") in ("GET", "HEAD"):
                    await _refuse_health(send)
                    return
                await _refuse(
                    send, 401, "missing or wrong bearer token", [(b"www-authenticate", b"Bearer")]
                )
                return
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.body_limit:
            await _refuse(send, 413, f"request body over {self.body_limit} bytes")
            return
        await self._limited(scope, receive, send)

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body up to the limit before the app sees it; 413 past the limit."""
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.body_limit:
                await _refuse(send, 413, f"request body over {self.body_limit} bytes")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def split_host(value: str) -> tuple[str, str | None]:
    """``host[:port]`` (``[v6]:port`` too) -> (host, port or None)."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return value, None
        rest = value[end + 1 :]
        return value[: end + 1], rest[1:] if rest.startswith(":") else None
    name, colon, port = value.rpartition(":")
    if not colon or ":" in name:
        return value, None
    return name, port


def _is_ip(name: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(name[1:-1] if name.startswith("[") else name)
    except ValueError:
        return False
    return True


async def _refuse_health(send: Send) -> None:
    body = b'{"status":"ok"}'
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _bearer(authorization: bytes) -> bytes:
    """The credentials of a ``Bearer`` authorization (its scheme in any case), else ``b""``.

    RFC 9110 makes the scheme case-insensitive, so ``bearer`` is accepted as
    clients send it; the token itself is compared exactly.
    """
    scheme, _, credentials = authorization.partition(b" ")
    return credentials.strip(b" ") if scheme.lower() == b"bearer" else b""
