"""How long each transport holds a call when the daemon will not finish its answer.

A scripted daemon on 127.0.0.1 answers ``user-prompt-submit`` in one of
four ways that each defeat a timeout applied per read:

* trickle: the head at once, then the body one byte at a time over ``--over`` s;
* slow-head: the head and the body one byte at a time over ``--over`` s;
* endless: a chunked body whose chunks never stop;
* stalled: the head and a few bytes of the body, then nothing (the connection open).

Every transport makes one call with ``--deadline`` (no retries): the sync
client (httpx), the async client on aiohttp (its own session and one it was
given), on an httpx client it was given, and the hook path's standard-library
client. Printed per cell: the seconds the call took and what it ended with.

    python bench/bench_deadline.py [--deadline 2.0] [--over 8.0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socketserver
import threading
import time
from collections.abc import Callable
from typing import Any

import signet_sdk as s
from signet_sdk.client.io import aiohttp_session
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.lean import LeanClient

ANSWER = json.dumps({"inject": "x" * 140, "memoryCount": 1}).encode()
PROMPT = s.UserPromptSubmitParams(session_key="bench", user_message="how do we deploy?")
HOLDS = ("trickle", "slow-head", "endless", "stalled")


class Daemon(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    hold = "trickle"
    over = 8.0
    stopping = threading.Event()


class Handler(socketserver.StreamRequestHandler):
    server: Daemon

    def handle(self) -> None:
        length = 0
        try:
            while (line := self.rfile.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.rfile.read(length)
            self.answer(self.server.hold)
        except OSError:
            pass

    def answer(self, hold: str) -> None:
        wait = self.server.stopping.wait
        if hold == "endless":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            while not wait(0.05):
                self.wfile.write(b"1\r\n \r\n")
            return
        head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(ANSWER)}\r\n\r\n".encode()
        if hold == "stalled":
            self.wfile.write(head + ANSWER[:10])
            wait()
            return
        data = head + ANSWER if hold == "slow-head" else ANSWER
        if hold == "trickle":
            self.wfile.write(head)
        step = self.server.over / len(data)
        for i in range(len(data)):
            if wait(step):
                return
            self.wfile.write(data[i : i + 1])


def timed(fn: Callable[[], Any]) -> tuple[float, str]:
    started = time.monotonic()
    try:
        fn()
        ended = "the answer"
    except s.SignetError as exc:
        ended = type(exc).__name__
    return time.monotonic() - started, ended


def one_call(kind: str, url: str, deadline: float) -> tuple[float, str]:
    """Seconds the call took (clients made beforehand) and what it ended with."""
    if kind == "lean":
        lean = LeanClient(resolve_config(url, harness="bench", max_retries=0, env={}))
        body = {"sessionKey": "bench", "userMessage": "how do we deploy?"}
        return timed(lambda: lean.call("user_prompt_submit", body, timeout=deadline))
    if kind == "sync":
        with s.AdapterClient("bench", url, timeout=deadline, max_retries=0) as client:
            return timed(lambda: client.on_user_prompt_submit(PROMPT))

    async def call() -> tuple[float, str]:
        import httpx

        shared: Any = None
        if kind == "async-aiohttp-shared":
            shared = aiohttp_session()
        elif kind == "async-httpx":
            shared = httpx.AsyncClient()
        try:
            async with s.AsyncAdapterClient(
                "bench", url, timeout=deadline, max_retries=0, http_client=shared
            ) as client:
                started = time.monotonic()
                try:
                    await client.on_user_prompt_submit(PROMPT)
                    ended = "the answer"
                except s.SignetError as exc:
                    ended = type(exc).__name__
                return time.monotonic() - started, ended
        finally:
            if kind == "async-aiohttp-shared":
                await shared.close()
            elif kind == "async-httpx":
                await shared.aclose()

    return asyncio.run(call())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deadline", type=float, default=2.0)
    ap.add_argument("--over", type=float, default=8.0, help="seconds a trickled answer takes")
    args = ap.parse_args()
    daemon = Daemon(("127.0.0.1", 0), Handler)
    daemon.over = args.over
    threading.Thread(target=daemon.serve_forever, args=(0.05,), daemon=True).start()
    url = f"http://127.0.0.1:{daemon.server_address[1]}"
    kinds = ["sync", "async-aiohttp", "async-aiohttp-shared", "async-httpx", "lean"]
    print(f"deadline {args.deadline:g} s, a trickled answer takes {args.over:g} s")
    print(f"{'hold':10} {'transport':22} {'took':>7}  ended with")
    try:
        for hold in HOLDS:
            daemon.hold = hold
            for kind in kinds:
                took, ended = one_call(kind, url, args.deadline)
                print(f"{hold:10} {kind:22} {took:6.2f}s  {ended}", flush=True)
    finally:
        daemon.stopping.set()
        daemon.shutdown()
        daemon.server_close()


if __name__ == "__main__":
    main()
