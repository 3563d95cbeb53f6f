"""When to try a call again, and how long to wait first.

A call is repeated only when repeating cannot store anything twice: the
endpoint is marked safe, or the daemon provably did not act (the connection
was never made; a 429 or 503 turned the request away before any handler ran),
or the call is a session's start, a prompt or pre-compaction whose
connection closed before any answer (see :func:`should_retry`).
A 409 is never repeated: who owns a session does not change by asking again.
Nor is a 503 that sheds load (daemons newer than 0.145.8 refuse a ninth
concurrent prompt submission or memory capture): asking again within the call
adds to the very load the daemon shed, so the caller decides at once (a write
waits in the outbox, a hook's read fails open). Every wait fits inside the
call's one deadline. Standard library only.
"""

from __future__ import annotations

from signet_sdk.wire.endpoints import Endpoint
from signet_sdk.wire.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    NotSentError,
    SignetError,
)
from signet_sdk.wire.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random
    from collections.abc import Callable

__all__ = ["CallBudget", "RetryPolicy", "retry_delay", "should_retry"]

#: Statuses the daemon sends before a handler runs: nothing was applied.
_REJECTED_UNAPPLIED = frozenset({429, 503})
#: Statuses that may be transient but may follow a partly applied request.
_TRANSIENT = frozenset({500, 502, 504})


class RetryPolicy(Record):
    """Exponential back-off with full jitter, capped; ``max_retries`` extra tries."""

    max_retries: int = 2
    initial_delay: float = 0.2
    max_delay: float = 4.0


def should_retry(ep: Endpoint, error: SignetError) -> bool:
    """Whether ``error`` on ``ep`` may be answered by sending the request again."""
    if isinstance(error, NotSentError):
        return True
    if isinstance(error, APIStatusError):
        if getattr(error, "permanent", False):
            return False  # e.g. 503 "Synthesis worker not running": the same answer again
        if getattr(error, "overloaded", False):
            return False  # 503 "Too many concurrent ...": a repeat adds to the shed load
        if error.status_code in _REJECTED_UNAPPLIED:
            return True
        return ep.retry_safe and error.status_code in _TRANSIENT
    if isinstance(error, APITimeoutError | APIConnectionError):
        # Session start, a prompt and pre-compaction are sent again (within the
        # call's retries) when the connection closed with no answer: the daemon
        # most likely never ran them, and running one twice costs at most a repeat
        # stub or a prompt counted twice. A write is never sent again (it goes on
        # a connection of its own).
        return ep.retry_safe or (error.unanswered and not ep.writes)
    return False


def retry_delay(
    policy: RetryPolicy,
    attempt: int,
    error: SignetError,
    remaining: float | None,
    rng: random.Random | None = None,
) -> float | None:
    """Seconds to sleep before retry number ``attempt`` (1-based), or None to give up.

    A ``Retry-After`` from the daemon is honoured exactly; otherwise the wait
    is drawn from [0, min(max_delay, initial * 2**(attempt-1))]. If the wait
    would not leave time for the request itself, the call gives up now.
    """
    if attempt > policy.max_retries:
        return None
    said = getattr(error, "retry_after", None)  # 429 and 503 may carry Retry-After
    if said is not None:
        delay = float(said)
    else:
        ceiling = min(policy.max_delay, policy.initial_delay * (2 ** (attempt - 1)))
        if rng is None:
            import random  # jitter only; kept off the hook start-up path

            rng = random.Random()
        delay = rng.uniform(0, ceiling)
    if remaining is not None and delay >= remaining * 0.9:
        return None
    return delay


class CallBudget:
    """One call's deadline and attempt count, shared by every transport's loop.

    The loop is always the same five lines::

        budget = CallBudget(policy, request.timeout, clock)
        while True:
            try:
                return send(request, budget.attempt_timeout())
            except SignetError as exc:
                sleep(budget.next_delay(request.endpoint, exc))  # re-raises when done
    """

    def __init__(
        self,
        policy: RetryPolicy,
        deadline: float | None,
        clock: Callable[[], float],
        rng: random.Random | None = None,
    ) -> None:
        self.policy = policy
        self.clock = clock
        self.rng = rng
        self.started = clock()
        self.deadline = deadline
        self.attempt = 0

    def remaining(self) -> float | None:
        if self.deadline is None:
            return None
        return self.deadline - (self.clock() - self.started)

    def attempt_timeout(self) -> float | None:
        """The time this attempt may take: what is left of the whole budget.

        The first attempt starts as the budget does and gets the deadline as
        given (the microseconds in between are not worth a clock read, and a
        repeated value lets a transport reuse its timeout object).
        """
        self.attempt += 1
        if self.attempt == 1:
            return None if self.deadline is None else max(self.deadline, 0.001)
        left = self.remaining()
        return None if left is None else max(left, 0.001)

    def next_delay(self, ep: Endpoint, error: SignetError) -> float:
        """Seconds to wait before the next attempt; re-raises ``error`` when there is none."""
        if not should_retry(ep, error):
            raise error
        delay = retry_delay(self.policy, self.attempt, error, self.remaining(), self.rng)
        if delay is None:
            raise error
        return delay
