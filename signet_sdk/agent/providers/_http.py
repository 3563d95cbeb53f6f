"""How the built-in providers move bytes: the SDK's own I/O objects, retries, one deadline.

A model call goes out over :mod:`signet_sdk.client.io` (httpx for the sync
providers, aiohttp or the caller's httpx client for the async ones), so it
gets the daemon client's pool, header handling and deadline machinery, and
the sync and async twins put the same request on the wire.

* One deadline per call (``options.timeout``): a non-streamed call from
  connect to the answer's last byte, a streamed call until its first line.
  Retries and the waits before them spend the same deadline.
* Retries (:class:`~signet_sdk.wire.retry.RetryPolicy`, ``retry_delay``) on
  a refused connection and on 429, 500, 502, 503, 504 and Anthropic's 529,
  with a ``Retry-After`` honoured exactly; a streamed call only until its
  first line arrives. After that a failure raises: text already shown
  cannot be taken back.
* Errors are the SDK's, worded for a model API rather than the daemon
  (``anthropic: cannot connect: POST https://...``).

The sync first-line deadline relies on the pool the provider makes itself
(:func:`~signet_sdk.client.io.httpx_transport`); an ``httpx.Client`` passed
in bounds only the connect unless it was made on that transport.
"""

from __future__ import annotations

import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Generator,
    Iterator,
    Mapping,
)
from typing import TYPE_CHECKING, Any

from signet_sdk.agent.providers._wire import ModelRequest, answer_failure
from signet_sdk.wire import jsonfast
from signet_sdk.wire.endpoints import Endpoint
from signet_sdk.wire.errors import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    NotSentError,
)
from signet_sdk.wire.request import PreparedRequest
from signet_sdk.wire.retry import RetryPolicy, retry_delay

if TYPE_CHECKING:
    from signet_sdk.client.io import AiohttpIO, AsyncHTTPClient, AsyncHttpxIO, HTTPClient, HttpxIO

__all__ = [
    "DEFAULT_RETRY",
    "PROBE_SECONDS",
    "RETRY_STATUSES",
    "AsyncTransport",
    "SyncTransport",
    "retryable",
]

#: Statuses a model API sends when trying again later can help: rate limits,
#: overload (Anthropic's 529) and the gateway errors of a busy fleet.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504, 529})
#: Two more tries, waits drawn from [0, 0.5 s], then [0, 1 s] (unless the API says how long).
DEFAULT_RETRY = RetryPolicy(max_retries=2, initial_delay=0.5, max_delay=8.0)
#: How long ``available()`` waits for a server's model list.
PROBE_SECONDS = 2.0

# The I/O objects take the daemon client's request record; its endpoint is not read.
_MODEL_CALL = Endpoint("model-api", "POST", "/", "ops", None, "", False, "none", "stream")

# Looked up at each wait, so a test can watch the waits without spending them.
_sleep = time.sleep


async def _asleep(seconds: float) -> None:
    import asyncio  # loaded by the async providers only

    await asyncio.sleep(seconds)


def retryable(error: APIError) -> bool:
    """Whether sending the same request again may succeed: refused, or a status that says so."""
    if isinstance(error, NotSentError):
        return True
    return isinstance(error, APIStatusError) and error.status_code in RETRY_STATUSES


def _prepared(request: ModelRequest) -> PreparedRequest:
    _, _, rest = request.url.partition("://")
    slash = rest.find("/")
    target = rest[slash:] if slash >= 0 else "/"
    return PreparedRequest(
        _MODEL_CALL, request.method, request.url, target, request.headers, request.content, None
    )


def _reworded(provider: str, request: ModelRequest, exc: APIConnectionError) -> APIConnectionError:
    """``exc`` from the I/O object, in a model API's words (it speaks of the daemon)."""
    where = f"{request.method} {request.url}"
    cause = exc.__cause__
    detail = str(cause) if cause is not None else ""
    if not detail:
        # A bare timeout says nothing; the I/O object's message ends with why (a
        # pool that stayed full, a connect that hung): "...: <where>: <why>".
        detail = exc.message.rpartition(": ")[2] or type(cause).__name__
    new: APIConnectionError
    if isinstance(exc, NotSentError):
        new = NotSentError(f"{provider}: cannot connect: {where}: {detail}", **_at(request))
    elif isinstance(exc, APITimeoutError):
        new = APITimeoutError(f"{provider}: no answer within the deadline: {where}", **_at(request))
    else:
        new = APIConnectionError(
            f"{provider}: connection failed: {where}: {detail}", **_at(request)
        )
    new.__cause__ = cause
    return new


def _failure(
    provider: str, request: ModelRequest
) -> Callable[[int, Mapping[str, str], bytes], None]:
    """What a streamed call does with a non-2xx answer: raise its status error."""

    def raise_it(status: int, headers: Mapping[str, str], content: bytes) -> None:
        raise answer_failure(provider, request, status, headers, content)

    return raise_it


def _at(request: ModelRequest) -> dict[str, str]:
    return {"method": request.method, "url": request.url}


def _json(provider: str, request: ModelRequest, content: bytes) -> Any:
    try:
        return jsonfast.loads(content)
    except ValueError:
        text = content.decode("utf-8", "replace")
        raise APIResponseValidationError(
            f"{provider}: {request.method} {request.url}: the answer is not JSON: {text[:200]!r}",
            body=text,
            **_at(request),
        ) from None


class _Budget:
    """One call's deadline and tries: what is left of it, and the wait before the next try.

    Both transports drive their tries with it, so what a failed try means
    (another try, or the error the caller gets) is decided here once.
    """

    def __init__(
        self, provider: str, request: ModelRequest, policy: RetryPolicy, timeout: float | None
    ) -> None:
        self.provider = provider
        self.request = request
        self.prepared = _prepared(request)
        self.policy = policy
        self.timeout = timeout
        self.started = time.monotonic()
        self.attempt = 0

    def left(self) -> float | None:
        if self.timeout is None:
            return None
        return max(self.timeout - (time.monotonic() - self.started), 0.001)

    def next_try(self) -> float | None:
        """The time this try may take (what is left of the deadline)."""
        self.attempt += 1
        return self.left()

    def wait(self, error: APIError) -> float | None:
        """Seconds to wait before trying again, or None when ``error`` is the answer."""
        if not retryable(error):
            return None
        left = None if self.timeout is None else self.timeout - (time.monotonic() - self.started)
        return retry_delay(self.policy, self.attempt, error, left)

    def retry_after(self, exc: APIError) -> float:
        """Seconds to wait after a try that failed with ``exc``; raised when it is the answer.

        A connection error is raised in the model API's words (:func:`_reworded`).
        """
        error = (
            _reworded(self.provider, self.request, exc)
            if isinstance(exc, APIConnectionError)
            else exc
        )
        delay = self.wait(error)
        if delay is None:
            raise error from error.__cause__
        return delay

    def answer_of(self, status: int, headers: Mapping[str, str], content: bytes) -> APIError | Any:
        """A whole answer's JSON, or, for a status other than 2xx, the error it stands for."""
        if 200 <= status < 300:
            return _json(self.provider, self.request, content)
        return answer_failure(self.provider, self.request, status, headers, content)


class SyncTransport:
    """The sync providers' calls, on one ``httpx.Client`` (made here unless given)."""

    def __init__(self, provider: str, retry: RetryPolicy, http_client: HTTPClient | None) -> None:
        from signet_sdk.client.io import HttpxIO

        self.provider = provider
        self.retry = retry
        self.io: HttpxIO = HttpxIO(http_client)

    def call(self, request: ModelRequest, timeout: float | None) -> Any:
        """A whole answer's JSON; retried within ``timeout`` while that may help."""
        budget = _Budget(self.provider, request, self.retry, timeout)
        while True:
            try:
                answer = budget.answer_of(*self.io.send(budget.prepared, budget.next_try()))
            except APIConnectionError as exc:
                answer = exc
            if not isinstance(answer, APIError):
                return answer
            _sleep(budget.retry_after(answer))

    def lines(self, request: ModelRequest, timeout: float | None) -> Generator[str, None, None]:
        """The lines of a streamed answer; ``timeout`` and retries end with its first line."""
        from signet_sdk.client.deadline import DEADLINE

        budget = _Budget(self.provider, request, self.retry, timeout)
        while True:
            left = budget.next_try()
            source = self.io.lines(budget.prepared, left, _failure(self.provider, request))
            DEADLINE.at = None if left is None else time.monotonic() + left
            try:
                first = next(source)
            except StopIteration:
                return
            except APIError as exc:
                _close(source)
                _sleep(budget.retry_after(exc))
                continue
            finally:
                DEADLINE.at = None
            break
        try:
            yield first
            yield from source
        except APIConnectionError as exc:
            error = _reworded(self.provider, request, exc)
            raise error from error.__cause__
        finally:
            _close(source)

    def probe(self, request: ModelRequest) -> bool:
        """Whether ``request`` (a model list) gets a 2xx within :data:`PROBE_SECONDS`."""
        try:
            status, _, _ = self.io.send(_prepared(request), PROBE_SECONDS)
        except APIError:
            return False
        return 200 <= status < 300

    def close(self) -> None:
        self.io.close()


class AsyncTransport:
    """The async providers' calls: aiohttp, or the caller's httpx client or aiohttp session."""

    def __init__(
        self, provider: str, retry: RetryPolicy, http_client: AsyncHTTPClient | None
    ) -> None:
        from signet_sdk.client.io import async_io_for

        self.provider = provider
        self.retry = retry
        self.io: AiohttpIO | AsyncHttpxIO = async_io_for(http_client)

    async def call(self, request: ModelRequest, timeout: float | None) -> Any:
        """A whole answer's JSON; retried within ``timeout`` while that may help."""
        budget = _Budget(self.provider, request, self.retry, timeout)
        while True:
            try:
                answer = budget.answer_of(*await self.io.send(budget.prepared, budget.next_try()))
            except APIConnectionError as exc:
                answer = exc
            if not isinstance(answer, APIError):
                return answer
            await _asleep(budget.retry_after(answer))

    async def lines(
        self, request: ModelRequest, timeout: float | None
    ) -> AsyncGenerator[str, None]:
        """The lines of a streamed answer; ``timeout`` and retries end with its first line."""
        budget = _Budget(self.provider, request, self.retry, timeout)
        while True:
            left = budget.next_try()
            source = self.io.lines(budget.prepared, left, _failure(self.provider, request))
            try:
                first = await _first_line(source, left)
            except StopAsyncIteration:
                return
            except TimeoutError:
                await _aclose(source)
                raise APITimeoutError(
                    f"{self.provider}: no answer within the deadline: "
                    f"{request.method} {request.url}",
                    **_at(request),
                ) from None
            except APIError as exc:
                await _aclose(source)
                await _asleep(budget.retry_after(exc))
                continue
            break
        try:
            yield first
            async for line in source:
                yield line
        except APIConnectionError as exc:
            error = _reworded(self.provider, request, exc)
            raise error from error.__cause__
        finally:
            await _aclose(source)

    async def probe(self, request: ModelRequest) -> bool:
        """Whether ``request`` (a model list) gets a 2xx within :data:`PROBE_SECONDS`."""
        try:
            status, _, _ = await self.io.send(_prepared(request), PROBE_SECONDS)
        except APIError:
            return False
        return 200 <= status < 300

    async def aclose(self) -> None:
        await self.io.aclose()


def _close(source: Iterator[str]) -> None:
    """Stop reading an answer: the I/O objects give generators, and closing one frees its socket."""
    close = getattr(source, "close", None)
    if close is not None:
        close()


async def _aclose(source: AsyncIterator[str]) -> None:
    aclose = getattr(source, "aclose", None)
    if aclose is not None:
        await aclose()


async def _first_line(source: AsyncIterator[str], seconds: float | None) -> str:
    """The first line of ``source``, within ``seconds`` on asyncio (any wait elsewhere)."""
    import asyncio

    if seconds is None:
        return await anext(source)
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # another event loop: the connect timeout only
        return await anext(source)
    async with asyncio.timeout(seconds):
        return await anext(source)
