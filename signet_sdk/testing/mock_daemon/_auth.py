"""Auth modes, bearer parsing and role permissions, as TS 0.109 applies them.

The real daemon verifies HMAC-signed tokens. The mock keeps a plain table of
token -> role instead: the SDK treats tokens as opaque strings, so what it
needs from a mock is the same statuses, bodies and headers for a missing,
unknown or under-privileged token, in the same order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

AuthMode = Literal["local", "team", "hybrid"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})

_ALL = (
    "remember",
    "recall",
    "modify",
    "forget",
    "recover",
    "admin",
    "documents",
    "connectors",
    "diagnostics",
    "analytics",
)

ROLE_PERMISSIONS: Mapping[str, frozenset[str]] = {
    "admin": frozenset(_ALL),
    "operator": frozenset(p for p in _ALL if p != "admin"),
    "agent": frozenset({"remember", "recall", "modify", "forget", "recover", "documents"}),
    "readonly": frozenset({"recall"}),
}


def parse_bearer(header: str | None) -> str | None:
    """The token of ``Authorization: Bearer <token>``; anything else is "no token".

    The daemon splits on a single space and wants exactly two parts with a
    case-sensitive ``Bearer``: ``bearer x`` or ``Bearer  x`` count as absent.
    """
    if not header:
        return None
    parts = header.split(" ")
    if len(parts) != 2 or parts[0] != "Bearer" or not parts[1]:
        return None
    return parts[1]


@dataclass(frozen=True, slots=True)
class AuthOutcome:
    """What the global middleware decided: a 401 message, or the caller's role."""

    error: str | None
    role: str | None
    loopback: bool


class AuthPolicy:
    """The global auth middleware plus ``requirePermission`` for one mode."""

    def __init__(self, mode: AuthMode, tokens: Mapping[str, str] | None) -> None:
        if mode not in ("local", "team", "hybrid"):
            raise ValueError(f"auth_mode must be local, team or hybrid, not {mode!r}")
        table = dict(tokens or {})
        for token, role in table.items():
            if role not in ROLE_PERMISSIONS:
                raise ValueError(
                    f"token {token[:4]}…: unknown role {role!r}; "
                    f"known: {', '.join(sorted(ROLE_PERMISSIONS))}"
                )
        self.mode: AuthMode = mode
        self._tokens = table

    def add_token(self, token: str, role: str) -> None:
        """Accept one more token (tests mint tokens as they go)."""
        if role not in ROLE_PERMISSIONS:
            raise ValueError(f"unknown role {role!r}")
        self._tokens[token] = role

    def authenticate(self, authorization: str | None, client_host: str | None) -> AuthOutcome:
        """Run the global middleware for one request (every path, ``/health`` too)."""
        loopback = client_host in LOOPBACK_HOSTS
        if self.mode == "local":
            return AuthOutcome(None, None, loopback)
        token = parse_bearer(authorization)
        if self.mode == "hybrid" and loopback:
            # Loopback callers may omit the token; a bad one is ignored, not refused.
            role = self._tokens.get(token) if token else None
            return AuthOutcome(None, role, loopback)
        if token is None:
            return AuthOutcome("authentication required", None, loopback)
        role = self._tokens.get(token)
        if role is None:
            return AuthOutcome("invalid signature", None, loopback)
        return AuthOutcome(None, role, loopback)

    def require(self, permission: str, role: str | None, loopback: bool) -> str | None:
        """``requirePermission(p)``: ``None`` when allowed, else the 403 message."""
        if self.mode == "local" or (role is None and self.mode == "hybrid" and loopback):
            return None
        if role is None:
            return "authentication required"
        if permission in ROLE_PERMISSIONS[role]:
            return None
        return f"role '{role}' lacks '{permission}' permission"
