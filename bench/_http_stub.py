"""The HTTP/1.1 stand-in server the benches answer with: keep-alive, Content-Length bodies.

A bench times the client, so the server must cost next to nothing per
request: :class:`KeepAliveResponder` parses only the request line's head,
``Content-Length`` and ``Connection`` (and notices ``Transfer-Encoding``),
then hands each request's head and body to :meth:`~KeepAliveResponder.answer`
and writes back the bytes it returns. That keeps one request at a few
microseconds of server CPU, so what the bench measures is the client.
"""

from __future__ import annotations

import abc
import asyncio

__all__ = ["KeepAliveResponder", "head_record", "http_response"]


def http_response(body: bytes, content_type: str, status: str = "200 OK") -> bytes:
    """A whole response with ``body`` and its length: nothing a client must wait for."""
    head = f"HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


def head_record(head: bytes) -> tuple[str, list[list[str]]]:
    """A request head as its request line and its ``[name, value]`` headers, sorted.

    Names lower-cased, so two clients' requests compare on what they sent,
    not on how they spelled it.
    """
    lines = head.decode("latin-1").split("\r\n")
    headers = sorted(
        [name.strip().lower(), value.strip()]
        for name, _, value in (line.partition(":") for line in lines[1:])
    )
    return lines[0], headers


class KeepAliveResponder(asyncio.Protocol, abc.ABC):
    """One connection: requests in, :meth:`answer`'s bytes out, until the client closes."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None

    @abc.abstractmethod
    def answer(self, head: bytes, body: bytes) -> bytes:
        """The whole response to the request ``head`` (without the blank line) and ``body``."""

    def opened(self) -> None:
        """Called once a connection is made: where a stand-in counts connections."""

    def chunked(self) -> bytes | None:
        """The answer to a chunked request, which then closes; None reads it as bodiless."""
        return None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.opened()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while self.transport is not None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end])
            length, close, chunked = 0, False, False
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"connection":
                    close = value.strip().lower() == b"close"
                elif name == b"transfer-encoding":
                    chunked = True
            refusal = self.chunked() if chunked else None
            if refusal is not None:
                self.transport.write(refusal)
                self.transport.close()
                self.transport = None
                return
            if len(self.buffer) < end + 4 + length:
                return
            body = bytes(self.buffer[end + 4 : end + 4 + length])
            del self.buffer[: end + 4 + length]
            self.transport.write(self.answer(head, body))
            if close:
                self.transport.close()
                self.transport = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
