"""A fake Anthropic Messages API on 127.0.0.1: the model a runtime's tests run against, offline.

Point the official client (or any other) at ``server.base_url``
(``http://127.0.0.1:<port>``; the client adds ``/v1/messages``). Standard
library only, one thread per request.

* ``POST /v1/messages`` is answered as one message, or, when the body has
  ``"stream": true``, as the API's event stream: ``message_start`` (usage
  with the cache fields), each content block's ``content_block_start``,
  deltas (text in pieces; a tool call's ``partial_json`` in several pieces,
  the first one empty, as the API sends them) and ``content_block_stop``, a
  ``ping``, ``message_delta`` (stop reason and the cumulative usage) and
  ``message_stop``. Streams are sent chunked, one event per chunk.
* The request is checked where the API's answer is cheap to match: no key
  (neither ``x-api-key`` nor ``authorization: Bearer``, which the official
  client sends) is a 401 ``authentication_error``; no ``anthropic-version``,
  or no (or a mistyped) ``model``, ``max_tokens`` or ``messages``, is a 400
  ``invalid_request_error`` naming it.
* The answer: a queued :meth:`~ModelFake.script_reply`, else the next
  :attr:`FakeAnthropic.tool_script` call the request offers (when its last
  message is the user's turn or the tool results), else ``reply(body)`` as
  text. Faults, cut streams and a delay work as on the fake OpenAI server
  (:mod:`signet_sdk.testing._fake_wire`); error bodies are the API's
  ``{"type": "error", "error": {"type", "message"}}``.
* Every request is kept for the test (:meth:`requests`, and the message
  bodies alone in :meth:`message_bodies`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from email.message import Message
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from signet_sdk.testing._fake_script import (
    ScriptedCall,
    ScriptedReply,
    default_reply,
    fragments,
    has_tools,
)
from signet_sdk.testing._fake_wire import ModelFake, WireHandler

__all__ = ["FakeAnthropic", "error_body"]

#: The API's error type by status (other 4xx: ``invalid_request_error``, 5xx: ``api_error``).
_ERRORS: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "Invalid request."),
    401: ("authentication_error", "invalid x-api-key"),
    402: ("billing_error", "Your credit balance is too low."),
    403: ("permission_error", "Your API key does not have permission to use this resource."),
    404: ("not_found_error", "The requested resource was not found."),
    413: ("request_too_large", "Request exceeds the maximum allowed size."),
    429: ("rate_limit_error", "Number of requests has exceeded your rate limit."),
    500: ("api_error", "Internal server error"),
    504: ("timeout_error", "Request timed out."),
    529: ("overloaded_error", "Overloaded"),
}


def error_body(
    status: int, message: str | None = None, error_type: str | None = None
) -> dict[str, Any]:
    """The API's error body for ``status``: the type it gives that status, and a message."""
    kind, fallback = _ERRORS.get(status, _ERRORS[400] if status < 500 else _ERRORS[500])
    error = {"type": error_type or kind, "message": fallback if message is None else message}
    return {"type": "error", "error": error, "request_id": "req_fake"}


def request_problem(headers: Message, body: dict[str, Any]) -> tuple[int, str] | None:
    """What the API would refuse in this request (status, message), or None."""
    bearer = (headers.get("authorization") or "").startswith("Bearer ")
    if not headers.get("x-api-key") and not bearer:
        return 401, "x-api-key header is required"
    if not headers.get("anthropic-version"):
        return 400, "anthropic-version: header is required"
    for name in ("max_tokens", "model", "messages"):
        if name not in body:
            return 400, f"{name}: Field required"
    if not isinstance(body["model"], str):
        return 400, "model: Input should be a valid string"
    tokens = body["max_tokens"]
    if not isinstance(tokens, int) or isinstance(tokens, bool):
        return 400, "max_tokens: Input should be a valid integer"
    if not isinstance(body["messages"], list):
        return 400, "messages: Input should be a valid list"
    if not body["messages"]:
        return 400, "messages: at least one message is required"
    if not isinstance(body.get("stream", False), bool):
        return 400, "stream: Input should be a valid boolean"
    return None


class FakeAnthropic(ModelFake):
    """The server: its ``base_url`` (``http://127.0.0.1:<port>``) and what it received."""

    stop_reasons = frozenset(
        {
            "end_turn",
            "max_tokens",
            "stop_sequence",
            "tool_use",
            "pause_turn",
            "refusal",
            "model_context_window_exceeded",
        }
    )
    raw_arguments_ok = False

    def __init__(
        self,
        reply: Callable[[dict[str, Any]], str] = default_reply,
        *,
        log_path: Path | None = None,
        usage: dict[str, Any] | None = None,
    ) -> None:
        usage = usage or {
            "input_tokens": 12,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 5,
        }
        super().__init__(self._handler(), log_path, reply=reply, usage=usage)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(WireHandler):
            def _error(self, status: int, message: str | None, **extra: Any) -> None:
                headers = {"request-id": "req_fake", **extra}
                self.send_json(status, error_body(status, message), headers)

            def do_GET(self) -> None:
                fake._record(self.command, self.path, dict(self.headers), None)
                self._error(404, f"Not found: {self.command} {self.path}")

            def do_POST(self) -> None:
                body = self.read_body()
                fake._record(self.command, self.path, dict(self.headers), body)
                if self.path.split("?", 1)[0] != "/v1/messages":
                    self._error(404, f"Not found: {self.command} {self.path}")
                    return
                fake._pause()
                if not isinstance(body, dict) or "_raw" in body:
                    self._error(400, "The request body is not valid JSON.")
                    return
                problem = request_problem(self.headers, body)
                if problem is not None:
                    self._error(*problem)
                    return
                fault = fake._take_fault()
                if fault is not None:
                    headers = {"request-id": "req_fake"}
                    if fault.retry_after is not None:
                        headers["retry-after"] = fault.retry_after
                    payload = error_body(fault.status, fault.message, fault.error_type)
                    self.send_json(fault.status, payload, headers)
                    return
                message = fake._message(body)
                if not body.get("stream"):
                    self.send_json(200, message, {"request-id": "req_fake"})
                    return
                events = _events(message)
                cut = fake._take_cut([_piece_kind(e) for e in events])
                error = b""
                if cut is not None and cut.error_status is not None:
                    failure = error_body(cut.error_status)
                    del failure["request_id"]  # the documented error event has none
                    error = _frame(failure)
                frames = [_frame(e) for e in events]
                self.send_stream(frames, {"request-id": "req_fake"}, cut, error)

        return Handler

    def _next_tool_call(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """A request that offers the tool and whose last message is the user's (a turn or
        tool results) gets the next call of ``tool_script``: (name, input)."""
        messages = [m for m in body["messages"] if isinstance(m, dict)]
        if not has_tools(body) or not messages or messages[-1].get("role") != "user":
            return None
        offered = {str(t.get("name")) for t in body["tools"] if isinstance(t, dict)}
        return self._take_tool_call(offered)

    def _answer(self, body: dict[str, Any]) -> ScriptedReply:
        """This request's answer: the next scripted one, a scripted tool call, or the reply."""
        scripted = self._take_scripted()
        if scripted is None:
            call = self._next_tool_call(body)
            if call is None:
                scripted = ScriptedReply(text=self.reply(body))
            else:
                scripted = ScriptedReply(tool_calls=(ScriptedCall(*call),))
        return self._with_ids(scripted, "toolu_fake_")

    def _message(self, body: dict[str, Any]) -> dict[str, Any]:
        """The answer as one message: the non-streamed reply, and what the stream adds up to."""
        reply = self._answer(body)
        content: list[dict[str, Any]] = []
        text = reply.text if reply.refusal is None else reply.refusal
        if text:
            content.append({"type": "text", "text": text})
        for call in reply.tool_calls:
            arguments = call.arguments
            tool_input = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
            content.append(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": tool_input}
            )
        stop = reply.stop_reason
        if stop is None:
            stop = "refusal" if reply.refusal is not None else "end_turn"
            stop = "tool_use" if reply.tool_calls else stop
        sequences = body.get("stop_sequences")
        matched = None
        if stop == "stop_sequence" and isinstance(sequences, list) and sequences:
            matched = sequences[0]
        return {
            "id": f"msg_fake_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": matched,
            "usage": self._usage_of(reply),
        }

    def message_bodies(self) -> list[dict[str, Any]]:
        """The bodies of the ``POST /v1/messages`` requests so far."""
        return self._bodies("/v1/messages")


def _events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A message as the API streams it, each event as its data (its ``type`` names it)."""
    usage = message["usage"]
    opening = {
        **message,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": min(1, int(usage.get("output_tokens", 0)))},
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": opening}]
    for index, block in enumerate(message["content"]):
        start: dict[str, Any]
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in fragments(block["text"])]
        else:
            start = {**block, "input": {}}
            pieces = ["", *fragments(json.dumps(block["input"]))]
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces]
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        if index == 0:
            events.append({"type": "ping"})
        for delta in deltas:
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    if not message["content"]:
        events.append({"type": "ping"})
    stopped = {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]}
    events.append({"type": "message_delta", "delta": stopped, "usage": usage})
    events.append({"type": "message_stop"})
    return events


def _frame(event: dict[str, Any]) -> bytes:
    """One server-sent event: its ``type`` as the event name, itself as the data."""
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def _piece_kind(event: dict[str, Any]) -> str | None:
    """What an event carries a piece of (for where a cut falls): arguments, text or neither."""
    delta = event.get("delta") or {}
    if delta.get("type") == "input_json_delta" and delta.get("partial_json"):
        return "arguments"
    return "text" if delta.get("type") == "text_delta" else None
