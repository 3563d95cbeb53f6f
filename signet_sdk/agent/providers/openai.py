# long module: the whole chat-completions contract (requests, answers, stream chunks) in one place
"""OpenAI chat completions (``POST {base}/chat/completions``): the codec and the two providers.

The same code speaks to OpenAI (``https://api.openai.com/v1``) and to any
server that offers its chat API, by ``base_url``: Ollama
(``http://127.0.0.1:11434/v1``), vLLM, LM Studio, llama.cpp's server.
Differences between them are kept to what they require:

* OpenAI's reasoning models reject ``max_tokens``; on OpenAI's own host the
  limit is sent as ``max_completion_tokens``, elsewhere as ``max_tokens``,
  which every compatible server reads.
* A key is required on OpenAI's host only; a local server gets no
  ``authorization`` header unless a key is given.
* Streamed tool calls are joined by their ``index``; a server that leaves
  out ids gets ``call_<index>``, so each result still finds its call.
* Tool calls under ``finish_reason: "stop"`` (Ollama's way) are ``tool_use``.

The system prompt is the first message and ``messages`` is the body's last
key, so a conversation's requests extend each other byte for byte, as
OpenAI's automatic prompt cache rewards; ``prompt_cache_key`` (from
``CompletionOptions.cache_key``) routes a conversation to the same cache.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

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
    parse_arguments,
    plain,
    provider_status_error,
    rendered_once,
)
from signet_sdk.agent.types import Chunk, CompletionResult, ToolCall, Usage
from signet_sdk.wire import jsonfast
from signet_sdk.wire.errors import APIResponseValidationError, ConfigError

if TYPE_CHECKING:
    from signet_sdk.agent.types import CompletionOptions, Message, StopReason, ToolSpec

__all__ = [
    "DEFAULT_BASE_URL",
    "AsyncOpenAIProvider",
    "OpenAICodec",
    "OpenAIProvider",
    "OpenAIStreamDecoder",
    "encode_messages",
    "openai_tool",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_VENDOR_HOST = "api.openai.com"
_DONE = "[DONE]"

_STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def openai_tool(spec: ToolSpec) -> dict[str, Any]:
    """One tool as chat completions take it: ``{"type": "function", "function": {...}}``."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": plain(spec.input_schema),
        },
    }


def _tools(specs: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [openai_tool(spec) for spec in specs]


def _arguments(call: ToolCall) -> str:
    """What the model sent, byte for byte, when known; else the arguments as compact JSON."""
    if call.raw_arguments is not None:
        return call.raw_arguments
    return jsonfast.dumps(plain(call.arguments))


def encode_messages(messages: Sequence[Message], system: str = "") -> list[dict[str, Any]]:
    """The conversation as chat messages, the system prompt (when there is one) first.

    A user message becomes one ``tool`` message per result (they answer the
    previous assistant message's calls, so they come first) and then its
    text, if any. An assistant message with neither text nor tool calls is
    left out: the API rejects it, and it carries nothing.
    """
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for index, message in enumerate(messages):
        if message.role == "user":
            if not message.text and not message.tool_results:
                raise ConfigError(f"messages[{index}]", "a user message needs text or tool results")
            out.extend(
                {"role": "tool", "tool_call_id": result.call_id, "content": result.content}
                for result in message.tool_results
            )
            if message.text:
                out.append({"role": "user", "content": message.text})
        elif message.role == "assistant":
            if not message.text and not message.tool_calls:
                continue
            turn: dict[str, Any] = {"role": "assistant", "content": message.text or None}
            if message.tool_calls:
                turn["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": _arguments(call)},
                    }
                    for call in message.tool_calls
                ]
            out.append(turn)
        else:
            raise ConfigError(f"messages[{index}].role", f"unknown role {message.role!r}")
    return out


def _is_openai(base_url: str) -> bool:
    return (urlsplit(base_url).hostname or "").lower() == _VENDOR_HOST


def request_body(
    model: str,
    messages: Sequence[Message],
    options: CompletionOptions,
    stream: bool,
    *,
    limit_field: str = "max_completion_tokens",
) -> dict[str, Any]:
    """The chat completions body, keys in a fixed order with ``messages`` last.

    ``limit_field`` is the name the token limit goes under
    (``max_completion_tokens`` for OpenAI, ``max_tokens`` for others).
    """
    body: dict[str, Any] = {"model": model, limit_field: options.max_tokens}
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.stop_sequences:
        body["stop"] = list(options.stop_sequences)
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    if options.cache_key:
        body["prompt_cache_key"] = options.cache_key
    if options.tools:
        body["tools"] = rendered_once(options.tools, _tools)
    body["messages"] = encode_messages(messages, options.system)
    return body


def _stop(finish: object, has_calls: bool, refused: bool) -> StopReason:
    if refused:
        return "refusal"
    if has_calls and finish in ("stop", None):
        return "tool_use"
    return _STOP_REASONS.get(finish, "end_turn") if isinstance(finish, str) else "end_turn"


def _usage(usage: object) -> Usage:
    """``prompt_tokens`` counts cached tokens too; they are taken out of ``input``."""
    if not isinstance(usage, Mapping):
        return Usage()
    details = usage.get("prompt_tokens_details")
    cached = _count(details, "cached_tokens") if isinstance(details, Mapping) else 0
    return Usage(
        input=max(_count(usage, "prompt_tokens") - cached, 0),
        output=_count(usage, "completion_tokens"),
        cache_read=cached,
    )


def _count(counts: Mapping[str, Any], key: str) -> int:
    value = counts.get(key)
    return value if isinstance(value, int) else 0


def _call(position: int, call_id: object, name: object, arguments: object) -> ToolCall:
    """One tool call; arguments that are no JSON object become the call's ``error``."""
    ident = call_id if isinstance(call_id, str) and call_id else f"call_{position}"
    tool = name if isinstance(name, str) else ""
    if isinstance(arguments, dict):  # an object where JSON text belongs (some local servers)
        return ToolCall(ident, tool, arguments, raw_arguments=jsonfast.dumps(arguments))
    raw = arguments if isinstance(arguments, str) else jsonfast.dumps(arguments)
    parsed, error = parse_arguments(raw)
    return ToolCall(ident, tool, parsed, raw_arguments=raw, error=error)


def _text(content: object) -> str:
    """A message's content: a string, or (some servers) a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


class OpenAICodec(JsonApiCodec):
    """Requests to and answers from one chat-completions server (``base_url``), sans I/O."""

    provider = "openai"
    call_path = "/chat/completions"
    #: Every compatible server lists its models there.
    models_path = "/models"

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        auth = {"authorization": f"Bearer {api_key}"} if api_key else {}
        super().__init__(base_url, {"user-agent": USER_AGENT, **auth}, headers)
        self.limit_field = "max_completion_tokens" if _is_openai(self.base_url) else "max_tokens"

    def body(
        self, model: str, messages: Sequence[Message], options: CompletionOptions, stream: bool
    ) -> dict[str, Any]:
        """The request body as a dict (what an official client's ``create`` takes)."""
        return request_body(model, messages, options, stream, limit_field=self.limit_field)

    def parse(self, data: Any) -> CompletionResult:
        """A whole chat completion (``{"choices": [{"message": ..., "finish_reason": ...}]}``)."""
        choices = data.get("choices") if isinstance(data, dict) else None
        choice = choices[0] if isinstance(choices, list) and choices else None
        if not isinstance(choice, dict) or not isinstance(message := choice.get("message"), dict):
            raise APIResponseValidationError(
                f"openai: POST {self.url}: the answer has no message: {str(data)[:200]}",
                method="POST",
                url=self.url,
                body=data,
            )
        calls = [
            _call(position, raw.get("id"), function.get("name"), function.get("arguments"))
            for position, raw in enumerate(message.get("tool_calls") or [])
            if isinstance(raw, dict) and isinstance(function := raw.get("function"), dict)
        ]
        refusal = message.get("refusal")
        finish = choice.get("finish_reason")
        model = data.get("model")
        return CompletionResult(
            content=_text(message.get("content")) + (refusal if isinstance(refusal, str) else ""),
            tool_calls=tuple(calls),
            stop_reason=_stop(finish, bool(calls), isinstance(refusal, str)),
            usage=_usage(data.get("usage")),
            raw_stop_reason=finish if isinstance(finish, str) else None,
            model=model if isinstance(model, str) else None,
        )

    def decoder(self) -> OpenAIStreamDecoder:
        return OpenAIStreamDecoder("POST", self.url)


class _PartialCall:
    """One streamed tool call while its pieces arrive."""

    __slots__ = ("id", "name", "parts")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.parts: list[str] = []


class OpenAIStreamDecoder(StreamDecoder):
    """A streamed chat completion: ``chat.completion.chunk`` events, then ``data: [DONE]``.

    Content and refusal deltas come out as text chunks at once; tool-call
    pieces are joined by ``index``; usage arrives on a last chunk with no
    choices (``stream_options.include_usage``). An ``{"error": ...}`` event
    raises the SDK's status error (500 unless the server gives a code).
    """

    provider = "openai"
    end_marker = "[DONE]"

    def __init__(self, method: str, url: str) -> None:
        super().__init__(method, url)
        self._started = False
        self._text: list[str] = []
        self._refused = False
        self._calls: dict[int, _PartialCall] = {}
        self._current: _PartialCall | None = None
        self._finish: str | None = None
        self._usage: object = None
        self._model: str | None = None

    def load(self, data: str) -> Any:
        return _DONE if data.strip() == _DONE else super().load(data)

    def event(self, name: str | None, data: Any) -> list[Chunk]:
        if data == _DONE:
            return self.finished(self._result())
        if not isinstance(data, dict):
            return []
        if data.get("error") is not None:
            raise self._error(data)
        self._started = True
        if self._model is None and isinstance(data.get("model"), str):
            self._model = data["model"]
        if data.get("usage") is not None:
            self._usage = data["usage"]
        chunks: list[Chunk] = []
        for choice in data.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            for key in ("content", "refusal"):
                piece = delta.get(key)
                if isinstance(piece, str) and piece:
                    self._refused = self._refused or key == "refusal"
                    self._text.append(piece)
                    chunks.append(Chunk("text", piece))
            for position, raw in enumerate(delta.get("tool_calls") or []):
                if isinstance(raw, dict):
                    self._piece(raw, position)
            if choice.get("finish_reason") is not None:
                self._finish = choice["finish_reason"]
        return chunks

    def end_of_events(self) -> list[Chunk]:
        """The events ran out where a client that hides ``[DONE]`` stops: whole if it finished.

        For an official client's stream, which consumes the end marker itself
        and ends quietly when the connection is cut: an answer whose choice
        never gave its ``finish_reason`` was cut, and raises as one.
        """
        if self.done:
            return []
        if self._finish is None:
            raise self.incomplete("the events ended before the finish_reason")
        return self.finished(self._result())

    def _piece(self, raw: dict[str, Any], position: int) -> None:
        index = raw.get("index", position)
        call = self._calls.setdefault(index if isinstance(index, int) else position, _PartialCall())
        self._current = call
        if isinstance(raw.get("id"), str) and raw["id"] and not call.id:
            call.id = raw["id"]
        function = raw.get("function") or {}
        if isinstance(function.get("name"), str) and function["name"] and not call.name:
            call.name = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.parts.append(arguments)
        elif isinstance(arguments, dict):
            call.parts.append(jsonfast.dumps(arguments))

    def _result(self) -> CompletionResult:
        calls = [
            _call(index, call.id, call.name, "".join(call.parts))
            for index, call in sorted(self._calls.items())
        ]
        return CompletionResult(
            content="".join(self._text),
            tool_calls=tuple(calls),
            stop_reason=_stop(self._finish, bool(calls), self._refused),
            usage=_usage(self._usage),
            raw_stop_reason=self._finish,
            model=self._model,
        )

    def _error(self, data: dict[str, Any]) -> Exception:
        error = data["error"]
        code = error.get("code") if isinstance(error, dict) else None
        status = code if isinstance(code, int) and 400 <= code < 600 else 500
        return provider_status_error(
            "openai", self.method, self.url, status, {}, data, note="error event mid-stream"
        )

    def progress(self) -> str:
        if not self._started:
            return "before the answer began"
        if self._finish is not None:
            return f"after the answer ({self._finish})"
        if self._current is not None:
            return f"during tool call {self._current.name}"
        if self._text:
            return "during the text"
        return "before any text"


_VENDOR = Vendor(
    key_variable="OPENAI_API_KEY",
    base_variable="OPENAI_BASE_URL",
    default_base=DEFAULT_BASE_URL,
    host=_VENDOR_HOST,
    codec=OpenAICodec,
)


class OpenAIProvider(SyncModelProvider):
    """A chat-completions model (OpenAI's, or any compatible server's), on httpx.

    ``OpenAIProvider(model, *, api_key, base_url, env, retry, http_client,
    headers)``: the key from ``api_key`` or ``OPENAI_API_KEY`` (required on
    OpenAI's own host only), the server from ``base_url`` or
    ``OPENAI_BASE_URL`` (default ``https://api.openai.com/v1``).
    """

    vendor = _VENDOR

    def as_async(self) -> AsyncOpenAIProvider:
        """The async twin: the same model, server, key, headers and retries."""
        return AsyncOpenAIProvider(self.model, **twin_arguments(self.settings))


class AsyncOpenAIProvider(AsyncModelProvider):
    """An :class:`OpenAIProvider`, awaited (aiohttp, or the ``http_client`` given)."""

    vendor = _VENDOR

    def as_sync(self) -> OpenAIProvider:
        """The sync twin: the same model, server, key, headers and retries."""
        return OpenAIProvider(self.model, **twin_arguments(self.settings))
