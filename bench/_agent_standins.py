"""The stand-ins ``bench_agent.py`` runs against: the daemon routes of a turn and two model APIs.

One child process (this file run as a script) with two listening sockets on 127.0.0.1: the
daemon side answers ``/health`` and the four hook routes a session uses
(session-start, user-prompt-submit, session-checkpoint-extract,
session-end); the model side answers Anthropic's ``POST /v1/messages`` and
OpenAI's ``POST /v1/chat/completions``, as JSON or as an SSE stream when the
request asks for one. Every answer is a canned byte string made once, and
the parser reads only the request line and Content-Length, so a request
costs the stand-in a few microseconds: it is never what a turn waits for.

Not a benchmark itself. Control routes on the daemon side: ``GET
/__bench/stats`` (CPU time, requests and connections per side) and ``POST
/__bench/log`` (body ``on`` or ``off``: switch the request log on or off;
the answer is the log kept since the last call, which is then cleared).
"""

from __future__ import annotations

import asyncio
import functools
import http.client
import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from _http_stub import KeepAliveResponder, head_record, http_response

__all__ = [
    "PROMPT_INJECT",
    "REPLY",
    "SESSION_INJECT",
    "Captured",
    "StandIns",
]

#: The session start's context (the first turn of a session carries it).
SESSION_INJECT = (
    "[signet memory] Project atlas: a Python service deployed to staging from CI.\n"
    "- The team prefers small pull requests and squash merges."
)
#: user-prompt-submit's recall: about 300 characters of context, as a busy daemon gives.
PROMPT_INJECT = (
    "[signet memory] Relevant context for this prompt:\n"
    "- Staging deploys run from CI on merge to main; never push images by hand.\n"
    "- The staging database is pg-staging-2 (read replica pg-staging-3).\n"
    "- Feature flags live in config/flags.yaml and are reviewed by the platform team.\n"
    "- Last incident: migrations ran twice when the deploy job was retried."
)
#: The model's answer to every turn, streamed as eight text deltas.
REPLY = (
    "Merge to main and let CI deploy staging; do not push images by hand. "
    "Check config/flags.yaml for the flag first, and watch pg-staging-2 while the "
    "migration runs: the last retried deploy ran it twice, so make it idempotent."
)
DELTAS = 8

CONTROL_STATS = "/__bench/stats"
CONTROL_LOG = "/__bench/log"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _pieces(text: str, count: int) -> list[str]:
    step = -(-len(text) // count)
    return [text[i : i + step] for i in range(0, len(text), step)]


def _json_answer(value: Any) -> bytes:
    return http_response(_compact(value).encode(), "application/json")


def _anthropic_json() -> bytes:
    return _json_answer(
        {
            "id": "msg_bench",
            "type": "message",
            "role": "assistant",
            "model": "claude-bench",
            "content": [{"type": "text", "text": REPLY}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1200, "output_tokens": 60},
        }
    )


def _anthropic_sse() -> bytes:
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_bench",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-bench",
                    "content": [],
                    "stop_reason": None,
                    "usage": {"input_tokens": 1200, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
    ]
    events += [
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}},
        )
        for p in _pieces(REPLY, DELTAS)
    ]
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 60},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    text = "".join(f"event: {name}\ndata: {_compact(data)}\n\n" for name, data in events)
    return http_response(text.encode(), "text/event-stream")


def _openai_chunk(choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-bench",
        "choices": choices,
        **extra,
    }


def _openai_json() -> bytes:
    return _json_answer(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-bench",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": REPLY},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1200, "completion_tokens": 60, "total_tokens": 1260},
        }
    )


def _openai_sse() -> bytes:
    chunks = [
        _openai_chunk(
            [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]
        )
    ]
    chunks += [
        _openai_chunk([{"index": 0, "delta": {"content": p}, "finish_reason": None}])
        for p in _pieces(REPLY, DELTAS)
    ]
    chunks.append(_openai_chunk([{"index": 0, "delta": {}, "finish_reason": "stop"}]))
    chunks.append(
        _openai_chunk(
            [], usage={"prompt_tokens": 1200, "completion_tokens": 60, "total_tokens": 1260}
        )
    )
    text = "".join(f"data: {_compact(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return http_response(text.encode(), "text/event-stream")


DAEMON_ANSWERS = {
    (b"GET", b"/health"): _json_answer({"status": "healthy", "version": "0.145.8", "pid": 1}),
    (b"POST", b"/api/hooks/session-start"): _json_answer({"inject": SESSION_INJECT}),
    (b"POST", b"/api/hooks/user-prompt-submit"): _json_answer(
        {"inject": PROMPT_INJECT, "memoryCount": 4, "engine": "hybrid", "sessionKnown": True}
    ),
    (b"POST", b"/api/hooks/session-checkpoint-extract"): _json_answer(
        {"queued": True, "jobId": "job-bench"}
    ),
    (b"POST", b"/api/hooks/session-end"): _json_answer(
        {"memoriesSaved": 0, "queued": True, "jobId": "job-bench-end"}
    ),
}
MODEL_ANSWERS = {
    (b"/v1/messages", False): _anthropic_json(),
    (b"/v1/messages", True): _anthropic_sse(),
    (b"/v1/chat/completions", False): _openai_json(),
    (b"/v1/chat/completions", True): _openai_sse(),
}
_NOT_FOUND = http_response(b"not found", "text/plain", "404 Not Found")
_CHUNKED = http_response(b"send a Content-Length", "text/plain", "411 Length Required")


class _State:
    """What the control routes report: traffic per side, the request log, CPU time."""

    def __init__(self) -> None:
        self.requests = {"daemon": 0, "model": 0}
        self.connections = {"daemon": 0, "model": 0}
        self.recording = False
        self.log: list[dict[str, Any]] = []

    def record(self, side: str, head: bytes, body: bytes) -> None:
        line, headers = head_record(head)
        self.log.append(
            {
                "side": side,
                "line": line,
                "headers": headers,
                "body": body.decode("utf-8", "replace"),
            }
        )

    def stats(self) -> bytes:
        return _compact(
            {
                "cpu": time.process_time(),
                "requests": self.requests,
                "connections": self.connections,
            }
        ).encode()


class _Responder(KeepAliveResponder):
    """The daemon's or the model's side: all a turn's clients send (``_http_stub``)."""

    def __init__(self, side: str, state: _State) -> None:
        super().__init__()
        self.side = side
        self.state = state

    def opened(self) -> None:
        self.state.connections[self.side] += 1

    def chunked(self) -> bytes:
        return _CHUNKED

    def answer(self, head: bytes, body: bytes) -> bytes:
        method, target, _ = head.split(b" ", 2)
        path = target.partition(b"?")[0]
        state = self.state
        if self.side == "daemon":
            if path == CONTROL_STATS.encode():
                return http_response(state.stats(), "application/json")
            if path == CONTROL_LOG.encode():
                log, state.log = state.log, []
                state.recording = body.strip() == b"on"
                return http_response(_compact(log).encode(), "application/json")
            answer = DAEMON_ANSWERS.get((method, path), _NOT_FOUND)
        else:
            answer = MODEL_ANSWERS.get((path, b'"stream":true' in body[:300]), _NOT_FOUND)
        state.requests[self.side] += 1
        if state.recording:
            state.record(self.side, head, body)
        return answer


def _listener() -> socket.socket:
    # IPPROTO_TCP explicitly, so asyncio sets TCP_NODELAY on the accepted sockets.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    return sock


async def _serve(daemon_sock: socket.socket, model_sock: socket.socket) -> None:
    state = _State()
    loop = asyncio.get_running_loop()
    servers = [
        await loop.create_server(
            functools.partial(_Responder, side, state), sock=sock, backlog=1024
        )
        for side, sock in (("daemon", daemon_sock), ("model", model_sock))
    ]
    await asyncio.gather(*(server.serve_forever() for server in servers))


def serve() -> None:
    """Child-process entry: bind both sides, print their ports, serve until terminated."""
    daemon_sock, model_sock = _listener(), _listener()
    print(daemon_sock.getsockname()[1], model_sock.getsockname()[1], flush=True)
    asyncio.run(_serve(daemon_sock, model_sock))


@dataclass(frozen=True)
class Captured:
    """One request as the stand-in received it: side, request line, sorted headers, body."""

    side: str
    line: str
    headers: tuple[tuple[str, str], ...]
    body: str

    @property
    def path(self) -> str:
        return self.line.split(" ")[1]

    def json(self) -> Any:
        return json.loads(self.body)


class StandIns:
    """The stand-ins' process, seen from the bench: its two URLs, its log, its counters."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__)],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        line = self.process.stdout.readline() if ready else ""
        if not line.strip():
            self.stop()
            raise RuntimeError("the stand-ins did not start within 30 s")
        self.daemon_port, self.model_port = (int(p) for p in line.split())
        self.daemon_url = f"http://127.0.0.1:{self.daemon_port}"
        self.model_url = f"http://127.0.0.1:{self.model_port}"

    def _control(self, method: str, path: str, body: bytes | None = None) -> Any:
        conn = http.client.HTTPConnection("127.0.0.1", self.daemon_port, timeout=10)
        try:
            conn.request(method, path, body=body)
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()

    def stats(self) -> dict[str, Any]:
        found: dict[str, Any] = self._control("GET", CONTROL_STATS)
        return found

    def record(self, on: bool) -> list[Captured]:
        """Switch the request log on or off; the requests logged since the last call."""
        raw: Sequence[dict[str, Any]] = self._control("POST", CONTROL_LOG, b"on" if on else b"off")
        return [
            Captured(r["side"], r["line"], tuple((h[0], h[1]) for h in r["headers"]), r["body"])
            for r in raw
        ]

    def stop(self) -> None:
        from signet_sdk.testing import stop_process  # the child script itself never loads the SDK

        stop_process(self.process, grace=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


if __name__ == "__main__":
    serve()
