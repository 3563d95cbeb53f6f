"""The sync client's deadline across reads: httpx's timeouts bound each read, not a call.

:class:`~signet_sdk.client.io.HttpxIO` sets :data:`DEADLINE` for the call
its thread is making; the network backend here cuts every connect, read and
write of that call to what is left of it, and raises httpcore's own timeout
once nothing is, which httpx turns into its ``TimeoutException`` as usual.
So a daemon that sends its answer a byte at a time, its head slowly, a body
that never ends or nothing more after a few bytes cannot hold a call past
its deadline.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ssl
    from collections.abc import Iterable

    import httpx

__all__ = ["DEADLINE", "deadline_transport"]


class Deadline(threading.local):
    """The deadline (``time.monotonic()``) of the call this thread is making, if any."""

    at: float | None = None


DEADLINE = Deadline()


def _within(timeout: float | None, error: type[Exception]) -> float | None:
    """``timeout`` cut to what is left of this thread's call; ``error`` once nothing is."""
    at = DEADLINE.at
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise error("the call's deadline passed")
    return left if timeout is None or timeout > left else timeout


def deadline_transport(limits: httpx.Limits) -> httpx.HTTPTransport:
    """httpx's own connection pool (``limits``) on a network backend that keeps the deadline."""
    import httpcore
    import httpx

    class DeadlineStream(httpcore.NetworkStream):
        def __init__(self, inner: httpcore.NetworkStream) -> None:
            self.inner = inner

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self.inner.read(max_bytes, _within(timeout, httpcore.ReadTimeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self.inner.write(buffer, _within(timeout, httpcore.WriteTimeout))

        def close(self) -> None:
            self.inner.close()

        def start_tls(
            self,
            ssl_context: ssl.SSLContext,
            server_hostname: str | None = None,
            timeout: float | None = None,
        ) -> httpcore.NetworkStream:
            within = _within(timeout, httpcore.ConnectTimeout)
            return DeadlineStream(self.inner.start_tls(ssl_context, server_hostname, within))

        def get_extra_info(self, info: str) -> Any:
            return self.inner.get_extra_info(info)

    class DeadlineBackend(httpcore.NetworkBackend):
        def __init__(self) -> None:
            self.inner = httpcore.SyncBackend()

        def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore.NetworkStream:
            within = _within(timeout, httpcore.ConnectTimeout)
            stream = self.inner.connect_tcp(host, port, within, local_address, socket_options)
            return DeadlineStream(stream)

        def connect_unix_socket(
            self,
            path: str,
            timeout: float | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore.NetworkStream:
            within = _within(timeout, httpcore.ConnectTimeout)
            return DeadlineStream(self.inner.connect_unix_socket(path, within, socket_options))

        def sleep(self, seconds: float) -> None:
            self.inner.sleep(seconds)

    class DeadlineTransport(httpx.HTTPTransport):
        def __init__(self) -> None:  # httpx's own pool, on the backend above
            self._pool = httpcore.ConnectionPool(
                ssl_context=httpx.create_ssl_context(),
                max_connections=limits.max_connections,
                max_keepalive_connections=limits.max_keepalive_connections,
                keepalive_expiry=limits.keepalive_expiry,
                network_backend=DeadlineBackend(),
            )

    return DeadlineTransport()
