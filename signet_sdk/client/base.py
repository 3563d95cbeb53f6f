"""What the sync and async clients share: every decision, none of the I/O.

The two clients differ only in how they send a prepared request and how
they sleep between attempts; building requests, mapping transport failures
to the error tree, validating answers and turning runtime-path conflicts
into typed outcomes all live here once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import BaseModel, ValidationError

from signet_sdk.wire.config import ClientConfig, resolve_config
from signet_sdk.wire.endpoints import Endpoint, endpoint
from signet_sdk.wire.errors import (
    APIConnectionError,
    APIResponseValidationError,
    APITimeoutError,
    ConflictError,
    NotSentError,
    PayloadError,
)
from signet_sdk.wire.lifecycle import LIFECYCLE, LifecycleCall
from signet_sdk.wire.request import PreparedRequest, build_request, judge_response
from signet_sdk.wire.retry import RetryPolicy

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from signet_sdk.wire.config import ClientOptions

__all__ = ["BaseAdapterClient", "Plan", "SSEDecoder"]

#: Keep-alive for as many connections as may be open: httpcore closes any idle
#: connection while more than ``max_keepalive_connections`` exist, so a lower
#: keep-alive cap turns every concurrent burst into fresh TCP connections.
POOL_LIMITS = httpx.Limits(
    max_connections=100, max_keepalive_connections=100, keepalive_expiry=30.0
)


#: Lifecycle calls whose runtime-path 409 is an outcome, not a failure: the
#: other path owns the session and does the work. ``remember`` stays an error,
#: because a memory that was not stored must never look like success.
_CONFLICT_AS_OUTCOME = frozenset(LIFECYCLE) - {"remember"}


class Plan:
    """A prepared request plus the model its answer must fit."""

    __slots__ = ("model", "request")

    def __init__(self, request: PreparedRequest, model: type[BaseModel]) -> None:
        self.request = request
        self.model = model


class BaseAdapterClient:
    """Configuration, request planning and answer handling for both clients."""

    def __init__(
        self,
        harness: str,
        daemon_url: str | None = None,
        *,
        config: ClientConfig | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        if not harness or not isinstance(harness, str):
            from signet_sdk.wire.errors import ConfigError

            raise ConfigError("harness", "must be a non-empty string such as 'openclaw'")
        self._config = config or resolve_config(daemon_url, harness=harness, **options)
        self._policy = RetryPolicy(max_retries=self._config.max_retries)

    @property
    def harness(self) -> str:
        return self._config.harness or ""

    @property
    def config(self) -> ClientConfig:
        """The resolved settings (arguments > environment > defaults)."""
        return self._config

    @property
    def base_url(self) -> str:
        return self._config.base_url

    # -- planning ---------------------------------------------------------

    def _plan(
        self,
        name: str,
        model: type[BaseModel],
        body: BaseModel | Mapping[str, Any] | None = None,
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
    ) -> Plan:
        wire = body.to_wire() if isinstance(body, BaseModel) else body  # type: ignore[attr-defined]
        request = build_request(
            self._config, endpoint(name), body=wire, path_params=path_params, query=query
        )
        return Plan(request, model)

    @staticmethod
    def _lifecycle_params(call: LifecycleCall) -> BaseModel:
        """Validate a translated call's wire body into its typed params model."""
        import signet_sdk.models as _models

        name = LIFECYCLE[call.action].params_model
        model: type[BaseModel] = getattr(_models, name)
        try:
            return model.model_validate(dict(call.body))
        except ValidationError as exc:
            err = exc.errors()[0]
            # The payload speaks wire names, so the error should too.
            loc = [str(p) for p in err["loc"]]
            info = model.model_fields.get(loc[0]) if loc else None
            if info is not None and info.alias:
                loc[0] = info.alias
            field = ".".join(loc) or call.action
            raise PayloadError(field, f"{call.action}: {err['msg']}") from exc

    @staticmethod
    def _summaries_query(
        agent_id: str | None,
        session_key: str | None,
        project: str | None,
        depth: int | None,
        limit: int | None,
        offset: int | None,
    ) -> dict[str, Any]:
        # This route reads camelCase query names, unlike the rest of /api/sessions.
        return {
            "agentId": agent_id,
            "sessionKey": session_key,
            "project": project,
            "depth": depth,
            "limit": limit,
            "offset": offset,
        }

    def _stream_timeout(self) -> httpx.Timeout:
        connect = self._config.timeouts.default
        return httpx.Timeout(None, connect=connect)

    # -- answers ----------------------------------------------------------

    @staticmethod
    def _judge(
        request: PreparedRequest, status: int, headers: Mapping[str, str], content: bytes
    ) -> Any:
        return judge_response(request, status, headers, content)

    @staticmethod
    def _validate(plan: Plan, data: Any) -> Any:
        try:
            return plan.model.model_validate(data)
        except ValidationError as exc:
            req = plan.request
            fields = ", ".join(
                ".".join(str(p) for p in err["loc"]) or "(body)" for err in exc.errors()
            )
            raise APIResponseValidationError(
                f"{req.method} {req.url}: answer does not fit {plan.model.__name__} ({fields})",
                method=req.method,
                url=req.url,
                body=data,
            ) from exc

    @staticmethod
    def _conflict_outcome(ep: Endpoint, model: type[BaseModel], exc: ConflictError) -> Any:
        """A runtime-path 409 on a lifecycle call, as the skip result TS 0.109 sends."""
        if ep.name not in _CONFLICT_AS_OUTCOME or exc.claimed_by is None:
            raise exc
        return model.model_validate(
            {"skipped": True, "duplicateRuntimePath": True, "claimedBy": exc.claimed_by}
        )

    @staticmethod
    def _transport_error(request: PreparedRequest, exc: httpx.HTTPError) -> APIConnectionError:
        """Map an httpx failure onto the error tree; raw httpx never escapes."""
        where = f"{request.method} {request.url}"
        kw = {"method": request.method, "url": request.url}
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
            return NotSentError(f"cannot connect to the Signet daemon: {where}: {exc}", **kw)
        if isinstance(exc, httpx.TimeoutException):
            return APITimeoutError(f"no answer within the deadline: {where}", **kw)
        return APIConnectionError(f"connection failed: {where}: {exc}", **kw)

    @staticmethod
    def _httpx_timeout(seconds: float | None) -> httpx.Timeout:
        return httpx.Timeout(seconds)


class SSEDecoder:
    """Turns event-stream lines into the JSON objects of their ``data:`` frames.

    The daemon's log stream sends only ``data:`` fields and opens with a
    ``{"type":"connected"}`` frame, which is not a log entry and is dropped.
    """

    def __init__(self) -> None:
        self._data: list[str] = []

    def feed(self, line: str) -> dict[str, Any] | None:
        if line.startswith("data:"):
            self._data.append(line[5:].lstrip(" "))
            return None
        if line or not self._data:
            return None
        text, self._data = "\n".join(self._data), []
        try:
            frame = json.loads(text)
        except ValueError:
            return None
        if isinstance(frame, dict) and frame.get("type") != "connected":
            return frame
        return None
