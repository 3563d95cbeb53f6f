"""One status-to-class map, non-JSON bodies, and the claim parsed from a 409."""

from __future__ import annotations

import pytest

from signet_sdk.wire import errors as ex
from signet_sdk.wire.errors import decode_body, status_error

KW = {"method": "POST", "url": "http://127.0.0.1:3850/api/hooks/session-start"}


#: Each status and the error class it raises; a status with no class of its own is the base.
STATUS_CLASSES: dict[int, type[ex.APIStatusError]] = {
    400: ex.BadRequestError,
    401: ex.AuthenticationError,
    403: ex.PermissionDeniedError,
    404: ex.NotFoundError,
    409: ex.ConflictError,
    410: ex.GoneError,
    413: ex.PayloadTooLargeError,
    415: ex.UnprocessableEntityError,
    422: ex.UnprocessableEntityError,
    429: ex.RateLimitError,
    500: ex.InternalServerError,
    502: ex.InternalServerError,
    503: ex.ServiceUnavailableError,
    418: ex.APIStatusError,
}


@pytest.mark.parametrize(("status", "cls"), list(STATUS_CLASSES.items()))
def test_status_maps_to_its_class(status: int, cls: type[ex.APIStatusError]) -> None:
    e = status_error(status_code=status, body={"error": "boom"}, headers={}, **KW)
    assert type(e) is cls
    assert isinstance(e, ex.APIStatusError) and isinstance(e, ex.SignetError)
    assert e.status_code == status and e.error == "boom"
    assert str(e) == f"POST {KW['url']} -> {status}: boom"


def test_conflict_exposes_the_claiming_path() -> None:
    body = {"error": "session claimed by plugin path"}
    e = status_error(status_code=409, body=body, headers={}, **KW)
    assert isinstance(e, ex.ConflictError) and e.claimed_by == "plugin"
    other = status_error(status_code=409, body={"error": "Version conflict"}, headers={}, **KW)
    assert isinstance(other, ex.ConflictError) and other.claimed_by is None


def test_plain_text_bodies_are_kept_as_text() -> None:
    assert decode_body(b"404 Not Found", "text/plain; charset=UTF-8") == "404 Not Found"
    assert decode_body(b'{"error":"x"}', "application/json") == {"error": "x"}
    assert decode_body(b"Internal Server Error", None) == "Internal Server Error"
    assert decode_body(b"", "application/json") is None
    e = status_error(status_code=404, body="404 Not Found", headers={}, **KW)
    assert e.error is None and str(e).endswith("-> 404: 404 Not Found")


def test_half_an_emoji_in_an_answer_becomes_one_replacement_character() -> None:
    """A JavaScript daemon cutting a context by UTF-16 units writes half a pair."""
    answer = decode_body(b'{"inject":"make ship \\ud83d","k\\udc00":["\\ud83d\\ude00"]}', None)
    assert answer == {"inject": "make ship \ufffd", "k\ufffd": ["\U0001f600"]}
    assert isinstance(answer, dict) and answer["inject"].encode("utf-8")


def test_auth_failure_keeps_headers() -> None:
    e = status_error(
        status_code=401,
        body={"error": "authentication required"},
        headers={"WWW-Authenticate": "Bearer"},
        **KW,
    )
    assert isinstance(e, ex.AuthenticationError) and e.headers["WWW-Authenticate"] == "Bearer"


def test_non_http_errors_name_their_field() -> None:
    assert str(ex.PayloadError("session_id", "is required")) == "session_id: is required"
    nf = ex.AdapterNotFoundError("nope", ["claude-code"])
    assert isinstance(nf, LookupError)
    assert "installed: claude-code" in str(nf)


def test_permission_denied_names_the_permission_0145_lacks() -> None:
    # The message 0.145's auth policy writes; the error type parses it.
    err = ex.PermissionDeniedError(
        "POST /api/memory/recall -> 403",
        method="POST",
        url="http://127.0.0.1/api/memory/recall",
        status_code=403,
        body={"error": "credential lacks 'recall' permission"},
        headers={},
    )
    assert err.permission == "recall"
    other = ex.status_error(
        method="GET",
        url="u",
        status_code=403,
        body={"error": "Plugin capability denied"},
        headers={},
    )
    assert isinstance(other, ex.PermissionDeniedError) and other.permission is None


def _made_errors() -> list[ex.SignetError]:
    """One error of every class, made as the SDK makes them."""
    made: list[ex.SignetError] = [
        status_error(status_code=s, body={"error": "boom"}, headers={"retry-after": "2"}, **KW)
        for s in STATUS_CLASSES
    ]
    not_found = status_error(status_code=404, body="Not Found", headers={}, **KW)
    assert isinstance(not_found, ex.NotFoundError)
    made += [
        ex.SignetError("plain"),
        ex.ConfigError("daemon_url", "is not a URL"),
        ex.PayloadError("session_id", "is required"),
        ex.AdapterNotFoundError("acme", ["claude-code"]),
        ex.InvalidAdapterError("not a plugin"),
        ex.APIConnectionError("refused", **KW),
        ex.NotSentError("refused", **KW),
        ex.BreakerOpenError(12.5, url=KW["url"]),
        ex.APITimeoutError("no answer", **KW),
        ex.APIResponseValidationError("bad answer", body={"inject": 3}, **KW),
        ex.JobFailedError("failed", job_id="j1", reason="exit 1", **KW),
        ex.UnsupportedByDaemonError(
            not_found, endpoint="session_transcript", daemon_version="0.109.15", since="0.145.0"
        ),
    ]
    return made


@pytest.mark.parametrize("error", _made_errors(), ids=lambda e: type(e).__name__)
def test_every_error_survives_pickling_whole(error: ex.SignetError) -> None:
    """An error raised in a worker process reaches its parent as the same error."""
    import pickle

    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and back.args == error.args and str(back) == str(error)
    assert vars(back).keys() == vars(error).keys()
    for name, value in vars(error).items():
        if name == "_made_with":
            continue
        other = getattr(back, name)
        if isinstance(value, ex.SignetError):  # a cause kept on the error
            assert type(other) is type(value) and str(other) == str(value)
        else:
            assert other == value, name
