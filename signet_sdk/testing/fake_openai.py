"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, for running real harnesses.

Harnesses that speak the OpenAI chat API (OpenCode, OpenClaw, pi) can be
pointed at it with a base URL of ``server.base_url`` and run headless in a
test: no model, no network beyond loopback. Standard library only, one
thread per request.

* ``POST /v1/chat/completions`` is answered as server-sent events when the
  request streams (usage on the finishing chunk), else as one JSON object.
  The reply text comes from ``reply(body)``; a scripted tool call
  (:attr:`FakeOpenAI.tool_script`) answers the next request that offers
  that tool and ends with a user message or a tool result, so a script of
  several calls runs as one turn.
* ``GET /v1/models`` lists ``models``; anything else is a JSON 404.
* Every request is kept (method, path, headers, parsed body) for the test to
  assert on, and appended to ``log_path`` as JSON lines when one is given.

The harnesses' end-to-end tests depend on those answers byte for byte, so
they stay as they are. On top, as for the fake Anthropic server (see
:mod:`signet_sdk.testing._fake_wire`): ``script_reply`` answers in the
official stream's own shape (a role chunk, text and each tool call's
arguments in pieces, the finish chunk, and the usage chunk with no choices
when ``stream_options.include_usage`` asks for it); ``fail_next`` answers
with OpenAI's error body; ``cut_next_stream`` drops a stream part-way;
``delay`` holds answers back. Those streams go out chunked, one event per
chunk (a default stream keeps its one body with a length). ``usage`` may
carry ``prompt_tokens_details.cached_tokens``, passed on as it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from signet_sdk.testing._fake_script import ScriptedReply, default_reply, fragments, has_tools
from signet_sdk.testing._fake_wire import ModelFake, WireHandler

__all__ = ["FakeOpenAI", "error_body", "has_tools", "system_text", "tool_results"]


def system_text(body: Any) -> str:
    """Every system message of a request, joined: where harnesses put their prompts."""
    if not isinstance(body, dict):
        return ""
    out: list[str] = []
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "system":
            content = message.get("content")
            if isinstance(content, str):
                out.append(content)
            elif isinstance(content, list):
                out.extend(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "\n".join(out)


def tool_results(body: Any) -> list[str]:
    """The tool results a request carries back to the model, in order (non-text ones as JSON)."""
    if not isinstance(body, dict):
        return []
    return [
        m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
        for m in body.get("messages") or []
        if isinstance(m, dict) and m.get("role") == "tool"
    ]


#: OpenAI's error ``type`` and ``code`` by status (other 4xx: a bad request, 5xx: server).
_ERRORS: dict[int, tuple[str, str | None, str]] = {
    400: ("invalid_request_error", None, "Invalid request."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided."),
    404: ("invalid_request_error", "model_not_found", "The model does not exist."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests."),
    500: ("server_error", None, "The server had an error while processing your request."),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
}


def error_body(
    status: int, message: str | None = None, error_type: str | None = None
) -> dict[str, Any]:
    """OpenAI's error body for ``status``: ``{"error": {message, type, param, code}}``."""
    fallback = _ERRORS[400] if status < 500 else _ERRORS[500]
    kind, code, default_message = _ERRORS.get(status, fallback)
    error = {
        "message": default_message if message is None else message,
        "type": error_type or kind,
        "param": None,
        "code": code,
    }
    return {"error": error}


def _wants_usage(body: dict[str, Any]) -> bool:
    """Whether a streamed request asks for the usage chunk (``stream_options.include_usage``)."""
    options = body.get("stream_options")
    return isinstance(options, dict) and options.get("include_usage") is True


class FakeOpenAI(ModelFake):
    """The server: its ``base_url`` (``http://127.0.0.1:<port>/v1``) and what it received."""

    stop_reasons = frozenset({"stop", "length", "tool_calls", "content_filter", "function_call"})

    def __init__(
        self,
        reply: Callable[[dict[str, Any]], str] = default_reply,
        *,
        log_path: Path | None = None,
        models: Sequence[str] = ("fake-model",),
        usage: dict[str, Any] | None = None,
    ) -> None:
        self.models = list(models)
        usage = usage or {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
        super().__init__(self._handler(), log_path, reply=reply, usage=usage, base_path="/v1")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(WireHandler):
            def _send(self, status: int, data: bytes, ctype: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                fake._record(self.command, self.path, dict(self.headers), None)
                if self.path.split("?", 1)[0] == "/v1/models":
                    data = [{"id": m, "object": "model"} for m in fake.models]
                    self._send(200, json.dumps({"object": "list", "data": data}).encode())
                else:
                    self._send(404, b'{"error":{"message":"not found"}}')

            def do_POST(self) -> None:
                body = self.read_body()
                fake._record(self.command, self.path, dict(self.headers), body)
                if self.path.split("?", 1)[0] != "/v1/chat/completions" or not isinstance(
                    body, dict
                ):
                    self._send(404, b'{"error":{"message":"not found"}}')
                    return
                fake._pause()
                fault = fake._take_fault()
                if fault is not None:
                    after = {} if fault.retry_after is None else {"retry-after": fault.retry_after}
                    payload = error_body(fault.status, fault.message, fault.error_type)
                    self.send_json(fault.status, payload, after)
                    return
                model = str(body.get("model") or fake.models[0])
                scripted = fake._take_scripted()
                if scripted is not None:
                    scripted = fake._with_ids(scripted, "call_")
                if not body.get("stream"):
                    if scripted is not None:
                        self.send_json(200, fake._scripted_completion(model, scripted))
                    else:
                        done = fake._completion(model, fake._default_chunks(model, body))
                        self._send(200, json.dumps(done).encode())
                    return
                if scripted is None:
                    chunks = fake._default_chunks(model, body)
                else:
                    chunks = fake._scripted_chunks(model, scripted, _wants_usage(body))
                cut = fake._take_cut([*map(_piece_kind, chunks), None])
                events = [f"data: {json.dumps(c)}\n\n" for c in chunks]
                events.append("data: [DONE]\n\n")
                if scripted is None and cut is None:
                    self._send(200, "".join(events).encode(), "text/event-stream")
                    return
                error = b""
                if cut is not None and cut.error_status is not None:
                    error = f"data: {json.dumps(error_body(cut.error_status))}\n\n".encode()
                self.send_stream([e.encode() for e in events], {}, cut, error)

        return Handler

    def _chunk(
        self, model: str, delta: dict[str, Any], finish: str | None, **extra: Any
    ) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _envelope("chat.completion.chunk", model, choice, **extra)

    def _default_chunks(self, model: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The answer when nothing is queued: the next ``tool_script`` call, else the reply."""
        call = self._next_tool_call(body)
        if call is not None:
            return self._tool_chunks(model, *call)
        return self._text_chunks(model, self.reply(body))

    def _text_chunks(self, model: str, text: str) -> list[dict[str, Any]]:
        return [
            self._chunk(model, {"role": "assistant", "content": ""}, None),
            self._chunk(model, {"content": text}, None),
            self._chunk(model, {}, "stop", usage=self.usage),
        ]

    def _next_tool_call(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """A request that offers the tool and ends with a user message or a tool result
        gets the next call of ``tool_script``: (tool name, arguments)."""
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if not has_tools(body) or not messages or messages[-1].get("role") not in ("user", "tool"):
            return None
        offered = {
            str((t.get("function") or {}).get("name"))
            for t in body.get("tools") or []
            if isinstance(t, dict)
        }
        return self._take_tool_call(offered)

    def _tool_chunks(
        self, model: str, name: str, arguments: dict[str, Any]
    ) -> list[dict[str, Any]]:
        call = {
            "index": 0,
            "id": f"call_{name}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        delta = {"role": "assistant", "content": None, "tool_calls": [call]}
        return [
            self._chunk(model, delta, None),
            self._chunk(model, {}, "tool_calls", usage=self.usage),
        ]

    def _scripted_chunks(
        self, model: str, reply: ScriptedReply, with_usage: bool
    ) -> list[dict[str, Any]]:
        """A scripted answer as the official API streams it, every piece in its own chunk."""
        first = {"role": "assistant", "content": _content(reply, ""), "refusal": None}
        if reply.refusal is not None:
            first["refusal"] = ""
        chunks = [self._chunk(model, first, None)]
        chunks += [self._chunk(model, {"content": p}, None) for p in fragments(reply.text)]
        chunks += [self._chunk(model, {"refusal": p}, None) for p in fragments(reply.refusal or "")]
        for index, call in enumerate(reply.tool_calls):
            opening = {
                "index": index,
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            chunks.append(self._chunk(model, {"tool_calls": [opening]}, None))
            for piece in fragments(call.arguments_json):
                more = {"index": index, "function": {"arguments": piece}}
                chunks.append(self._chunk(model, {"tool_calls": [more]}, None))
        chunks.append(self._chunk(model, {}, _finish(reply)))
        if with_usage:
            last = self._chunk(model, {}, None, usage=self._usage_of(reply))
            chunks.append({**last, "choices": []})
        return chunks

    def _scripted_completion(self, model: str, reply: ScriptedReply) -> dict[str, Any]:
        """A scripted answer as one chat completion, as the official API gives it."""
        message: dict[str, Any] = {
            "role": "assistant",
            "content": _content(reply, reply.text),
            "refusal": reply.refusal,
            "annotations": [],
        }
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments_json},
                }
                for call in reply.tool_calls
            ]
        choice = {"index": 0, "message": message, "finish_reason": _finish(reply)}
        return _envelope("chat.completion", model, choice, usage=self._usage_of(reply))

    def _completion(self, model: str, chunks: list[dict[str, Any]]) -> dict[str, Any]:
        """The non-streaming form of the same reply."""
        text = "".join(str(c["choices"][0]["delta"].get("content") or "") for c in chunks)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        calls = chunks[0]["choices"][0]["delta"].get("tool_calls")
        if calls:
            message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
        finish = chunks[-1]["choices"][0]["finish_reason"]
        choice = {"index": 0, "message": message, "finish_reason": finish}
        return _envelope("chat.completion", model, choice, usage=self.usage)

    def chat_bodies(self) -> list[dict[str, Any]]:
        """The bodies of the chat-completion requests so far (not of a harness's other probes)."""
        return self._bodies("/v1/chat/completions")


def _envelope(kind: str, model: str, choice: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """An answer (``chat.completion``) or one of its chunks, framed as the API frames it."""
    return {
        "id": "chatcmpl-fake",
        "object": kind,
        "created": 1700000000,
        "model": model,
        "choices": [choice],
        **extra,
    }


def _content(reply: ScriptedReply, text: str) -> str | None:
    """``text``, or None (JSON null) when the answer is only tool calls or a refusal."""
    return text if reply.text or not (reply.tool_calls or reply.refusal is not None) else None


def _finish(reply: ScriptedReply) -> str:
    return reply.stop_reason or ("tool_calls" if reply.tool_calls else "stop")


def _piece_kind(chunk: dict[str, Any]) -> str | None:
    """What a chunk carries a piece of (for where a cut falls): arguments, text or neither."""
    delta = chunk["choices"][0]["delta"] if chunk["choices"] else {}
    if any((c.get("function") or {}).get("arguments") for c in delta.get("tool_calls") or []):
        return "arguments"
    return "text" if delta.get("content") else None
