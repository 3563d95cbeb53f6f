"""``RuntimeAdapterServer``: the adapter contract over HTTP, for plugin harnesses and any language.

Routes (JSON; OpenAPI at ``/openapi.json``, docs at ``/docs``):

* ``GET /health``: this server's version, installed harnesses and the
  daemon's state; never a 5xx because the daemon is down.
* ``POST /v1/{harness}/lifecycle/{action}``: the harness-neutral lifecycle
  (``session-start`` ... ``recall``); body the params model, answer the
  result model, camelCase like the daemon. Any harness name works.
* ``POST /v1/{harness}/events/{event}``: a native event of an installed
  plugin through the same dispatch as the hook runner; fails open (200 with
  the neutral output and ``degraded``) within the event's deadline. An
  ``X-Signet-Event-Id`` header names the event's writes in the outbox (a
  shim's transport sends one; see :mod:`signet_sdk.hooks.entry`).
* ``GET /v1/tools`` and ``POST /v1/tools/{name}``: the memory tool set.
* ``/v1/agent/sessions``: the reference runtime's sessions, served only
  when the server is given an ``Agent`` (:mod:`signet_sdk.server.agent_routes`).

One daemon pool (an ``aiohttp.ClientSession`` on asyncio, else an
``httpx.AsyncClient``) serves every harness's client and is closed on
shutdown; pass ``http_client`` to use your own.
:class:`~signet_sdk.server.security.Gate` wraps the app.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Body, FastAPI, Header, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

import signet_sdk.models as models
from signet_sdk._version import __version__
from signet_sdk.client.async_client import AsyncAdapterClient
from signet_sdk.hooks.entry import EVENT_ID_HEADER, valid_event_id
from signet_sdk.hooks.outbox import Outbox
from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.runtime.registry import find_plugin, installed_adapters
from signet_sdk.server.errors import daemon_error, error, framework_refusal, invalid_answer
from signet_sdk.server.events import EventRunner, Handoff, output_wire
from signet_sdk.server.fastpath import events_first
from signet_sdk.server.pool import SharedPool
from signet_sdk.server.security import Gate
from signet_sdk.wire.errors import SignetError
from signet_sdk.wire.lifecycle import LIFECYCLE, LifecycleAction
from signet_sdk.wire.log import logger as log

if TYPE_CHECKING:
    from signet_sdk.agent.agent import Agent
    from signet_sdk.client.io import AsyncHTTPClient
    from signet_sdk.server.agent_sessions import AgentSessions

__all__ = ["DEFAULT_BODY_LIMIT", "RuntimeAdapterServer"]

#: Largest request body accepted; a transcript-bearing event stays well under it.
DEFAULT_BODY_LIMIT = 4 * 1024 * 1024
#: How many harness clients (and plugin look-ups) are kept; any name is accepted.
_CACHED_HARNESSES = 64
#: ``/health`` waits this long for the daemon before it reports it degraded.
_HEALTH_SECONDS = 3.0
_SLUGS = [row.slug for row in LIFECYCLE.values()]


class EventAnswer(BaseModel):
    """What ``POST /v1/{harness}/events/{event}`` answers (documented in the OpenAPI)."""

    data: Any = Field(description="the structured output the harness's plugin applies")
    stdout: str = Field(description="what a command hook would print")
    exit_code: int = Field(alias="exitCode", description="what a command hook would exit with")
    degraded: str | None = Field(description="why the output is the neutral one, or null")
    pending: list[str] = Field(description="writes safe in the outbox, not yet taken")


class _Bounded(OrderedDict[str, Any]):
    """A small LRU: lifecycle routes accept any harness name, so memory must not grow with them."""

    def remember(self, key: str, value: Any) -> Any:
        self[key] = value
        if len(self) > _CACHED_HARNESSES:
            self.popitem(last=False)
        return value


class RuntimeAdapterServer:
    """The FastAPI app, its shared daemon pool and its security gate.

    ``asgi`` is the application to serve (``signet-sdk serve`` runs it on
    uvicorn; run it with any ASGI server, or mount it in your own app and
    call :meth:`aclose` when that app shuts down). ``daemon_url`` and
    ``options`` (``token`` for the daemon, ``timeout``, ``max_retries`` ...)
    configure the daemon clients as ``create_adapter`` does.

    ``server_token`` protects this server: every request then needs
    ``Authorization: Bearer <server_token>``. ``allowed_hosts`` lists the
    ``Host`` values it answers to (``name`` or ``name:port``); the default
    is the loopback names on any port, ``["*"]`` turns the check off for a
    server behind your own front. ``body_limit`` caps request bodies (413).
    ``allow_exec`` serves the ``secrets_exec`` tool, which runs commands.

    ``agent`` serves that agent's sessions under ``/v1/agent/sessions``
    (``agent_sessions`` holds them); a session without a turn for
    ``agent_idle`` seconds is ended, and every open one when the server stops.
    """

    def __init__(
        self,
        daemon_url: str | None = None,
        *,
        server_token: str | None = None,
        allowed_hosts: Iterable[str] | None = None,
        any_ip_host: bool = False,
        body_limit: int = DEFAULT_BODY_LIMIT,
        env: Mapping[str, str] | None = None,
        outbox_dir: str | None = None,
        http_client: AsyncHTTPClient | None = None,
        allow_exec: bool = False,
        agent: Agent | None = None,
        agent_idle: float = 30 * 60.0,
        **options: Any,
    ) -> None:
        self.daemon_url = daemon_url
        self.env = dict(os.environ if env is None else env)
        self.options = options
        self.allow_exec = allow_exec
        # The hook path's outbox (the state directory's, checked at each write)
        # unless the application names its own folder.
        self.outbox = Outbox(outbox_dir) if outbox_dir else Outbox(env=self.env)
        self.handoff = Handoff(self.outbox, self._sender_env())
        self._pool = SharedPool(http_client)
        self._clients = _Bounded()
        self._plugins = _Bounded()
        self._runners = _Bounded()
        self._warming: asyncio.Future[Any] | None = None
        #: ``time.monotonic()`` of the last request, for ``--idle-exit``.
        self.last_request = time.monotonic()
        self.agent_sessions: AgentSessions | None = None
        if agent is not None:  # only then is signet_sdk.agent imported
            from signet_sdk.server.agent_sessions import AgentSessions

            self.agent_sessions = AgentSessions(agent, idle_seconds=agent_idle)
        self.fastapi = self._build()
        self.asgi = Gate(
            self._touching(events_first(self, self.fastapi)),
            token=server_token,
            allowed_hosts=allowed_hosts,
            body_limit=body_limit,
            any_ip=any_ip_host,
        )

    def _sender_env(self) -> dict[str, str]:
        """The environment of a detached outbox sender: this server's daemon and credentials."""
        from signet_sdk.wire.config import resolve_config

        config = resolve_config(self.daemon_url, token=self.options.get("token"), env=self.env)
        env = dict(self.env, SIGNET_DAEMON_URL=config.base_url)
        if config.token:
            env["SIGNET_TOKEN"] = config.token
        return env

    def __repr__(self) -> str:
        return f"RuntimeAdapterServer(daemon_url={self.daemon_url!r})"

    # -- shared state --------------------------------------------------------

    def _touching(self, app: Any) -> Any:
        async def touched(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                self.last_request = time.monotonic()
            await app(scope, receive, send)

        return touched

    def plugin(self, harness: str) -> HarnessPlugin | None:
        if harness in self._plugins:
            found: HarnessPlugin | None = self._plugins[harness]
            return found
        return self._plugins.remember(harness, find_plugin(harness))  # type: ignore[no-any-return]

    def client(self, harness: str) -> AsyncAdapterClient:
        """The harness's client on the one shared pool (made on first use)."""
        found: AsyncAdapterClient | None = self._clients.get(harness)
        if found is None:
            options = dict(self.options)
            plugin = self.plugin(harness)
            if plugin is not None and plugin.runtime_path and "runtime_path" not in options:
                options["runtime_path"] = plugin.runtime_path
            options.setdefault("env", self.env)
            found = self._pool.client(harness, self.daemon_url, options)
            self._clients.remember(harness, found)
        return found

    def runner(self, plugin: HarnessPlugin) -> EventRunner:
        found: EventRunner | None = self._runners.get(plugin.name)
        if found is None:
            found = EventRunner(plugin, self.client(plugin.name), self.handoff, self.env)
            self._runners.remember(plugin.name, found)
        return found

    async def warm_up(self) -> None:
        """Load now what the first event would pay for: the pool, each plugin, the write path.

        Runs at startup (the lifespan); a plugin that fails to load is logged
        and answers 404 later. One health call opens the first daemon
        connection in the background.
        """
        import signet_sdk.hooks.runner
        import signet_sdk.runtime.transcripts
        import signet_sdk.wire.lean  # noqa: F401

        for name in installed_adapters():
            try:
                plugin = self.plugin(name)
                if plugin is not None:
                    self.runner(plugin)
            except Exception as exc:
                log.warning("harness %s did not load: %s", name, exc)
        self._warming = asyncio.ensure_future(self._daemon_state())

    async def aclose(self) -> None:
        """End agent sessions, finish background deliveries, hand the rest on, close the pool."""
        if self.agent_sessions is not None:
            await self.agent_sessions.aclose()
        await self.handoff.drain()
        if self._warming is not None:
            self._warming.cancel()
        await self._pool.aclose()
        self._clients.clear()
        self._runners.clear()

    # -- the app -------------------------------------------------------------

    def _build(self) -> FastAPI:
        @asynccontextmanager
        async def lifespan(app: FastAPI) -> AsyncIterator[None]:
            await self.warm_up()
            yield
            await self.aclose()

        app = FastAPI(
            title="signet-sdk RuntimeAdapterServer",
            version=__version__,
            description="The Signet runtime adapter contract over HTTP.",
            lifespan=lifespan,
            redirect_slashes=False,  # ``/sessions/a%2F`` is not ``/sessions/a``: never redirect
        )
        bodies: dict[str, type[BaseModel]] = {}

        @app.exception_handler(RequestValidationError)
        async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
            route = request.scope.get("route")
            return invalid_answer(bodies.get(getattr(route, "path", "")), exc.errors())

        app.add_exception_handler(StarletteHTTPException, framework_refusal)

        @app.get("/health")
        async def health() -> dict[str, Any]:
            """This server and the daemon behind it; 200 even when the daemon is down."""
            return {
                "status": "ok",
                "version": __version__,
                "harnesses": installed_adapters(),
                "daemon": await self._daemon_state(),
            }

        for row in LIFECYCLE.values():
            bodies[self._lifecycle_route(app, row)] = getattr(models, row.params_model)

        @app.post("/v1/{harness}/lifecycle/{action}", include_in_schema=False)
        async def unknown_action(harness: str, action: str) -> JSONResponse:
            return error(404, f"unknown action {action!r}", valid=_SLUGS)

        @app.post(
            "/v1/{harness}/events/{event}",
            response_model=EventAnswer,
            responses={
                404: {"description": "no such plugin (`installed`) or event (`valid`)"},
                422: {"description": "the body is not a JSON object, or a bad event id"},
            },
        )
        async def native_event(
            harness: str,
            event: str,
            payload: Annotated[dict[str, Any], Body()],
            event_id: Annotated[
                str | None,
                Header(
                    alias=EVENT_ID_HEADER,
                    description="the event's id (`<unix ns, 20 digits>-<8 to 64 letters or "
                    "digits>`): its writes are stored under ids made from it",
                ),
            ] = None,
        ) -> Any:
            """One native event of an installed plugin; fails open within its deadline.

            The answer is the harness's structured output: ``data`` (what a
            plugin applies), ``stdout`` and ``exitCode`` (what a command hook
            would print and exit with), ``degraded`` (why the output is the
            neutral one, or null) and ``pending`` (writes safe in the outbox
            that the daemon has not taken yet).
            """
            return await self.event_answer(harness, event, payload, event_id)

        from signet_sdk.server.tools import add_tool_routes

        add_tool_routes(app, self, allow_commands=self.allow_exec)
        if self.agent_sessions is not None:
            from signet_sdk.server.agent_routes import add_agent_routes

            add_agent_routes(app, self.agent_sessions)
        return app

    async def lifecycle_answer(self, method: str, harness: str, params: BaseModel) -> Response:
        """The answer to one lifecycle call (the FastAPI route and the fast path share it)."""
        answer = await self.lifecycle_json(method, harness, params)
        if isinstance(answer, Response):
            return answer
        return Response(answer, media_type="application/json")

    async def lifecycle_json(
        self, method: str, harness: str, params: BaseModel
    ) -> bytes | JSONResponse:
        """The result's JSON bytes, or the error response for a daemon that failed."""
        try:
            result: BaseModel = await getattr(self.client(harness), method)(params)
        except SignetError as exc:
            return daemon_error(exc)
        # Already validated by the client: serialised once, in pydantic's core.
        return result.__pydantic_serializer__.to_json(result, by_alias=True, exclude_unset=True)

    async def event_answer(
        self, harness: str, event: str, payload: dict[str, Any], event_id: str | None = None
    ) -> JSONResponse:
        """The answer to one native event (the FastAPI route and the fast path share it).

        ``event_id`` is the ``X-Signet-Event-Id`` header, when the request has one.
        """
        plugin = self.plugin(harness)
        if plugin is None:
            installed = installed_adapters()
            return error(404, f"no plugin installed for {harness!r}", installed=installed)
        if event not in plugin.events:
            valid = list(plugin.events)
            return error(404, f"unknown event {event!r} for {harness}", valid=valid)
        if event_id is not None and not valid_event_id(event_id):
            message = "must be <unix time in ns, 20 digits>-<8 to 64 letters or digits>"
            return error(422, f"{EVENT_ID_HEADER}: {message}", field=EVENT_ID_HEADER)
        run, pending = await self.runner(plugin).run(event, payload, event_id)
        return JSONResponse(output_wire(run, pending))

    async def _daemon_state(self) -> dict[str, Any]:
        daemon: dict[str, Any] = {"reachable": False, "version": None, "degraded": None}
        try:
            client = self.client("signet-sdk-server")
            status = await asyncio.wait_for(client.health(), timeout=_HEALTH_SECONDS)
            daemon.update(reachable=True, version=status.version, status=status.status)
        except SignetError as exc:
            daemon["degraded"] = f"{type(exc).__name__}: {exc}"
        except TimeoutError:
            daemon["degraded"] = f"no answer within {_HEALTH_SECONDS:g}s"
        return daemon

    def _lifecycle_route(self, app: FastAPI, row: LifecycleAction) -> str:
        params_model: type[BaseModel] = getattr(models, row.params_model)
        result_model: type[BaseModel] = getattr(models, row.result_model)
        method = row.method

        async def call(harness: str, params: BaseModel) -> Response:
            return await self.lifecycle_answer(method, harness, params)

        call.__annotations__["params"] = params_model
        path = f"/v1/{{harness}}/lifecycle/{row.slug}"
        app.post(
            path,
            response_model=result_model,
            response_model_by_alias=True,
            response_model_exclude_unset=True,
            name=row.slug,
            summary=f"{row.method}: POST /api/hooks/{row.slug}",
            responses={
                422: {"description": "a field of the body is invalid (named in `field`)"},
                502: {"description": "the daemon could not be reached or failed"},
                504: {"description": "the daemon did not answer in time"},
            },
        )(call)
        return path
