"""What the fake model servers share: a request log, scripted answers, faults, cut streams, delay.

:class:`~signet_sdk.testing.fake_anthropic.FakeAnthropic` and
:class:`~signet_sdk.testing.fake_openai.FakeOpenAI` answer in different wire
shapes but are driven the same way, so a test of one provider reads like the
test of the other:

* :meth:`ModelFake.script_reply` queues whole answers (text, several tool
  calls, a stop reason, a refusal, usage), each taken by the next model call;
* :meth:`ModelFake.fail_next` queues error answers in the vendor's own error
  body, with a ``retry-after`` header when given, taken before any answer;
* :meth:`ModelFake.cut_next_stream` makes the next streamed answer stop
  part-way: the connection closes with neither the end event nor the last
  chunk of the chunked body, as when a provider's connection drops, or the
  vendor's error event ends the stream, as when a provider fails after its
  200 status line;
* :attr:`ModelFake.delay` holds every model-call answer back, for tests of
  deadlines against a slow provider.

Nothing queued, nothing changes: the default answers stay what they were.
Standard library only, like the servers.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from signet_sdk.testing._fake_script import (
    CallSpec,
    Fault,
    ScriptedCall,
    ScriptedReply,
    StreamCut,
    default_cut,
)
from signet_sdk.testing.loopback import LoopbackServer, QuietHandler

__all__ = ["ModelFake", "WireHandler"]


class WireHandler(QuietHandler):
    """The answer writers both fakes use: one JSON body, or a chunked event stream."""

    def handle(self) -> None:
        # A client that gave up (its deadline passed during a delay) is not a server fault.
        try:
            super().handle()
        except ConnectionError:
            self.close_connection = True

    def read_body(self) -> Any:
        """The request's JSON body; a body that is not JSON is kept as ``{"_raw": text}``."""
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            return json.loads(raw) if raw else {}
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}

    def send_json(
        self, status: int, payload: Any, headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_stream(
        self,
        frames: Sequence[bytes],
        headers: Mapping[str, str],
        cut: StreamCut | None = None,
        error_frame: bytes = b"",
    ) -> None:
        """Server-sent events, one chunk each, as providers stream them.

        A ``cut`` sends only its ``after_events`` frames (never the last one,
        which carries the end marker). Then either ``error_frame`` (the
        vendor's error event) ends the body as usual, or the connection closes
        without the chunked body's final empty chunk: a client reading the
        stream gets a protocol error, not a clean end it could take for a
        whole answer.
        """
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        sent = list(frames)
        if cut is not None:
            assert cut.after_events is not None
            sent = sent[: max(0, min(cut.after_events, len(frames) - 1))]
            if cut.error_status is not None:
                sent.append(error_frame)
        for frame in sent:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
            self.wfile.flush()
        if cut is None or cut.error_status is not None:
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.close_connection = True


class ModelFake(LoopbackServer):
    """A fake model server's queues, request log and delay; the subclass speaks the wire."""

    #: The vendor's stop reasons, as its API spells them.
    stop_reasons: frozenset[str] = frozenset()
    #: Whether a tool call's arguments may be any text (OpenAI sends a string the
    #: model wrote) or must be a JSON object (Anthropic sends parsed input).
    raw_arguments_ok: bool = True

    def __init__(
        self,
        handler: type[BaseHTTPRequestHandler],
        log_path: Path | None,
        *,
        reply: Callable[[dict[str, Any]], str],
        usage: dict[str, Any],
        base_path: str = "",
    ) -> None:
        #: The answer's text when nothing is queued, from the request body.
        self.reply = reply
        #: What every answer reports unless a scripted one says otherwise (the vendor's keys).
        self.usage = usage
        #: Tool calls to make, in order, one per request that offers the tool and
        #: may get one (``_next_tool_call`` of the subclass says which): (tool name, arguments).
        self.tool_script: list[tuple[str, dict[str, Any]]] = []
        self.log_path = log_path
        #: Seconds every model-call answer waits before its first byte (0: none).
        self.delay: float = 0.0
        self._requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._scripted: deque[ScriptedReply] = deque()
        self._faults: deque[Fault] = deque()
        self._cuts: deque[StreamCut] = deque()
        self._ids = itertools.count(1)
        super().__init__(handler)
        #: Where a client of the API points (``http://127.0.0.1:<port>`` and the API's root).
        self.base_url = f"http://127.0.0.1:{self.port}{base_path}"

    def close(self) -> None:
        self._closing.set()  # a delayed answer gives up at once
        super().close()

    def _take_tool_call(self, offered: set[str]) -> tuple[str, dict[str, Any]] | None:
        """The first call of ``tool_script`` to one of the ``offered`` tools, taken off it.

        The subclass says which requests may get a call (the last message the
        user's, say); None when none is scripted.
        """
        with self._lock:
            for n, (name, arguments) in enumerate(self.tool_script):
                if name in offered:
                    del self.tool_script[n]
                    return name, arguments
        return None

    # -- what a test queues -------------------------------------------------

    def script_reply(
        self,
        text: str = "",
        *,
        tool_calls: Sequence[CallSpec] = (),
        stop_reason: str | None = None,
        refusal: str | None = None,
        usage: Mapping[str, Any] | None = None,
    ) -> None:
        """Queue one whole answer for the next model call (after any queued fault).

        ``tool_calls`` are made in the order given, in one answer;
        ``stop_reason`` is in the vendor's words and defaults to the one for a
        tool call or a finished turn; ``refusal`` answers with the vendor's
        refusal; ``usage`` replaces the server's usage for this answer.
        """
        if stop_reason is not None and stop_reason not in self.stop_reasons:
            allowed = ", ".join(sorted(self.stop_reasons))
            raise ValueError(f"stop_reason: {stop_reason!r} is not one of {allowed}")
        calls: list[ScriptedCall] = []
        for n, spec in enumerate(tool_calls):
            if not (2 <= len(spec) <= 3 and isinstance(spec[0], str) and spec[0]):
                raise ValueError(f"tool_calls[{n}]: expected (name, arguments[, id])")
            if not isinstance(spec[1], Mapping | str):
                raise ValueError(f"tool_calls[{n}]: arguments must be a mapping or a JSON string")
            if isinstance(spec[1], str) and not self.raw_arguments_ok:
                try:
                    parsed = json.loads(spec[1])
                except ValueError:
                    parsed = None
                if not isinstance(parsed, dict):
                    raise ValueError(f"tool_calls[{n}]: arguments must be a JSON object here")
            call_id = spec[2] if len(spec) == 3 else None
            calls.append(ScriptedCall(spec[0], spec[1], call_id))
        reply = ScriptedReply(text, tuple(calls), stop_reason, refusal, usage)
        with self._lock:
            self._scripted.append(reply)

    def fail_next(
        self,
        status: int,
        message: str | None = None,
        *,
        retry_after: float | str | None = None,
        times: int = 1,
        error_type: str | None = None,
    ) -> None:
        """Answer the next ``times`` model calls with ``status`` and the vendor's error body.

        ``error_type`` overrides the type the vendor gives that status;
        ``retry_after`` (seconds, or an HTTP date as a string) is sent as the
        ``retry-after`` header.
        """
        if not 400 <= status <= 599:
            raise ValueError(f"status: {status} is not an HTTP error status (400-599)")
        if times < 1:
            raise ValueError(f"times: {times} must be at least 1")
        after = None
        if isinstance(retry_after, str):
            after = retry_after
        elif retry_after is not None:
            if retry_after < 0:
                raise ValueError(f"retry_after: {retry_after} must not be negative")
            # Plain decimal seconds ("2", "0.5"), never an exponent a client cannot read.
            after = format(retry_after, "f").rstrip("0").rstrip(".")
        with self._lock:
            self._faults.append(Fault(status, message, after, error_type, times))

    def cut_next_stream(
        self,
        after_events: int | None = None,
        *,
        error_status: int | None = None,
        times: int = 1,
    ) -> None:
        """Cut the next ``times`` streamed answers short (non-streamed calls are not affected).

        ``after_events`` events go out first; by default the cut falls inside
        the first tool call's arguments, else inside the text. The end event
        never goes out. The connection then drops, unless ``error_status``
        is given: then the vendor's error event for that status ends the
        stream, as a provider reports a failure after its 200 status line
        (Anthropic's ``overloaded_error`` with 529).
        """
        if after_events is not None and after_events < 0:
            raise ValueError(f"after_events: {after_events} must not be negative")
        if error_status is not None and not 400 <= error_status <= 599:
            raise ValueError(f"error_status: {error_status} is not an HTTP error status (400-599)")
        if times < 1:
            raise ValueError(f"times: {times} must be at least 1")
        with self._lock:
            self._cuts.extend([StreamCut(after_events, error_status)] * times)

    # -- what the handler takes ---------------------------------------------

    def _take_fault(self) -> Fault | None:
        with self._lock:
            if not self._faults:
                return None
            fault = self._faults[0]
            fault.left -= 1
            if fault.left == 0:
                self._faults.popleft()
            return fault

    def _take_scripted(self) -> ScriptedReply | None:
        with self._lock:
            return self._scripted.popleft() if self._scripted else None

    def _take_cut(self, kinds: Sequence[str | None]) -> StreamCut | None:
        """The next cut, if one is queued, placed: ``kinds`` names what each event carries."""
        with self._lock:
            if not self._cuts:
                return None
            cut = self._cuts.popleft()
        if cut.after_events is None:
            cut = replace(cut, after_events=default_cut(kinds))
        return cut

    def _call_id(self, call: ScriptedCall, prefix: str) -> str:
        """The call's own id, else the next of this server's (unique, as the vendors' are)."""
        return call.id if call.id is not None else f"{prefix}{next(self._ids)}"

    def _with_ids(self, reply: ScriptedReply, prefix: str) -> ScriptedReply:
        """``reply`` with an id on every tool call, so both answer forms carry the same ones."""
        calls = tuple(replace(c, id=self._call_id(c, prefix)) for c in reply.tool_calls)
        return replace(reply, tool_calls=calls)

    def _usage_of(self, reply: ScriptedReply) -> dict[str, Any]:
        """The usage a scripted answer reports: its own, else the server's."""
        usage: Mapping[str, Any] = self.usage if reply.usage is None else reply.usage
        return dict(usage)

    def _pause(self) -> None:
        if self.delay > 0:
            self._closing.wait(self.delay)

    def _record(self, method: str, path: str, headers: dict[str, str], body: Any) -> None:
        line = {"method": method, "path": path, "headers": headers, "body": body}
        with self._lock:
            self._requests.append(line)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(line) + "\n")

    def _bodies(self, path: str) -> list[dict[str, Any]]:
        return [
            r["body"]
            for r in self.requests()
            if r["method"] == "POST"
            and r["path"].split("?", 1)[0] == path
            and isinstance(r["body"], dict)
        ]

    def requests(self) -> list[dict[str, Any]]:
        """Every request so far, oldest first."""
        with self._lock:
            return list(self._requests)
