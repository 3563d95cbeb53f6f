"""The few URL operations the SDK needs, without importing ``urllib.parse``.

Hook processes pay for every import; ``urllib.parse`` (and the ``ipaddress``
module it loads) costs more than these few functions, which only ever see
origins like ``http://127.0.0.1:3850`` and the SDK's own paths and queries.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["Origin", "parse_origin", "quote", "urlencode"]

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def quote(value: str, *, plus: bool = False) -> str:
    """Percent-encode everything but RFC 3986 unreserved characters (UTF-8)."""
    out = []
    for byte in value.encode("utf-8"):
        if byte in _UNRESERVED:
            out.append(chr(byte))
        elif plus and byte == 0x20:
            out.append("+")
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


def urlencode(pairs: Iterable[tuple[str, str]]) -> str:
    """A form-encoded query string, as ``urllib.parse.urlencode`` writes it."""
    return "&".join(f"{quote(k, plus=True)}={quote(v, plus=True)}" for k, v in pairs)


class Origin:
    """``scheme://host:port`` taken apart: what a connection needs."""

    __slots__ = ("host", "netloc", "port", "scheme")

    def __init__(self, scheme: str, host: str, port: int, netloc: str) -> None:
        self.scheme = scheme
        self.host = host
        self.port = port
        self.netloc = netloc

    def __str__(self) -> str:
        return f"{self.scheme}://{self.netloc}"


def parse_origin(url: str) -> Origin:
    """Parse an ``http(s)://host[:port][/]`` origin; ValueError says what is wrong."""
    scheme, sep, rest = url.strip().partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ("http", "https"):
        raise ValueError("expected an http(s) origin")
    netloc = rest[:-1] if rest.endswith("/") else rest
    if any(c in netloc for c in "/?#"):
        raise ValueError("must be an origin without path or query")
    if "@" in netloc:
        raise ValueError("must not carry credentials")
    if netloc.startswith("["):
        end = netloc.find("]")
        if end < 0:
            raise ValueError("unclosed IPv6 bracket")
        host, tail = netloc[1:end], netloc[end + 1 :]
        if tail and not tail.startswith(":"):
            raise ValueError("unexpected text after the IPv6 address")
        port_text = tail[1:]
    else:
        host, _, port_text = netloc.partition(":")
    if not host:
        raise ValueError("has no host")
    default = 443 if scheme == "https" else 80
    if port_text:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ValueError(f"bad port {port_text!r}")
        port = int(port_text)
    else:
        port = default
    return Origin(scheme, host, port, netloc)
