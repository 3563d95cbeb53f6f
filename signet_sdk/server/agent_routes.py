"""The reference runtime over HTTP: ``/v1/agent/sessions``, a channel for any language.

Served only when the server was given an :class:`~signet_sdk.agent.Agent`
(``signet-sdk serve --agent``); otherwise this module is never imported.

* ``POST /v1/agent/sessions`` opens a session (201 with its key).
* ``POST /v1/agent/sessions/{key}/turns`` runs one turn and answers with
  server-sent events as it runs: one event per :class:`AgentEvent`
  (``event: <type>``, ``data: <the event as JSON>``), the last one ``done``,
  or ``error`` when the model or the session failed (the session stays
  open). ``X-Signet-Turn`` numbers the turn within its session; a turn
  posted while another runs is refused (409, naming the running one). A
  client that goes away mid-turn cancels the turn, which is rolled back:
  the next turn's model request does not hold it.
* ``DELETE /v1/agent/sessions/{key}`` ends a session (its memory extracted).
* ``GET /v1/agent/sessions`` lists the open ones.

The server's gate (Host check, token, body limit) stands in front of these
routes as of every other.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import Body, FastAPI
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from signet_sdk.server.agent_sessions import AgentSessions, Refusal, RunningTurn
from signet_sdk.server.errors import error

if TYPE_CHECKING:
    from signet_sdk.agent.events import AgentEvent

__all__ = [
    "EventData",
    "OpenSession",
    "SessionEnded",
    "SessionList",
    "SessionOpened",
    "TurnRequest",
    "TurnStream",
    "add_agent_routes",
]

#: A session key as it may appear in a path: no blanks, slashes, ``?`` or ``#``.
_KEY = r"^[^\s/?#]+$"


def _key_field(description: str) -> Any:
    """An optional session key field: a key names the session in every later route's path."""
    return Field(None, min_length=1, max_length=256, pattern=_KEY, description=description)


class OpenSession(BaseModel):
    """The body of ``POST /v1/agent/sessions`` (every field optional; ``{}`` opens a new one)."""

    model_config = ConfigDict(extra="forbid")

    project: str | None = Field(
        None, min_length=1, description="the project (a path) the session's memories belong to"
    )
    key: str | None = _key_field("the new session's key (default: a fresh `agent-<hex>`)")
    resume: str | None = _key_field(
        "continue an earlier session by its key; its earlier turns come back"
    )


class SessionOpened(BaseModel):
    """The answer to ``POST /v1/agent/sessions``."""

    key: str = Field(description="the session's key: the path of its turns and of its end")
    memory: bool = Field(description="false when the daemon did not answer at the start")
    notices: list[str] = Field(description="lines about memory from the opening (daemon down ...)")


class TurnRequest(BaseModel):
    """The body of ``POST /v1/agent/sessions/{key}/turns``."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, description="the user's words for this turn")


class EventData(BaseModel):
    """The ``data`` of one server-sent event of a turn (``event:`` repeats its ``type``)."""

    type: Literal["text", "tool_call", "tool_result", "notice", "compacted", "error", "done"]
    text: str | None = Field(None, description="text, notice, compacted, error: the words")
    tool_call: dict[str, Any] | None = Field(None, description="`id`, `name`, `arguments`")
    tool_result: dict[str, Any] | None = Field(
        None, description="`id`, `name`, `content`, `is_error`"
    )
    output: dict[str, Any] | None = Field(
        None,
        description="done: `content`, `stop_reason`, `model_calls`, `tool_calls`, `usage`, "
        "`notices`",
    )


class SessionEnded(BaseModel):
    """The answer to ``DELETE /v1/agent/sessions/{key}``."""

    key: str
    ended: bool = Field(description="true: the session end is on its way to the daemon")


class OpenSessionInfo(BaseModel):
    key: str
    running_turn: int | None = Field(description="the number of the turn running now, or null")
    idle_seconds: float = Field(description="seconds since its last turn ended")


class SessionList(BaseModel):
    """The answer to ``GET /v1/agent/sessions``."""

    sessions: list[OpenSessionInfo]
    idle_seconds: float = Field(description="a session idle this long is ended")


class ErrorAnswer(BaseModel):
    """Every error body: the message, and what helps act on it (``field``, ``key``, ``turn``)."""

    model_config = ConfigDict(extra="allow")

    error: str


def _event_bytes(event: AgentEvent) -> bytes:
    # json.dumps escapes CR and LF, so the data is always one SSE line.
    data = json.dumps(event.as_dict(), ensure_ascii=False, separators=(",", ":"))
    return f"event: {event.type}\ndata: {data}\n\n".encode()


class TurnStream(Response):
    """A running turn's events as ``text/event-stream``, relayed as they come.

    While it relays, it listens for the client going away and then cancels
    the turn; the turn is cancelled too when the response itself is
    cancelled (the server stopping), so no turn outlives its request.
    """

    media_type = "text/event-stream"

    def __init__(self, turn: RunningTurn) -> None:
        # No body and no content-length: the length is not known until the turn ends.
        self.status_code = 200
        self.background = None
        self.turn = turn
        self.init_headers(
            {
                "cache-control": "no-cache",
                "x-accel-buffering": "no",
                "x-signet-turn": str(turn.number),
            }
        )

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        watcher = asyncio.ensure_future(self._cancel_on_disconnect(receive))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            while (event := await self.turn.events.get()) is not None:
                body = _event_bytes(event)
                await send({"type": "http.response.body", "body": body, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away while we wrote to it
        finally:
            watcher.cancel()
            await self.turn.stop("its request ended")

    async def _cancel_on_disconnect(self, receive: Any) -> None:
        while True:
            message: MutableMapping[str, Any] = await receive()
            if message["type"] == "http.disconnect":
                self.turn.cancel("the client went away")
                return


def _refused(refusal: Refusal) -> JSONResponse:
    return error(refusal.status, refusal.message, **refusal.extra)


def _json_error(description: str) -> dict[str, Any]:
    """An error answer of the streaming route: JSON, whatever the route's own media type."""
    schema = {"$ref": "#/components/schemas/ErrorAnswer"}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _event_item_schema() -> dict[str, Any]:
    """One server-sent event of a turn, as OpenAPI 3.2's ``itemSchema`` describes a stream."""
    return {
        "type": "object",
        "required": ["event", "data"],
        "properties": {
            "event": {"type": "string", "description": "the event's `type`"},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": EventData.model_json_schema(),
            },
        },
    }


def add_agent_routes(app: FastAPI, sessions: AgentSessions) -> None:
    """Mount the ``/v1/agent/sessions`` routes on ``app``, serving ``sessions``."""

    @app.post(
        "/v1/agent/sessions",
        status_code=201,
        response_model=SessionOpened,
        tags=["agent"],
        responses={
            409: {"model": ErrorAnswer, "description": "a session with that key is open here"},
            422: {"model": ErrorAnswer, "description": "a field is invalid (named in `field`)"},
            500: {"model": ErrorAnswer, "description": "the session could not be opened"},
            503: {"model": ErrorAnswer, "description": "the server is stopping"},
        },
    )
    async def open_session(body: Annotated[OpenSession | None, Body()] = None) -> Any:
        """Open a session (or resume one): health check and session-start with the daemon.

        The daemon being down costs a notice and ``memory: false``, never the session.
        """
        given = body or OpenSession()
        try:
            session = await sessions.open(project=given.project, key=given.key, resume=given.resume)
        except Refusal as refusal:
            return _refused(refusal)
        return SessionOpened(
            key=session.key, memory=session.memory_online, notices=list(session.notices)
        )

    @app.get("/v1/agent/sessions", response_model=SessionList, tags=["agent"])
    async def list_sessions() -> Any:
        """The sessions open here, and how long each has been idle."""
        return {"sessions": sessions.describe(), "idle_seconds": sessions.idle_seconds}

    @app.post(
        "/v1/agent/sessions/{key}/turns",
        status_code=200,
        response_class=TurnStream,
        tags=["agent"],
        responses={
            200: {
                "description": "server-sent events, one per event of the turn: `event: <type>` "
                "and `data: <JSON>`; the last is `done`, or `error` (the session stays open)",
                "content": {"text/event-stream": {"itemSchema": _event_item_schema()}},
            },
            404: _json_error("no open session with that key here"),
            409: _json_error("a turn is running in this session (its number in `turn`)"),
            422: _json_error("`text` is missing or blank (named in `field`)"),
        },
    )
    async def post_turn(key: str, body: TurnRequest) -> Response:
        """Run one turn: prompt recall, the model and its tools, a checkpoint; streamed.

        Closing the connection mid-turn cancels the turn; it is rolled back.
        """
        if not body.text.strip():
            return error(422, "text: a turn needs some text", field="text")
        try:
            turn = sessions.start_turn(key, body.text)
        except Refusal as refusal:
            return _refused(refusal)
        return TurnStream(turn)

    @app.delete(
        "/v1/agent/sessions/{key}",
        response_model=SessionEnded,
        tags=["agent"],
        responses={
            404: {"model": ErrorAnswer, "description": "no open session with that key here"},
            500: {"model": ErrorAnswer, "description": "the session end could not be queued"},
        },
    )
    async def end_session(key: str) -> Any:
        """End a session: a running turn is cancelled, then the session end goes to the daemon."""
        try:
            await sessions.end(key, reason="exit")
        except Refusal as refusal:
            return _refused(refusal)
        except Exception as exc:
            return error(500, f"session {key}: its end could not be queued: {exc}", key=key)
        return {"key": key, "ended": True}
