# long module: the whole Messages API contract (requests, answers, stream events) in one place
"""Anthropic's Messages API (``POST {base}/v1/messages``): the codec and the two providers.

The request is built for Anthropic's prompt cache. Within a conversation
each request's ``system``, ``tools`` and ``messages`` extend the previous
one's byte for byte, and the cache breakpoints never move: the system
prompt is one text block marked ``cache_control``, the last tool is marked
too, and the request-level ``cache_control`` lets the API put the third
breakpoint on the newest message itself, so no earlier message changes
when a turn is added.

Reading answers: text blocks make the content, ``tool_use`` blocks the tool
calls; ``thinking`` and ``redacted_thinking`` blocks are skipped (the
providers do not ask for extended thinking, and the loop has no use for
them), as are server-tool blocks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from signet_sdk.agent.providers._base import (
    AsyncModelProvider,
    SyncModelProvider,
    Vendor,
    twin_arguments,
)
from signet_sdk.agent.providers._codec import JsonApiCodec
from signet_sdk.agent.providers._wire import (
    USER_AGENT,
    StreamDecoder,
    encode_json,
    parse_arguments,
    plain,
    provider_status_error,
    rendered_once,
)
from signet_sdk.agent.types import Chunk, CompletionResult, ToolCall, Usage
from signet_sdk.wire.errors import APIResponseValidationError, ConfigError

if TYPE_CHECKING:
    from signet_sdk.agent.types import CompletionOptions, Message, StopReason, ToolSpec

__all__ = [
    "API_VERSION",
    "DEFAULT_BASE_URL",
    "AnthropicCodec",
    "AnthropicProvider",
    "AnthropicStreamDecoder",
    "AsyncAnthropicProvider",
    "anthropic_tool",
    "encode_messages",
]

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
_VENDOR_HOST = "api.anthropic.com"
_EPHEMERAL = {"type": "ephemeral"}

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "pause_turn": "pause_turn",
    # The answer filled what was left of the context: cut short, as by max_tokens.
    "model_context_window_exceeded": "max_tokens",
}

#: The status each error type of Anthropic's stream ``error`` event stands for.
ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def anthropic_tool(spec: ToolSpec) -> dict[str, Any]:
    """One tool as the Messages API takes it: ``name``, ``description``, ``input_schema``."""
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": plain(spec.input_schema),
    }


def _tools(specs: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    tools = [anthropic_tool(spec) for spec in specs]
    if tools:
        tools[-1]["cache_control"] = dict(_EPHEMERAL)
    return tools


def encode_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The conversation as Messages API turns, each a list of content blocks.

    A user turn is its tool results (one ``tool_result`` block each, first,
    as the API requires) then its text; an assistant turn is its text then
    its ``tool_use`` blocks. Each message gives the same blocks whatever
    follows it, which keeps the cached prefix valid. An assistant message
    with neither text nor tool calls is left out: the API rejects an empty
    turn, and it carries nothing.
    """
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        blocks: list[dict[str, Any]] = []
        if message.role == "user":
            for result in message.tool_results:
                block: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": result.call_id,
                    "content": result.content,
                }
                if result.is_error:
                    block["is_error"] = True
                blocks.append(block)
            if message.text:
                blocks.append({"type": "text", "text": message.text})
            if not blocks:
                raise ConfigError(f"messages[{index}]", "a user message needs text or tool results")
        elif message.role == "assistant":
            if message.text:
                blocks.append({"type": "text", "text": message.text})
            blocks.extend(
                {
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    "input": plain(call.arguments),
                }
                for call in message.tool_calls
            )
            if not blocks:
                continue
        else:
            raise ConfigError(f"messages[{index}].role", f"unknown role {message.role!r}")
        out.append({"role": message.role, "content": blocks})
    return out


def request_body(
    model: str, messages: Sequence[Message], options: CompletionOptions, stream: bool
) -> dict[str, Any]:
    """The Messages API body, keys in a fixed order with ``messages`` last.

    So a request's bytes, less the closing ``]}``, begin the next request of
    the same conversation. Empty system prompts and tool lists are left out.
    ``temperature`` goes out only when set: it is a field of API version
    2023-06-01 (the one these providers speak), but the newest Claude models
    reject it and the official client's current request type has dropped it.
    """
    body: dict[str, Any] = {"model": model, "max_tokens": options.max_tokens}
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.stop_sequences:
        body["stop_sequences"] = list(options.stop_sequences)
    if stream:
        body["stream"] = True
    body["cache_control"] = dict(_EPHEMERAL)
    if options.system:
        body["system"] = [
            {"type": "text", "text": options.system, "cache_control": dict(_EPHEMERAL)}
        ]
    if options.tools:
        body["tools"] = rendered_once(options.tools, _tools)
    body["messages"] = encode_messages(messages)
    return body


def _stop(raw: object) -> StopReason:
    return _STOP_REASONS.get(raw, "end_turn") if isinstance(raw, str) else "end_turn"


def _count(usage: Mapping[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) else 0


def _usage(usage: object) -> Usage:
    if not isinstance(usage, Mapping):
        return Usage()
    return Usage(
        input=_count(usage, "input_tokens"),
        output=_count(usage, "output_tokens"),
        cache_read=_count(usage, "cache_read_input_tokens"),
        cache_write=_count(usage, "cache_creation_input_tokens"),
    )


def _call(block_id: object, name: object, arguments: object) -> ToolCall:
    """A ``tool_use`` block as a call; an ``input`` that is no object is the model's error."""
    call_id, tool = str(block_id or ""), str(name or "")
    if isinstance(arguments, dict):
        return ToolCall(call_id, tool, arguments)
    # A JSON text where the object belongs (a proxy's doing) is read; anything else is kept.
    raw = arguments if isinstance(arguments, str) else encode_json(arguments).decode("utf-8")
    parsed, error = parse_arguments(raw)
    if error is not None:
        return ToolCall(call_id, tool, {}, raw_arguments=raw, error=error)
    return ToolCall(call_id, tool, parsed)


class AnthropicCodec(JsonApiCodec):
    """Requests to and answers from one Messages API server (``base_url``), sans I/O."""

    provider = "anthropic"
    call_path = "/v1/messages"
    #: Answered only where the key is good.
    models_path = "/v1/models"

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        auth = {"x-api-key": api_key} if api_key else {}
        common = {"anthropic-version": API_VERSION, "user-agent": USER_AGENT, **auth}
        super().__init__(base_url, common, headers)

    def body(
        self, model: str, messages: Sequence[Message], options: CompletionOptions, stream: bool
    ) -> dict[str, Any]:
        """The request body as a dict (what an official client's ``messages.create`` takes)."""
        return request_body(model, messages, options, stream)

    def parse(self, data: Any) -> CompletionResult:
        """A whole Messages API answer (``{"type": "message", "content": [...], ...}``)."""
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            raise APIResponseValidationError(
                f"anthropic: POST {self.url}: the answer is no message: {str(data)[:200]}",
                method="POST",
                url=self.url,
                body=data,
            )
        text: list[str] = []
        calls: list[ToolCall] = []
        for block in data["content"]:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                text.append(block["text"])
            elif kind == "tool_use":
                calls.append(_call(block.get("id"), block.get("name"), block.get("input")))
        raw = data.get("stop_reason")
        model = data.get("model")
        return CompletionResult(
            content="".join(text),
            tool_calls=tuple(calls),
            stop_reason=_stop(raw),
            usage=_usage(data.get("usage")),
            raw_stop_reason=raw if isinstance(raw, str) else None,
            model=model if isinstance(model, str) else None,
        )

    def decoder(self) -> AnthropicStreamDecoder:
        return AnthropicStreamDecoder("POST", self.url)


class _Block:
    """One content block of a streamed answer while it arrives."""

    __slots__ = ("closed", "id", "kind", "name", "parts")

    def __init__(self, kind: str, block_id: object = None, name: object = None) -> None:
        self.kind = kind
        self.id = block_id
        self.name = name
        self.parts: list[str] = []
        self.closed = False


class AnthropicStreamDecoder(StreamDecoder):
    """A streamed Messages API answer: ``message_start`` ... ``message_stop``.

    Text deltas come out as text chunks at once; ``input_json_delta`` parts
    are joined per block index and parsed when the answer is whole. An
    ``error`` event raises the SDK's status error for its type
    (``overloaded_error`` is a 529 :class:`~signet_sdk.wire.errors.InternalServerError`).
    """

    provider = "anthropic"
    end_marker = "message_stop"

    def __init__(self, method: str, url: str) -> None:
        super().__init__(method, url)
        self._started = False
        self._blocks: dict[int, _Block] = {}
        self._usage: dict[str, Any] = {}
        self._model: str | None = None
        self._stop: str | None = None

    def event(self, name: str | None, data: Any) -> list[Chunk]:
        if not isinstance(data, dict):
            return []
        kind = data.get("type", name)
        if kind == "content_block_delta":
            return self._delta(data)
        if kind == "message_start":
            message = data.get("message") or {}
            self._started = True
            self._model = message.get("model")
            self._merge_usage(message.get("usage"))
        elif kind == "content_block_start":
            block = data.get("content_block") or {}
            index = data.get("index", len(self._blocks))
            started = _Block(str(block.get("type")), block.get("id"), block.get("name"))
            self._blocks[index] = started
            if started.kind == "text" and block.get("text"):
                started.parts.append(block["text"])
                return self.text(block["text"])
        elif kind == "content_block_stop":
            found = self._blocks.get(data.get("index", -1))
            if found is not None:
                found.closed = True
        elif kind == "message_delta":
            delta = data.get("delta") or {}
            if delta.get("stop_reason") is not None:
                self._stop = delta["stop_reason"]
            self._merge_usage(data.get("usage"))
        elif kind == "message_stop":
            return self.finished(self._result())
        elif kind == "error":
            raise self._error(data)
        return []

    def text(self, text: str) -> list[Chunk]:
        return [Chunk("text", text)]

    def _delta(self, data: dict[str, Any]) -> list[Chunk]:
        block = self._blocks.get(data.get("index", -1))
        delta = data.get("delta") or {}
        if block is None:
            return []
        kind = delta.get("type")
        if kind == "text_delta" and block.kind == "text" and delta.get("text"):
            block.parts.append(delta["text"])
            return self.text(delta["text"])
        if kind == "input_json_delta" and block.kind == "tool_use":
            block.parts.append(delta.get("partial_json") or "")
        return []

    def _merge_usage(self, usage: object) -> None:
        """``message_delta`` counts are cumulative: a count it gives replaces the start's."""
        if isinstance(usage, dict):
            self._usage.update({k: v for k, v in usage.items() if v is not None})

    def _result(self) -> CompletionResult:
        text: list[str] = []
        calls: list[ToolCall] = []
        for _, block in sorted(self._blocks.items()):
            if block.kind == "text":
                text.append("".join(block.parts))
            elif block.kind == "tool_use":
                raw = "".join(block.parts)
                parsed, error = parse_arguments(raw)
                call_id, tool = str(block.id or ""), str(block.name or "")
                if error is None:
                    calls.append(ToolCall(call_id, tool, parsed))
                else:
                    calls.append(ToolCall(call_id, tool, {}, raw_arguments=raw, error=error))
        return CompletionResult(
            content="".join(text),
            tool_calls=tuple(calls),
            stop_reason=_stop(self._stop),
            usage=_usage(self._usage),
            raw_stop_reason=self._stop,
            model=self._model if isinstance(self._model, str) else None,
        )

    def _error(self, data: dict[str, Any]) -> Exception:
        error = data.get("error")
        kind = str((error.get("type") if isinstance(error, dict) else None) or "api_error")
        status = ERROR_STATUS.get(kind, 500)
        return provider_status_error(
            "anthropic", self.method, self.url, status, {}, data, note=f"{kind} mid-stream"
        )

    def progress(self) -> str:
        if not self._started:
            return "before the answer began"
        open_blocks = [b for _, b in sorted(self._blocks.items()) if not b.closed]
        if open_blocks:
            block = open_blocks[-1]
            if block.kind == "tool_use":
                return f"during tool call {block.name}"
            if block.kind == "text":
                return "during the text"
            return f"during a {block.kind} block"
        if self._stop is not None:
            return f"after the answer ({self._stop})"
        return "between content blocks"


_VENDOR = Vendor(
    key_variable="ANTHROPIC_API_KEY",
    base_variable="ANTHROPIC_BASE_URL",
    default_base=DEFAULT_BASE_URL,
    host=_VENDOR_HOST,
    codec=AnthropicCodec,
)


class AnthropicProvider(SyncModelProvider):
    """Claude through the Messages API, on httpx: ``complete`` and ``stream``.

    ``AnthropicProvider(model, *, api_key, base_url, env, retry, http_client,
    headers)``: the key from ``api_key`` or ``ANTHROPIC_API_KEY``, the server
    from ``base_url`` or ``ANTHROPIC_BASE_URL`` (default
    ``https://api.anthropic.com``). A missing key for Anthropic's own host is
    a :class:`~signet_sdk.wire.errors.ConfigError` at once.
    """

    vendor = _VENDOR

    def as_async(self) -> AsyncAnthropicProvider:
        """The async twin: the same model, server, key, headers and retries."""
        return AsyncAnthropicProvider(self.model, **twin_arguments(self.settings))


class AsyncAnthropicProvider(AsyncModelProvider):
    """An :class:`AnthropicProvider`, awaited (aiohttp, or the ``http_client`` given)."""

    vendor = _VENDOR

    def as_sync(self) -> AnthropicProvider:
        """The sync twin: the same model, server, key, headers and retries."""
        return AnthropicProvider(self.model, **twin_arguments(self.settings))
