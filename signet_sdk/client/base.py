"""What the sync and async clients share: every decision, none of the I/O.

The two clients differ only in which I/O object sends a prepared request
(:mod:`signet_sdk.client.io`, which also maps its library's failures onto
the error tree) and how they sleep between attempts; building requests,
judging and validating answers and turning runtime-path conflicts into
typed outcomes all live here once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from signet_sdk.client.versions import DaemonVersions
from signet_sdk.wire.config import ClientConfig, resolve_config
from signet_sdk.wire.endpoints import Endpoint, endpoint
from signet_sdk.wire.errors import APIResponseValidationError, ConflictError, PayloadError
from signet_sdk.wire.lifecycle import LIFECYCLE, LifecycleCall
from signet_sdk.wire.request import PreparedRequest, build_request, hook_extras, judge_response
from signet_sdk.wire.retry import RetryPolicy

if TYPE_CHECKING:
    from typing import Self

    from typing_extensions import Unpack

    from signet_sdk.wire.config import ClientOptions, Timeouts

__all__ = ["BaseAdapterClient", "Plan", "SSEDecoder"]

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


class _Route:
    """What every call to one endpoint without path or query parameters shares.

    Only the body differs between two such calls, so URL, headers, deadline
    and the hook members a body may lack are decided once per client.
    """

    __slots__ = ("endpoint", "extras", "headers", "target", "timeout", "url")

    def __init__(self, config: ClientConfig, ep: Endpoint) -> None:
        sample = build_request(config, ep, body={})
        self.endpoint = ep
        self.url = sample.url
        self.target = sample.target
        self.headers = sample.headers
        self.timeout = sample.timeout
        self.extras = hook_extras(config, ep) if ep.hook else ()


#: Per request model: wire key -> field name, to tell which hook members a
#: body already carries.
_WIRE_FIELDS: dict[type[BaseModel], dict[str, str]] = {}


def _wire_fields(model: type[BaseModel]) -> dict[str, str]:
    found = _WIRE_FIELDS.get(model)
    if found is None:
        found = {(info.alias or name): name for name, info in model.model_fields.items()}
        _WIRE_FIELDS[model] = found
    return found


def _serialise(body: BaseModel, extras: tuple[tuple[str, bytes], ...]) -> bytes:
    """The body's wire JSON, with the hook members it lacks appended.

    The same bytes as ``to_wire()`` through :func:`hook_body` and compact
    JSON, in one serialiser pass: pydantic writes the JSON itself instead of
    building a dict for the ``json`` encoder to walk again.
    """
    serialise = body.__pydantic_serializer__.to_json
    if not extras:
        content: bytes = serialise(body, by_alias=True, exclude_unset=True)
        return content
    fields = _wire_fields(type(body))
    present = body.model_fields_set
    # A member set to None is no value: hook_body gives it the client's.
    nulls = {
        fields[key]
        for key, _ in extras
        if fields.get(key) in present and getattr(body, fields[key]) is None
    }
    content = serialise(body, by_alias=True, exclude_unset=True, exclude=nulls or None)
    added = [
        member
        for key, member in extras
        if fields.get(key) not in present or fields.get(key) in nulls
    ]
    if not added:
        return content
    joiner = b"," if len(content) > 2 else b""
    return content[:-1] + joiner + b",".join(added) + b"}"


class BaseAdapterClient(DaemonVersions):
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
        self._header_cache: dict[tuple[str, bool], dict[str, str]] = {}
        self._routes: dict[str, _Route] = {}
        self._closed = False
        #: A copy from :meth:`with_options` uses the original's pool: closing
        #: the copy must not close it under the original.
        self._borrows_pool = False

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

    def with_options(
        self, *, timeout: float | Timeouts | None = None, max_retries: int | None = None
    ) -> Self:
        """This client with another deadline (seconds, whole call) or retry count.

        For one call: ``client.with_options(timeout=2).recall(params)``. The
        copy shares this client's connection pool; close the original.
        Closing the copy (``with client.with_options(...) as fast:``) ends
        only the copy, never the pool the original goes on using.
        """
        import copy

        checked = resolve_config(self.base_url, timeout=timeout, max_retries=max_retries, env={})
        changes: dict[str, Any] = {}
        if timeout is not None:
            changes["timeouts"] = checked.timeouts
        if max_retries is not None:
            changes["max_retries"] = checked.max_retries
        new = copy.copy(self)
        new._config = self._config.with_options(**changes)
        new._policy = RetryPolicy(max_retries=new._config.max_retries)
        new._routes = {}
        new._borrows_pool = True
        return new

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
        if self._closed:
            from signet_sdk.wire.errors import ConfigError

            raise ConfigError("client", "is closed; create a new client to make more calls")
        if isinstance(body, BaseModel) and path_params is None and query is None:
            route = self._routes.get(name)
            if route is None:
                ep = endpoint(name)
                if ep.method not in ("POST", "PATCH") or ep.path_params:
                    return self._slow_plan(name, model, body, path_params, query)
                route = self._routes[name] = _Route(self._config, ep)
            request = PreparedRequest(
                route.endpoint,
                route.endpoint.method,
                route.url,
                route.target,
                route.headers,
                _serialise(body, route.extras),
                route.timeout,
            )
            return Plan(request, model)
        return self._slow_plan(name, model, body, path_params, query)

    def _slow_plan(
        self,
        name: str,
        model: type[BaseModel],
        body: BaseModel | Mapping[str, Any] | None,
        path_params: Mapping[str, str] | None,
        query: Mapping[str, Any] | None,
    ) -> Plan:
        wire = body.to_wire() if isinstance(body, BaseModel) else body  # type: ignore[attr-defined]
        request = build_request(
            self._config,
            endpoint(name),
            body=wire,
            path_params=path_params,
            query=query,
            header_cache=self._header_cache,
        )
        return Plan(request, model)

    @staticmethod
    def _lifecycle_params(call: LifecycleCall) -> BaseModel:
        """Validate a translated call's wire body into its typed params model."""
        import signet_sdk.models as _models

        row = LIFECYCLE.get(call.action)
        if row is None:
            known = ", ".join(LIFECYCLE)
            raise PayloadError(
                "action", f"unknown lifecycle action {call.action!r}; known: {known}"
            )
        name = row.params_model
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

    def _stream_timeout(self) -> float | None:
        """A stream has no deadline; connecting to the daemon has the default one."""
        return self._config.timeouts.default

    # -- answers ----------------------------------------------------------

    @staticmethod
    def _judge(
        request: PreparedRequest, status: int, headers: Mapping[str, str], content: bytes
    ) -> Any:
        return judge_response(request, status, headers, content)

    @classmethod
    def _result(cls, plan: Plan, status: int, headers: Mapping[str, str], content: bytes) -> Any:
        """The typed result of an answer, or the error it stands for.

        A 2xx JSON object goes from bytes to model in one step (pydantic
        parses and validates together, the per-call cost that matters at
        thousands of calls a second); whatever that does not accept takes the
        long way (judge, decode, validate), which gives the same result or
        names the exact problem.
        """
        if 200 <= status < 300 and content[:1] == b"{":
            try:
                return plan.model.model_validate_json(content)
            except ValidationError:
                pass
        return cls._validate(plan, cls._judge(plan.request, status, headers, content))

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
