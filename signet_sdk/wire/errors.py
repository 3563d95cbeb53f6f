# long module: the whole error tree and the one status-to-class table, read together
"""Every error the SDK raises, in one tree.

    SignetError
    ├── ConfigError (also ValueError)            a setting or variable is unusable
    ├── PayloadError (also ValueError)           a harness payload field is wrong
    ├── AdapterNotFoundError (also LookupError)  strict lookup of an unknown harness
    ├── InvalidAdapterError (also TypeError)     an entry point that is no adapter
    └── APIError                                 anything that went over the wire
        ├── APIConnectionError                   no answer (refused, reset, DNS)
        │   ├── NotSentError                     refused before a byte was sent
        │   │   └── BreakerOpenError             not even tried: the circuit breaker is open
        │   └── APITimeoutError                  no answer within the deadline
        ├── APIResponseValidationError           an answer that does not fit its model
        ├── JobFailedError                       a daemon job (secrets exec) ended failed
        └── APIStatusError                       a non-2xx answer
            ├── BadRequestError          400
            ├── AuthenticationError      401
            ├── PermissionDeniedError    403  (``permission``: the one the credential lacks)
            ├── NotFoundError            404
            │   └── UnsupportedByDaemonError  a route the running daemon is too old for
            ├── ConflictError            409  (``claimed_by``; ``code`` names the refusal)
            ├── GoneError                410  (a retired route: not supported)
            ├── PayloadTooLargeError     413
            ├── UnprocessableEntityError 415, 422
            ├── RateLimitError           429  (``retry_after`` in seconds)
            └── InternalServerError      5xx  (``ServiceUnavailableError`` for 503,
                                               ``overloaded`` when the daemon sheds load)

The daemon's 200 answers that mean "did nothing" (``skipped``, ``bypassed``,
``duplicateRuntimePath`` ...) are *not* errors: they are typed fields on the
result. Standard library only: the hook path raises these too.
"""

from __future__ import annotations

from signet_sdk.wire import jsonfast

# Annotations only: importing collections.abc loads the whole collections package.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Self

__all__ = [
    "EPISODIC_CONTENT_IMMUTABLE",
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AdapterNotFoundError",
    "AuthenticationError",
    "BadRequestError",
    "BreakerOpenError",
    "ConfigError",
    "ConflictError",
    "GoneError",
    "InternalServerError",
    "InvalidAdapterError",
    "JobFailedError",
    "NotFoundError",
    "NotSentError",
    "PayloadError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServiceUnavailableError",
    "SignetError",
    "UnprocessableEntityError",
    "UnsupportedByDaemonError",
    "status_error",
]


class SignetError(Exception):
    """Root of every exception raised by signet_sdk.

    Each error keeps the arguments it was made with, so that it pickles and
    unpickles whole (an error raised in a worker process reaches the parent
    as the same class with the same fields): the default reduction calls the
    class with ``args`` alone, which most of these constructors refuse.
    """

    _made_with: tuple[tuple[Any, ...], dict[str, Any]]

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        error = super().__new__(cls, *args)
        error._made_with = (args, kwargs)
        return error

    def __reduce__(self) -> tuple[Any, ...]:
        args, kwargs = getattr(self, "_made_with", (self.args, {}))
        state = {k: v for k, v in self.__dict__.items() if k != "_made_with"}
        return (_remake, (type(self), args, kwargs), state)


def _remake(cls: type[SignetError], args: tuple[Any, ...], kwargs: dict[str, Any]) -> SignetError:
    """An error made again from its constructor's arguments (for :mod:`pickle`)."""
    return cls(*args, **kwargs)


class ConfigError(SignetError, ValueError):
    """A configuration argument or environment variable cannot be used.

    ``field`` names the argument or variable so the message can be acted on.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class PayloadError(SignetError, ValueError):
    """A native harness payload lacks a field or carries a wrong type.

    Raised by adapters; ``field`` is the harness's own name for it.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class AdapterNotFoundError(SignetError, LookupError):
    """A strict adapter lookup named a harness no installed package provides."""

    def __init__(self, harness: str, installed: list[str]) -> None:
        names = ", ".join(installed) if installed else "none"
        super().__init__(f"no adapter for harness {harness!r}; installed: {names}")
        self.harness = harness
        self.installed = installed


class InvalidAdapterError(SignetError, TypeError):
    """An entry point resolved to something that is not a usable adapter."""


class APIError(SignetError):
    """A request to the daemon failed; ``method`` and ``url`` say which."""

    def __init__(self, message: str, *, method: str, url: str) -> None:
        super().__init__(message)
        self.message = message
        self.method = method
        self.url = url


class APIConnectionError(APIError):
    """The daemon could not be reached or dropped the connection.

    ``unanswered``: the connection closed after the request was sent and
    before any byte of an answer (Bun's servers do that to a request that
    arrives on a kept-alive connection they are closing, without running it).
    """

    unanswered: bool = False


class NotSentError(APIConnectionError):
    """The connection failed before any byte of the request left this process,
    so the daemon cannot have acted on it: always safe to try again."""


class BreakerOpenError(NotSentError):
    """The daemon was not called: it failed repeatedly and the circuit breaker is open.

    ``seconds`` is how much longer it stays open. Reads fail open at once;
    writes wait in the outbox.
    """

    def __init__(self, seconds: float, *, url: str) -> None:
        super().__init__(
            f"daemon skipped for {seconds:.0f}s more (circuit breaker open)", method="-", url=url
        )
        self.seconds = seconds


class APITimeoutError(APIConnectionError):
    """The call's deadline passed before the daemon answered."""


class APIResponseValidationError(APIError):
    """The daemon answered 2xx, but the body does not fit the response model."""

    def __init__(self, message: str, *, method: str, url: str, body: object) -> None:
        super().__init__(message, method=method, url=url)
        self.body = body


class JobFailedError(APIError):
    """A job the daemon ran for us (a 0.145 secrets exec) ended ``failed``.

    ``reason`` is the daemon's own words (``spawn printenv ENOENT`` ...).
    """

    def __init__(
        self, message: str, *, method: str, url: str, job_id: str | None, reason: str
    ) -> None:
        super().__init__(message, method=method, url=url)
        self.job_id = job_id
        self.reason = reason


class APIStatusError(APIError):
    """The daemon answered with a non-2xx status.

    ``body`` is the parsed JSON when the daemon sent JSON, else the text (the
    daemon's unknown-route 404 and unhandled 500 are plain text). ``error`` is
    the daemon's ``{"error": ...}`` message when there is one.
    """

    status_code: int = 0

    def __init__(
        self,
        message: str,
        *,
        method: str,
        url: str,
        status_code: int,
        body: object,
        headers: Mapping[str, str],
    ) -> None:
        super().__init__(message, method=method, url=url)
        self.status_code = status_code
        self.body = body
        self.headers = dict(headers)

    @property
    def error(self) -> str | None:
        if isinstance(self.body, dict):
            value = self.body.get("error")
            return value if isinstance(value, str) else None
        return None


class BadRequestError(APIStatusError):
    status_code = 400


class AuthenticationError(APIStatusError):
    status_code = 401


class PermissionDeniedError(APIStatusError):
    """403: the credential may not do this (or a plugin capability is denied).

    ``permission`` is the one the daemon named ("credential lacks 'recall'
    permission", 0.145 on), else None.
    """

    status_code = 403

    @property
    def permission(self) -> str | None:
        text = self.error or ""
        start = text.find("lacks '")
        if start < 0:
            return None
        name, sep, rest = text[start + 7 :].partition("'")
        return name if sep and name and rest.lstrip().startswith("permission") else None


class NotFoundError(APIStatusError):
    status_code = 404


class UnsupportedByDaemonError(NotFoundError):
    """The daemon answered 404 for a route its version does not have yet.

    ``daemon_version`` is what the daemon's ``/health`` reported and
    ``since`` the first version with the route, so a caller can say "update
    Signet to ``since``" instead of guessing at a bare 404. Still a
    :class:`NotFoundError` for code that catches that.
    """

    def __init__(
        self, cause: APIStatusError, *, endpoint: str, daemon_version: str, since: str
    ) -> None:
        message = (
            f"{cause.method} {cause.url}: the daemon is Signet {daemon_version}; "
            f"{endpoint} needs Signet {since} or newer"
        )
        super().__init__(
            message,
            method=cause.method,
            url=cause.url,
            status_code=cause.status_code,
            body=cause.body,
            headers=cause.headers,
        )
        self.endpoint = endpoint
        self.daemon_version = daemon_version
        self.since = since


_CLAIM_PREFIX = "session claimed by "
_CLAIM_SUFFIX = " path"


#: The 409 code newer daemons give when a patch would change the content or type
#: of a memory saved through remember (NicholaiVogel/signetai
#: platform/daemon/src/routes/memory-routes.ts@c533a472, ``PATCH /api/memory/:id``,
#: case ``episodic_content_immutable``).
EPISODIC_CONTENT_IMMUTABLE = "episodic_content_immutable"


class ConflictError(APIStatusError):
    """409: a runtime-path claim, a version conflict, immutable content or a busy lock.

    ``claimed_by`` is ``"plugin"`` or ``"legacy"`` when the other runtime path
    owns the session; never retried, because repeating cannot change who owns it.
    ``code`` is the daemon's machine-readable reason, the ``status`` the memory
    routes put beside ``error`` (``version_conflict``, ``deleted``,
    ``duplicate_content_hash``, and on daemons newer than 0.145.8
    ``episodic_content_immutable``: a remembered memory's content and type
    cannot be edited, only its tags, importance and pinned flag); the message
    names it, so a log line says which refusal it was.
    """

    status_code = 409

    def __init__(self, message: str, **kw: Any) -> None:
        code = _conflict_code(kw.get("body"))
        if code is not None and code not in message:
            head, sep, detail = message.partition(": ")
            message = f"{head} {code}{sep}{detail}"
        super().__init__(message, **kw)

    @property
    def code(self) -> str | None:
        return _conflict_code(self.body)

    @property
    def immutable_content(self) -> bool:
        """True when the memory's content and type may not be changed (save a new one)."""
        return self.code == EPISODIC_CONTENT_IMMUTABLE

    @property
    def claimed_by(self) -> str | None:
        # The daemon's words: "session claimed by <plugin|legacy> path" (no regex:
        # this module is on the hook path, where ``re`` costs milliseconds).
        text = self.error or ""
        start = text.find(_CLAIM_PREFIX)
        if start < 0:
            return None
        word, sep, _ = text[start + len(_CLAIM_PREFIX) :].partition(_CLAIM_SUFFIX)
        ok = sep and word and all(c.isalnum() or c == "_" for c in word)
        return word if ok else None


def _conflict_code(body: object) -> str | None:
    if isinstance(body, dict):
        value = body.get("status")
        if isinstance(value, str) and value and value.isascii() and " " not in value:
            return value
    return None


class GoneError(APIStatusError):
    status_code = 410


class PayloadTooLargeError(APIStatusError):
    status_code = 413


class UnprocessableEntityError(APIStatusError):
    status_code = 422


class RateLimitError(APIStatusError):
    """429. ``retry_after`` is in seconds, from the header or the body's epoch-ms."""

    status_code = 429

    def __init__(self, message: str, *, now_ms: float | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.retry_after = parse_retry_after(self.headers, self.body, now_ms)


class InternalServerError(APIStatusError):
    status_code = 500


#: How newer daemons word a 503 that sheds load: "Too many concurrent prompt
#: submissions (max 8); retry shortly" (NicholaiVogel/signetai
#: platform/daemon/src/routes/hooks-routes.ts@0f06b2b9, ``PROMPT_SUBMIT_MAX_IN_FLIGHT``)
#: and "Too many concurrent memory captures (max 8); retry shortly" (memory-routes.ts
#: @c533a472, ``createMemoryCaptureAdmissionMiddleware``). Neither sends Retry-After.
_OVERLOADED = "Too many concurrent"


class ServiceUnavailableError(InternalServerError):
    """503: initializing, shutting down, mutations frozen, or overloaded; nothing was applied.

    ``retry_after`` is in seconds when the daemon said (``Retry-After``).
    ``permanent`` is true for a 503 a handler gave because a worker it needs
    is not running (``Synthesis worker not running``): no retry can help.
    ``overloaded`` is true when a daemon newer than 0.145.8 turned the call
    away because too many were in flight (over 8 prompt submissions, or over 8
    memory captures): asking again at once adds to the load it shed, so no
    call repeats it; a write waits in the outbox, a read fails open.
    """

    status_code = 503

    def __init__(self, message: str, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.retry_after = parse_retry_after(self.headers, self.body)

    @property
    def permanent(self) -> bool:
        return "not running" in (self.error or "")

    @property
    def overloaded(self) -> bool:
        return (self.error or "").startswith(_OVERLOADED)


_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    413: PayloadTooLargeError,
    415: UnprocessableEntityError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def parse_retry_after(
    headers: Mapping[str, str], body: object, now_ms: float | None = None
) -> float | None:
    """Seconds to wait before retrying, or None when the server did not say.

    ``Retry-After`` is seconds or an HTTP date (RFC 9110, 10.2.3; model APIs
    and proxies send either); else the body's ``retryAfter`` in epoch ms.
    """
    if now_ms is None:
        import time

        now_ms = time.time() * 1000
    for key, value in headers.items():
        if key.lower() == "retry-after":
            try:
                return max(0.0, float(value))
            except ValueError:
                when = _http_date_ms(value)
                if when is not None:
                    return max(0.0, (when - now_ms) / 1000)
                break
    if isinstance(body, dict) and isinstance(body.get("retryAfter"), int | float):
        return max(0.0, (float(body["retryAfter"]) - now_ms) / 1000)
    return None


def _http_date_ms(value: str) -> float | None:
    """An HTTP date (``Wed, 21 Oct 2015 07:28:00 GMT``) in epoch ms, or None."""
    from email.utils import parsedate_to_datetime

    try:
        return parsedate_to_datetime(value).timestamp() * 1000
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def decode_body(content: bytes, content_type: str | None) -> object:
    """JSON when it parses, else the text: daemon errors are not always JSON.

    Read as any document from outside is (:func:`.jsonfast.loads_payload`):
    the daemon is JavaScript, and a context it cut by UTF-16 units can end in
    half an emoji (``"\\ud83d"``). Left in, that half fails every later
    encoding of the text, and a harness's whole answer with it.
    """
    if not content:
        return None
    text = content.decode("utf-8", errors="replace")
    if content_type is None or "json" in content_type or text[:1] in "{[":
        try:
            return jsonfast.loads_payload(text)
        except ValueError:
            return text
    return text


def status_error(
    *, method: str, url: str, status_code: int, body: object, headers: Mapping[str, str]
) -> APIStatusError:
    """The one place a status code becomes an exception class."""
    cls = _STATUS.get(status_code)
    if cls is None:
        cls = InternalServerError if status_code >= 500 else APIStatusError
    detail = body.get("error") if isinstance(body, dict) else body
    text = f"{method} {url} -> {status_code}"
    if detail:
        text += f": {str(detail)[:300]}"
    return cls(text, method=method, url=url, status_code=status_code, body=body, headers=headers)


# Users import every error from the package root, so tracebacks, reprs and pickles
# name it there: signet_sdk.ConflictError. Set here, as the classes are made, so the
# name is the same whatever was imported first.
for _name in __all__:
    _value = globals()[_name]
    if isinstance(_value, type) and issubclass(_value, SignetError):
        _value.__module__ = "signet_sdk"
del _name, _value
