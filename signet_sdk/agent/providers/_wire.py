"""What both provider codecs share, with no I/O: the request value, SSE framing, errors.

A codec (:mod:`~signet_sdk.agent.providers.anthropic`,
:mod:`~signet_sdk.agent.providers.openai`) turns messages into a
:class:`ModelRequest` and answers back into values of
:mod:`signet_sdk.agent.types`; the transport (:mod:`._http`) or an official
vendor client (:mod:`.sdk`) moves the bytes. Keeping this side free of I/O is
what lets the sync and async providers, and the wrapper of a vendor's own
client, put the same request on the wire and read answers the same way.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from signet_sdk._version import __version__
from signet_sdk.agent.types import Chunk, CompletionResult
from signet_sdk.wire import jsonfast
from signet_sdk.wire.errors import (
    APIConnectionError,
    APIResponseValidationError,
    APIStatusError,
    decode_body,
    parse_retry_after,
    status_error,
)

__all__ = [
    "USER_AGENT",
    "IncompleteStreamError",
    "ModelRequest",
    "SSEFramer",
    "StreamDecoder",
    "answer_failure",
    "encode_json",
    "parse_arguments",
    "plain",
    "provider_status_error",
    "vendor_message",
]

USER_AGENT = f"signet-sdk/{__version__}"


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One model call, ready for any transport: method, URL, headers and body bytes decided.

    ``headers`` is shared between the calls of one provider (it carries the
    key, so it is left out of the repr); no transport may change it.
    """

    method: str
    url: str
    headers: dict[str, str] = field(repr=False)
    content: bytes | None
    stream: bool = False


class IncompleteStreamError(APIConnectionError):
    """A streamed answer ended before the API's end marker: the connection was cut.

    ``progress`` says how far the answer had got ("during tool call
    memory_store", "during the text" ...), so a caller can tell a cut answer
    from a whole one and decide whether to ask again. Nothing of a cut
    answer is returned: a tool call with half its arguments must not run.
    """

    def __init__(self, message: str, *, method: str, url: str, progress: str) -> None:
        super().__init__(message, method=method, url=url)
        self.progress = progress


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON, keys in the order given: the same value always gives the same bytes.

    The same text as ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``.
    """
    return jsonfast.dumps(value).encode("utf-8")


def plain(value: Any) -> Any:
    """``value`` with every mapping a dict and every tuple a list, so JSON can encode it.

    Tool schemas and arguments arrive as read-only mappings; the key order is kept.
    """
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """A model's tool-call arguments as an object, or ``({}, why)`` when they are not one.

    An empty string is no arguments (some servers send it for a tool that
    takes none). Never raises: a model that writes bad JSON gets the error
    back as the tool's answer and can try again.
    """
    if not raw.strip():
        return {}, None
    try:
        value = jsonfast.loads(raw)
    except ValueError as exc:
        return {}, f"the arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return {}, f"the arguments must be a JSON object, not {_json_kind(value)}"
    return value, None


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array"


def vendor_message(body: object) -> str | None:
    """The vendor's own words in an error answer.

    Anthropic ``{"type": "error", "error": {"type", "message"}}``, OpenAI
    ``{"error": {"message"}}``, and the plain ``{"error": "..."}`` of some
    OpenAI-compatible servers (Ollama); a text body is its own message.
    """
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            message = error.get("message")
            if isinstance(message, str) and message:
                return message
            kind = error.get("type")
            return kind if isinstance(kind, str) and kind else None
        if isinstance(error, str) and error:
            return error
        message = body.get("message")
        return message if isinstance(message, str) and message else None
    if isinstance(body, str) and body.strip():
        return body.strip()[:300]
    return None


def provider_status_error(
    provider: str,
    method: str,
    url: str,
    status: int,
    headers: Mapping[str, str],
    body: object,
    *,
    note: str = "",
) -> APIStatusError:
    """The SDK's status error for a vendor's non-2xx answer (or an error event mid-stream).

    The class comes from :func:`~signet_sdk.wire.errors.status_error` (401
    :class:`AuthenticationError`, 429 :class:`RateLimitError` ...); the
    message names the provider and carries the vendor's own words:
    ``anthropic: POST https://.../v1/messages -> 401: invalid x-api-key``.
    A 5xx that says ``Retry-After`` (Anthropic's 529 may) gets
    ``retry_after`` as 429 and 503 do, so the wait it asks for is kept.
    """
    shape = status_error(method=method, url=url, status_code=status, body=body, headers=headers)
    text = f"{provider}: {method} {url} -> {status}"
    said = vendor_message(body)
    if said:
        text += f": {said[:500]}"
    if note:
        text += f" ({note})"
    error = type(shape)(
        text, method=method, url=url, status_code=status, body=body, headers=headers
    )
    if getattr(error, "retry_after", None) is None and status >= 500:
        setattr(error, "retry_after", parse_retry_after(headers, None))  # noqa: B010
    return error


def answer_failure(
    provider: str, request: ModelRequest, status: int, headers: Mapping[str, str], content: bytes
) -> APIStatusError:
    """:func:`provider_status_error` for a whole non-2xx answer as a transport received it."""
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
    body = decode_body(content, content_type)
    return provider_status_error(provider, request.method, request.url, status, headers, body)


class SSEFramer:
    """Server-sent events from their lines: ``feed`` each line, get each event as it ends.

    An event is its ``event:`` name (None when unnamed) and its ``data:``
    lines joined by newlines; a blank line ends it, comments (``:``) and
    other fields are skipped, as the SSE specification says.
    """

    __slots__ = ("_data", "_name")

    def __init__(self) -> None:
        self._name: str | None = None
        self._data: list[str] = []

    def feed(self, line: str) -> tuple[str | None, str] | None:
        if not line:
            return self.flush()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._name = value
        return None

    def flush(self) -> tuple[str | None, str] | None:
        """The event in progress, if it has data; the framer starts afresh either way."""
        name, data = self._name, self._data
        self._name, self._data = None, []
        return (name, "\n".join(data)) if data else None


#: The starts of the lines of a server-sent event stream (a comment, or a field).
_SSE_FIELDS = (":", "data", "event", "id", "retry")
#: How much of a non-stream answer is kept to say what it was.
_STRAY_LIMIT = 4096


class StreamDecoder(ABC):
    """One streamed answer: SSE lines (or a vendor client's decoded events) in, chunks out.

    ``feed(line)`` takes the lines of the answer one by one and gives the
    chunks each completes: text chunks as the text arrives, then exactly one
    ``done`` chunk with the whole result once the API's end marker comes.
    :meth:`end` is called when the lines run out; an answer without its end
    marker raises :class:`IncompleteStreamError` there. Subclasses handle one
    API's events in :meth:`event`.
    """

    provider = ""
    #: The API's end-of-stream marker, as the error message names it.
    end_marker = ""

    def __init__(self, method: str, url: str) -> None:
        self.method = method
        self.url = url
        self.result: CompletionResult | None = None
        self._framer = SSEFramer()
        #: Lines that are no SSE field, while no event has come: a server that
        #: answered a stream request with one JSON document (an error, or a
        #: whole completion: it does not stream) says so in them.
        self._stray: list[str] | None = []

    @property
    def done(self) -> bool:
        """Whether the whole answer has arrived (the ``done`` chunk was given)."""
        return self.result is not None

    def feed(self, line: str) -> list[Chunk]:
        if self.result is not None:
            return []
        stray = self._stray
        if stray is not None and line and not line.startswith(_SSE_FIELDS):
            if sum(map(len, stray)) < _STRAY_LIMIT:
                stray.append(line)
            return []
        framed = self._framer.feed(line)
        if framed is None:
            return []
        self._stray = None  # a stream after all
        name, data = framed
        return self.event(name, self.load(data))

    def _not_a_stream(self) -> str | None:
        """What a server said instead of streaming (one JSON document), or None."""
        if not self._stray:
            return None
        text = "\n".join(self._stray)
        try:
            document = jsonfast.loads(text)
        except ValueError:
            return f"the answer is not a stream: {text[:200]!r}"
        error = document.get("error") if isinstance(document, dict) else None
        if isinstance(error, dict):
            error = error.get("message", error)
        if error is not None:
            return f"the server answered with an error instead of a stream: {str(error)[:300]}"
        return (
            "the server answered with one JSON document, not a stream: it may not "
            "stream (ask without streaming: stream=False, or --no-stream)"
        )

    def load(self, data: str) -> Any:
        """One event's data, parsed; the text itself when it is an end marker, not JSON."""
        try:
            return jsonfast.loads(data)
        except ValueError:
            raise APIResponseValidationError(
                f"{self.provider}: {self.method} {self.url}: a stream event is not JSON: "
                f"{data[:200]!r}",
                method=self.method,
                url=self.url,
                body=data,
            ) from None

    @abstractmethod
    def event(self, name: str | None, data: Any) -> list[Chunk]:
        """The chunks one event gives (``data`` is parsed JSON): each API's own."""

    @abstractmethod
    def progress(self) -> str:
        """How far the answer got, for the message of a cut stream."""

    def end(self) -> list[Chunk]:
        """The lines ran out: the last event if it lacked its blank line, else the cut is raised.

        An event still pending whose data does not parse was cut mid-line,
        and counts as missing.
        """
        if self.result is None:
            framed = self._framer.flush()
            if framed is not None:
                try:
                    data = self.load(framed[1])
                except APIResponseValidationError:
                    data = None
                if data is not None:
                    chunks = self.event(framed[0], data)
                    if self.result is not None:
                        return chunks
        if self.result is None:
            raise self.incomplete(self._not_a_stream())
        return []

    def incomplete(self, reason: str | None = None) -> IncompleteStreamError:
        """The error for an answer cut where it is now (``reason``: what the transport saw)."""
        progress = self.progress()
        text = f"{self.provider}: {self.method} {self.url}: stream cut {progress}"
        text += f" (no {self.end_marker})" if reason is None else f": {reason}"
        return IncompleteStreamError(text, method=self.method, url=self.url, progress=progress)

    def finished(self, result: CompletionResult) -> list[Chunk]:
        self.result = result
        return [Chunk("done", result=result)]


#: Tool lists already rendered, by the identity of the specs tuple they came from.
_RENDERED: dict[tuple[int, object], tuple[Sequence[Any], list[dict[str, Any]]]] = {}


def rendered_once(
    specs: Sequence[Any], render: Callable[[Sequence[Any]], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """``render(specs)``, made once per specs tuple and renderer: a session's tools never change.

    The registry hands every request the same tuple until a tool is added,
    so a request reuses the JSON-ready list instead of walking every schema
    again (most of what building a request costs). The list is shared: it
    is only ever serialized, never changed.
    """
    key = (id(specs), render)
    found = _RENDERED.get(key)
    if found is not None and found[0] is specs:
        return found[1]
    made = render(specs)
    if len(_RENDERED) >= 64:
        _RENDERED.clear()
    _RENDERED[key] = (specs, made)
    return made
