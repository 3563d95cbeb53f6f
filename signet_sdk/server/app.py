"""``RuntimeAdapterServer``: the adapter contract over HTTP, for plugin harnesses and any language.

Routes (JSON; OpenAPI at ``/openapi.json``, docs at ``/docs``):

* ``GET /health``: this server's version, installed harnesses and the
  daemon's state; never a 5xx because the daemon is down.
* ``POST /v1/{harness}/lifecycle/{action}``: the harness-neutral lifecycle
  (``session-start`` ... ``recall``); body the params model, answer the
  result model, camelCase like the daemon. Any harness name works.
* ``POST /v1/{harness}/events/{event}``: a native event of an installed
  plugin through the same dispatch as the hook runner; fails open (200 with
  the neutral output and ``degraded``) within the event's deadline.
* ``GET /v1/tools`` and ``POST /v1/tools/{name}``: the memory tool set.

One ``httpx.AsyncClient`` pool serves every harness's client and is closed
on shutdown. :class:`~signet_sdk.server.security.Gate` wraps the app.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Annotated, Any

import httpx
from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel

import signet_sdk.models as models
from signet_sdk._version import __version__
from signet_sdk.client.async_client import AsyncAdapterClient
from signet_sdk.client.base import POOL_LIMITS
from signet_sdk.hooks.outbox import Outbox
from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.runtime.registry import find_plugin, installed_adapters
from signet_sdk.server.events import EventRunner, default_outbox_dir, output_wire
from signet_sdk.server.security import Gate
from signet_sdk.wire.errors import (
    APIStatusError,
    APITimeoutError,
    PayloadError,
    SignetError,
)
from signet_sdk.wire.lifecycle import LIFECYCLE, LifecycleAction

__all__ = ["DEFAULT_BODY_LIMIT", "RuntimeAdapterServer"]

#: Largest request body accepted; a transcript-bearing event stays well under it.
DEFAULT_BODY_LIMIT = 4 * 1024 * 1024
_SLUGS = [row.slug for row in LIFECYCLE.values()]


def _error(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def _daemon_error(exc: SignetError) -> JSONResponse:
    """A daemon failure on a lifecycle or tool route: its status, or 502/504 when unreachable."""
    if isinstance(exc, PayloadError):
        return _error(422, str(exc), field=exc.field)
    if isinstance(exc, APIStatusError):
        return _error(exc.status_code, str(exc), daemonStatus=exc.status_code)
    if isinstance(exc, APITimeoutError):
        return _error(504, f"the daemon did not answer in time: {exc}")
    return _error(502, f"the daemon could not be reached: {exc}")


class RuntimeAdapterServer:
    """The FastAPI app, its shared daemon pool and its security gate.

    ``asgi`` is the application to serve (``signet-sdk serve`` runs it on
    uvicorn; mount it in your own app or run it with any ASGI server).
    ``daemon_url``, ``token`` (the daemon's) and ``options`` configure the
    daemon clients as ``create_adapter`` does. ``server_token`` protects this
    server; ``allowed_hosts`` lists the ``Host`` values it answers to (empty:
    no check, for mounting behind your own front).
    """

    def __init__(
        self,
        daemon_url: str | None = None,
        *,
        server_token: str | None = None,
        allowed_hosts: list[str] | None = None,
        body_limit: int = DEFAULT_BODY_LIMIT,
        env: Mapping[str, str] | None = None,
        outbox_dir: str | None = None,
        http_client: httpx.AsyncClient | None = None,
        **options: Any,
    ) -> None:
        self.daemon_url = daemon_url
        self.env = dict(os.environ if env is None else env)
        self.options = options
        self.outbox = Outbox(outbox_dir or default_outbox_dir(self.env))
        self._given_http = http_client
        self._http: httpx.AsyncClient | None = http_client
        self._clients: dict[str, AsyncAdapterClient] = {}
        self._plugins: dict[str, HarnessPlugin | None] = {}
        self._runners: dict[str, EventRunner] = {}
        #: ``time.monotonic()`` of the last request, for ``--idle-exit``.
        self.last_request = time.monotonic()
        self.fastapi = self._build()
        self.asgi = Gate(
            self._touching(self.fastapi),
            token=server_token,
            allowed_hosts=allowed_hosts or [],
            body_limit=body_limit,
        )

    # -- shared state --------------------------------------------------------

    def _touching(self, app: Any) -> Any:
        async def touched(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                self.last_request = time.monotonic()
            await app(scope, receive, send)

        return touched

    def plugin(self, harness: str) -> HarnessPlugin | None:
        if harness not in self._plugins:
            self._plugins[harness] = find_plugin(harness)
        return self._plugins[harness]

    def client(self, harness: str) -> AsyncAdapterClient:
        """The harness's client on the one shared pool (made on first use)."""
        found = self._clients.get(harness)
        if found is None:
            if self._http is None:
                self._http = httpx.AsyncClient(limits=POOL_LIMITS)
            options = dict(self.options)
            plugin = self.plugin(harness)
            if plugin is not None and plugin.runtime_path and "runtime_path" not in options:
                options["runtime_path"] = plugin.runtime_path
            options.setdefault("env", self.env)
            found = AsyncAdapterClient(harness, self.daemon_url, http_client=self._http, **options)
            self._clients[harness] = found
        return found

    def runner(self, plugin: HarnessPlugin) -> EventRunner:
        found = self._runners.get(plugin.name)
        if found is None:
            found = EventRunner(plugin, self.client(plugin.name), self.outbox, self.env)
            self._runners[plugin.name] = found
        return found

    async def aclose(self) -> None:
        """Close the shared pool (unless the caller owns it)."""
        if self._http is not None and self._given_http is None:
            await self._http.aclose()
        self._http = self._given_http
        self._clients.clear()
        self._runners.clear()

    # -- the app -------------------------------------------------------------

    def _build(self) -> FastAPI:
        @asynccontextmanager
        async def lifespan(app: FastAPI) -> AsyncIterator[None]:
            yield
            await self.aclose()

        app = FastAPI(
            title="signet-sdk RuntimeAdapterServer",
            version=__version__,
            description="The Signet runtime adapter contract over HTTP.",
            lifespan=lifespan,
        )

        @app.exception_handler(RequestValidationError)
        async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
            first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid"}
            loc = [str(p) for p in first["loc"] if p not in ("body",)]
            field = ".".join(loc) or "body"
            return _error(422, f"{field}: {first['msg']}", field=field)

        @app.get("/health")
        async def health() -> dict[str, Any]:
            """This server and the daemon behind it; 200 even when the daemon is down."""
            daemon: dict[str, Any] = {"reachable": False, "version": None, "degraded": None}
            try:
                status = await self.client("signet-sdk-server").health()
                daemon.update(reachable=True, version=status.version, status=status.status)
            except SignetError as exc:
                daemon["degraded"] = f"{type(exc).__name__}: {exc}"
            return {
                "status": "ok",
                "version": __version__,
                "harnesses": installed_adapters(),
                "daemon": daemon,
            }

        for row in LIFECYCLE.values():
            self._lifecycle_route(app, row)

        @app.post("/v1/{harness}/lifecycle/{action}", include_in_schema=False)
        async def unknown_action(harness: str, action: str) -> JSONResponse:
            return _error(404, f"unknown action {action!r}", valid=_SLUGS)

        @app.post("/v1/{harness}/events/{event}")
        async def native_event(
            harness: str, event: str, payload: Annotated[dict[str, Any], Body()]
        ) -> Any:
            """One native event of an installed plugin; fails open within its deadline."""
            plugin = self.plugin(harness)
            if plugin is None:
                return _error(
                    404, f"no plugin installed for {harness!r}", installed=installed_adapters()
                )
            if event not in plugin.events:
                return _error(
                    404, f"unknown event {event!r} for {harness}", valid=list(plugin.events)
                )
            run, queued = await self.runner(plugin).run(event, payload)
            return output_wire(run, queued)

        from signet_sdk.server.tools import add_tool_routes

        add_tool_routes(app, self)
        return app

    def _lifecycle_route(self, app: FastAPI, row: LifecycleAction) -> None:
        params_model: type[BaseModel] = getattr(models, row.params_model)
        result_model: type[BaseModel] = getattr(models, row.result_model)

        async def call(harness: str, params: BaseModel) -> Any:
            try:
                result = await getattr(self.client(harness), row.method)(params)
            except SignetError as exc:
                return _daemon_error(exc)
            return result.model_dump(mode="json", by_alias=True, exclude_unset=True)

        call.__annotations__["params"] = params_model
        app.post(
            f"/v1/{{harness}}/lifecycle/{row.slug}",
            response_model=result_model,
            response_model_by_alias=True,
            response_model_exclude_unset=True,
            name=row.slug,
            summary=f"{row.method}: POST /api/hooks/{row.slug}",
        )(call)
