"""Retry decisions, back-off bounds and the one-deadline budget (no real sleeping)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from signet_sdk.wire.endpoints import endpoint
from signet_sdk.wire.errors import (
    APIConnectionError,
    APITimeoutError,
    NotSentError,
    RateLimitError,
    SignetError,
    status_error,
)
from signet_sdk.wire.retry import CallBudget, RetryPolicy, retry_delay, should_retry

KW = {"method": "POST", "url": "http://127.0.0.1:1/x"}


def err(status: int, headers: dict[str, str] | None = None, body: object = None) -> SignetError:
    return status_error(status_code=status, body=body, headers=headers or {}, **KW)


WRITE = endpoint("remember")
READ = endpoint("recall")


@pytest.mark.parametrize("ep", [WRITE, READ, endpoint("session_end")])
def test_not_sent_is_always_retried(ep: object) -> None:
    assert should_retry(ep, NotSentError("refused", **KW))  # type: ignore[arg-type]


@pytest.mark.parametrize("status", [429, 503])
def test_rejections_before_any_handler_are_retried_even_for_writes(status: int) -> None:
    assert should_retry(WRITE, err(status))


@pytest.mark.parametrize("status", [500, 502, 504])
def test_transient_5xx_retried_only_when_safe(status: int) -> None:
    assert should_retry(READ, err(status))
    assert not should_retry(WRITE, err(status))


def test_timeouts_after_sending_retried_only_when_safe() -> None:
    assert should_retry(READ, APITimeoutError("slow", **KW))
    assert not should_retry(WRITE, APITimeoutError("slow", **KW))
    assert not should_retry(WRITE, APIConnectionError("reset", **KW))


def unanswered() -> APIConnectionError:
    error = APIConnectionError("Server disconnected without sending a response.", **KW)
    error.unanswered = True
    return error


@pytest.mark.parametrize("name", ["session_start", "user_prompt_submit", "pre_compaction"])
def test_a_per_turn_call_whose_connection_closed_unanswered_is_sent_again(name: str) -> None:
    assert should_retry(endpoint(name), unanswered())
    assert not should_retry(endpoint(name), APIConnectionError("reset", **KW))


@pytest.mark.parametrize("name", ["remember", "session_end", "compaction_complete", "secrets_exec"])
def test_a_write_whose_connection_closed_unanswered_is_never_sent_again(name: str) -> None:
    assert not should_retry(endpoint(name), unanswered())


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 413, 422])
def test_client_errors_and_conflicts_never_retried(status: int) -> None:
    assert not should_retry(READ, err(status, body={"error": "session claimed by plugin path"}))


@given(attempt=st.integers(1, 6), seed=st.integers(0, 10_000))
def test_backoff_stays_within_exponential_ceiling(attempt: int, seed: int) -> None:
    policy = RetryPolicy(max_retries=6, initial_delay=0.2, max_delay=4.0)
    delay = retry_delay(policy, attempt, err(503), None, random.Random(seed))
    assert delay is not None
    assert 0 <= delay <= min(4.0, 0.2 * 2 ** (attempt - 1))


def test_retry_after_header_is_honoured_exactly() -> None:
    e = err(429, {"Retry-After": "3"}, {"error": "rate limit exceeded"})
    assert isinstance(e, RateLimitError) and e.retry_after == 3.0
    assert retry_delay(RetryPolicy(), 1, e, remaining=10.0) == 3.0


def test_retry_after_beyond_the_deadline_gives_up() -> None:
    e = err(429, {"Retry-After": "30"})
    assert retry_delay(RetryPolicy(), 1, e, remaining=5.0) is None


def test_retry_after_from_body_epoch_ms() -> None:
    e = RateLimitError(
        "x", now_ms=1_000_000.0, status_code=429, body={"retryAfter": 1_002_500}, headers={}, **KW
    )
    assert e.retry_after == 2.5


@pytest.mark.parametrize(
    ("header", "body", "seconds"),
    [
        ("Wed, 21 Oct 2015 07:28:04 GMT", None, 4.0),  # an HTTP date, 4 s ahead
        ("Wed, 21 Oct 2015 07:27:00 GMT", None, 0.0),  # already past
        ("soon", {"retryAfter": 1_445_412_482_500}, 2.5),  # unreadable: the body says
        ("soon", None, None),
    ],
)
def test_retry_after_may_be_an_http_date(
    header: str, body: dict[str, int] | None, seconds: float | None
) -> None:
    now_ms = 1_445_412_480_000.0  # Wed, 21 Oct 2015 07:28:00 GMT
    e = RateLimitError(
        "x", now_ms=now_ms, status_code=429, body=body, headers={"Retry-After": header}, **KW
    )
    assert e.retry_after == seconds


def test_attempts_are_capped_by_max_retries() -> None:
    assert retry_delay(RetryPolicy(max_retries=2), 3, err(503), None) is None


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_budget_counts_attempts_and_shrinks_per_attempt_timeout() -> None:
    clock = FakeClock()
    budget = CallBudget(RetryPolicy(max_retries=3), 2.0, clock, random.Random(1))
    assert budget.attempt_timeout() == 2.0
    clock.now += 0.5
    delay = budget.next_delay(READ, err(503))
    clock.now += delay
    assert budget.attempt_timeout() == pytest.approx(1.5 - delay)
    assert budget.attempt == 2


def test_budget_reraises_the_original_error_when_done() -> None:
    budget = CallBudget(RetryPolicy(max_retries=0), 1.0, FakeClock())
    budget.attempt_timeout()
    e = err(503)
    with pytest.raises(type(e)) as info:
        budget.next_delay(READ, e)
    assert info.value is e


def test_retry_after_on_503_is_honoured() -> None:
    unavailable = err(503, {"Retry-After": "1.5"}, {"error": "Daemon is shutting down"})
    assert should_retry(WRITE, unavailable)
    assert retry_delay(RetryPolicy(), 1, unavailable, remaining=10.0) == 1.5


def test_a_503_for_a_worker_that_is_not_running_is_not_retried() -> None:
    stopped = err(503, body={"error": "Synthesis worker not running"})
    assert not should_retry(endpoint("synthesis_complete"), stopped)
    assert not should_retry(READ, stopped)
