"""A standard-library client for processes that start per event (harness hooks).

Importing httpx and pydantic costs a hook process more time than the daemon
call itself, so hooks send plain dicts through ``http.client`` here. Requests
are built and answers judged by the same sans-I/O core as the full clients,
and retried under the same rules.
"""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ._config import ClientConfig
from ._core import PreparedRequest, build_request, judge_response
from ._endpoints import endpoint
from ._exceptions import APIConnectionError, APITimeoutError, NotSentError, SignetError
from ._retry import CallBudget, RetryPolicy

__all__ = ["LeanClient", "send_prepared"]


def send_prepared(request: PreparedRequest, timeout: float | None) -> Any:
    """One attempt over a fresh connection; returns the decoded 2xx body."""
    parts = urlsplit(request.url)
    conn_cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = conn_cls(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        try:
            conn.connect()
        except TimeoutError as exc:
            raise NotSentError(
                f"connect timed out: {request.url}", method=request.method, url=request.url
            ) from exc
        except OSError as exc:
            raise NotSentError(
                f"cannot connect to the Signet daemon at {request.url}: {exc}",
                method=request.method,
                url=request.url,
            ) from exc
        try:
            conn.request(request.method, target, body=request.content, headers=request.headers)
            resp = conn.getresponse()
            data = resp.read()
        except (TimeoutError, socket.timeout) as exc:
            raise APITimeoutError(
                f"no answer within {timeout}s: {request.method} {request.url}",
                method=request.method,
                url=request.url,
            ) from exc
        except (OSError, http.client.HTTPException) as exc:
            raise APIConnectionError(
                f"connection failed: {request.method} {request.url}: {exc}",
                method=request.method,
                url=request.url,
            ) from exc
        return judge_response(request, resp.status, dict(resp.getheaders()), data)
    finally:
        conn.close()


class LeanClient:
    """Calls endpoints by name with dict bodies; no third-party imports."""

    def __init__(self, config: ClientConfig, policy: RetryPolicy | None = None) -> None:
        self.config = config
        self.policy = policy or RetryPolicy(max_retries=config.max_retries)

    def call(
        self,
        name: str,
        body: Mapping[str, Any] | None = None,
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Any:
        request = build_request(
            self.config,
            endpoint(name),
            body=body,
            path_params=path_params,
            query=query,
            timeout=timeout,
        )
        budget = CallBudget(self.policy, request.timeout, time.monotonic)
        while True:
            try:
                return send_prepared(request, budget.attempt_timeout())
            except SignetError as exc:
                time.sleep(budget.next_delay(request.endpoint, exc))
