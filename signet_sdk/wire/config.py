"""Client configuration: explicit arguments, then environment, then defaults.

The order, for every setting:

1. an argument passed to the client or ``create_adapter``;
2. the environment (``SIGNET_DAEMON_URL``, else ``SIGNET_HOST`` + ``SIGNET_PORT``;
   ``SIGNET_API_KEY``, else its older name ``SIGNET_TOKEN``; ``SIGNET_AGENT_ID``;
   the per-hook timeout variables);
3. the contract's defaults.

Timeout variables are milliseconds and clamped to 1000..120000, as the
daemon's own clients do. Standard library only: hooks read their settings here.
"""

from __future__ import annotations

import os

from signet_sdk.wire.errors import ConfigError
from signet_sdk.wire.record import Record
from signet_sdk.wire.url import parse_origin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal, TypeAlias, TypedDict

    RuntimePath: TypeAlias = Literal["plugin", "legacy"]
    ActorType: TypeAlias = Literal["operator", "pipeline", "harness", "sdk", "daemon"]

    class ClientOptions(TypedDict, total=False):
        """The keyword settings every client and ``create_adapter`` accept."""

        token: str | None
        agent_id: str | None
        runtime_path: RuntimePath | None
        actor: str | None
        actor_type: ActorType | None
        timeout: float | Timeouts | None
        max_retries: int | None
        env: Mapping[str, str] | None


__all__ = ["DEFAULT_DAEMON_URL", "ClientConfig", "Timeouts", "resolve_config"]

DEFAULT_DAEMON_URL = "http://127.0.0.1:3850"
_ACTOR_TYPES = ("operator", "pipeline", "harness", "sdk", "daemon")
_CLAMP_MS = (1000, 120000)


class Timeouts(Record):
    """Per-call deadlines in seconds, by the endpoint map's timeout class.

    Each is the whole budget of one call, retries and back-off included.
    """

    session_start: float = 15.0
    prompt_submit: float = 5.0
    default: float = 10.0
    write: float = 15.0
    stream: float | None = None

    def for_class(self, name: str) -> float | None:
        value: float | None = getattr(self, name)
        return value


class ClientConfig(Record):
    """Everything a request needs besides its body; resolved once, then immutable."""

    base_url: str = DEFAULT_DAEMON_URL
    harness: str | None = None
    token: str | None = None
    agent_id: str | None = None
    runtime_path: RuntimePath | None = None
    actor: str | None = None
    actor_type: ActorType | None = None
    timeouts: Timeouts = Timeouts()
    max_retries: int = 2
    no_hooks: bool = False

    def __post_init__(self) -> None:
        # ``timeouts=None`` has always meant the default timeouts.
        if getattr(self, "timeouts", None) is None:
            object.__setattr__(self, "timeouts", Timeouts())

    def __repr__(self) -> str:
        # The token never appears in a repr, a traceback or a log line.
        shown = self._replace(token="***") if self.token else self
        return Record.__repr__(shown)

    def with_options(self, **changes: Any) -> ClientConfig:
        return self._replace(**changes)


def _masked(url: str) -> str:
    """``url`` with any ``user:password@`` replaced, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    netloc, slash, tail = rest.partition("/")
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    return f"{scheme}{sep}{netloc}{slash}{tail}" if sep else url


def _origin(value: str, source: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(source, f"must be a URL string, got {type(value).__name__}")
    try:
        origin = parse_origin(value)
    except ValueError as exc:
        example = f"an http(s) origin like {DEFAULT_DAEMON_URL}"
        raise ConfigError(source, f"{exc}: expected {example}, got {_masked(value)!r}") from None
    return str(origin)


def _port(value: str, source: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise ConfigError(source, f"must be a port number, got {value!r}") from None
    if not 0 < port < 65536:
        raise ConfigError(source, f"must be between 1 and 65535, got {port}")
    return port


def _ms(env: Mapping[str, str], names: tuple[str, ...], default_ms: int) -> float:
    for name in names:
        raw = env.get(name, "").strip()
        if not raw:
            continue
        try:
            ms = float(raw)
        except ValueError:
            ms = float("nan")
        if ms != ms:  # "nan" parses, then passes the clamp: every wait of it fails
            raise ConfigError(name, f"must be milliseconds, got {raw!r}")
        low, high = _CLAMP_MS
        return min(max(ms, low), high) / 1000
    return default_ms / 1000


def _base_url(daemon_url: str | None, env: Mapping[str, str]) -> str:
    if daemon_url is not None and daemon_url != "":
        return _origin(daemon_url, "daemon_url")
    if env.get("SIGNET_DAEMON_URL", "").strip():
        return _origin(env["SIGNET_DAEMON_URL"], "SIGNET_DAEMON_URL")
    host = env.get("SIGNET_HOST", "").strip()
    port_raw = env.get("SIGNET_PORT", "").strip()
    if host or port_raw:
        port = _port(port_raw, "SIGNET_PORT") if port_raw else 3850
        host = host or "127.0.0.1"
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{port}"
    return DEFAULT_DAEMON_URL


def _header_value(value: str | None, source: str) -> str | None:
    """A value that travels in an HTTP header: printable ASCII, or a ConfigError naming it.

    A CR or LF would let the value end the header and start another (header
    injection); other control characters and non-ASCII text cannot be sent
    as they are.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(source, f"must be a string, got {type(value).__name__}")
    if not all(" " <= ch <= "~" for ch in value):
        bad = next(ch for ch in value if not " " <= ch <= "~")
        raise ConfigError(
            source, f"must be printable ASCII (it travels in an HTTP header), found {bad!r}"
        )
    return value


#: The longest deadline a call may have. Past about 1e10 seconds the sync
#: client's socket waits overflow the platform's time_t.
_MAX_SECONDS = 1_000_000.0


def _seconds(field: str, value: object) -> float:
    """A deadline in seconds: a number above zero, finite, at most :data:`_MAX_SECONDS`.

    NaN and infinity passed every earlier check and then failed each call
    with a bare ``ValueError`` or ``OverflowError`` from the I/O library.
    """
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ConfigError(field, f"must be seconds, got {value!r}")
    if value <= 0:
        raise ConfigError(field, f"must be positive seconds, got {value!r}")
    if not value <= _MAX_SECONDS:  # NaN compares false, so it lands here too
        raise ConfigError(field, f"must be finite, at most {_MAX_SECONDS:.0f} seconds: {value!r}")
    return float(value)


def resolve_config(
    daemon_url: str | None = None,
    *,
    harness: str | None = None,
    token: str | None = None,
    agent_id: str | None = None,
    runtime_path: RuntimePath | None = None,
    actor: str | None = None,
    actor_type: ActorType | None = None,
    timeout: float | Timeouts | None = None,
    max_retries: int | None = None,
    env: Mapping[str, str] | None = None,
) -> ClientConfig:
    """Build a :class:`ClientConfig` from arguments > environment > defaults.

    ``timeout`` as a number replaces every per-call deadline (seconds); as a
    :class:`Timeouts` it replaces them one by one. ``env`` defaults to
    ``os.environ`` and exists so tests need not mutate the process.
    """
    env = os.environ if env is None else env
    if runtime_path is not None and runtime_path not in ("plugin", "legacy"):
        raise ConfigError("runtime_path", f"must be 'plugin' or 'legacy', got {runtime_path!r}")
    if actor_type is not None and actor_type not in _ACTOR_TYPES:
        raise ConfigError("actor_type", f"must be one of {', '.join(_ACTOR_TYPES)}")
    if max_retries is not None and (
        not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0
    ):
        raise ConfigError("max_retries", f"must be a whole number, zero or more: {max_retries!r}")

    if isinstance(timeout, Timeouts):
        for name in ("session_start", "prompt_submit", "default", "write", "stream"):
            value = getattr(timeout, name)
            if value is not None or name != "stream":
                _seconds(f"timeout.{name}", value)
        timeouts = timeout
    elif timeout is not None:
        if not isinstance(timeout, int | float) or isinstance(timeout, bool):
            raise ConfigError("timeout", f"must be seconds or a Timeouts, got {timeout!r}")
        t = _seconds("timeout", timeout)
        timeouts = Timeouts(session_start=t, prompt_submit=t, default=t, write=t, stream=None)
    else:
        fetch = _ms(env, ("SIGNET_FETCH_TIMEOUT",), 10000)
        timeouts = Timeouts(
            session_start=_ms(env, ("SIGNET_SESSION_START_TIMEOUT", "SIGNET_FETCH_TIMEOUT"), 15000),
            prompt_submit=_ms(env, ("SIGNET_PROMPT_SUBMIT_TIMEOUT",), 5000),
            default=fetch,
            write=max(fetch, 15.0),
        )

    if harness is not None and not isinstance(harness, str):
        raise ConfigError("harness", f"must be a string, got {type(harness).__name__}")
    # SIGNET_API_KEY (0.145's ``sig_sk_...`` keys) wins over SIGNET_TOKEN, as in
    # the daemon's own CLI; both are sent as ``Authorization: Bearer``.
    if token:
        token_source = "token"
    else:
        token_source = "SIGNET_API_KEY" if env.get("SIGNET_API_KEY", "").strip() else "SIGNET_TOKEN"
        token = env.get(token_source, "").strip() or None
    agent_source = "agent_id" if agent_id else "SIGNET_AGENT_ID"
    return ClientConfig(
        base_url=_base_url(daemon_url, env),
        harness=harness,
        token=_header_value(token, token_source),
        agent_id=_header_value(agent_id or env.get("SIGNET_AGENT_ID") or None, agent_source),
        runtime_path=runtime_path,
        actor=_header_value(actor, "actor"),
        actor_type=actor_type,
        timeouts=timeouts,
        max_retries=2 if max_retries is None else max_retries,
        no_hooks=env.get("SIGNET_NO_HOOKS") == "1",
    )
