#!/usr/bin/env python3
"""What the SDK costs on top of the HTTP library it rides on.

Every figure compares the SDK with the same request (method, URL, headers,
body bytes) sent by hand through the bare library and decoded with
``json.loads``, against a local stand-in daemon. The daemon runs in its own
process so it neither shares the client's GIL nor competes for the client's
core; it reports its own CPU time so a run can show it was not the limit.
The script checks that both sides of every comparison put identical bytes on
the wire before it times anything.

    python bench/bench_client.py            # full run, about a minute on 2 cores
    python bench/bench_client.py --quick    # smoke run, a few seconds
    python bench/bench_client.py --server uvicorn

Figures only; no pass/fail. See bench/README.md for the latest numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import http.client
import importlib.util
import json
import multiprocessing as mp
import os
import platform
import socket
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from _http_stub import KeepAliveResponder, head_record, http_response

#: A realistic user-prompt-submit answer: ~300 characters of injected context.
INJECT = (
    "[signet memory] Relevant context for this prompt:\n"
    "- Staging deploys run from CI on merge to main; never push images by hand.\n"
    "- The staging database is pg-staging-2 (read replica pg-staging-3).\n"
    "- Feature flags live in config/flags.yaml and are reviewed by the platform team.\n"
    "- Last incident: migrations ran twice when the deploy job was retried."
)
ANSWER: dict[str, object] = {
    "inject": INJECT,
    "memoryCount": 3,
    "engine": "hybrid",
    "sessionKnown": True,
}
ANSWER_BYTES = json.dumps(ANSWER, separators=(",", ":")).encode()
PROMPT_PATH = "/api/hooks/user-prompt-submit"
STATS_PATH = "/__bench_stats"


# ---------------------------------------------------------------------------
# the stand-in daemon (child process)
# ---------------------------------------------------------------------------


class _Counters:
    """What the daemon reports at STATS_PATH: its CPU time and traffic."""

    def __init__(self, counts_connections: bool = True) -> None:
        self.requests = 0
        self.connections: int | None = 0 if counts_connections else None
        self.last_head: bytes = b""
        self.last_body: bytes = b""

    def stats(self) -> bytes:
        line, headers = head_record(self.last_head)
        return json.dumps(
            {
                "cpu": time.process_time(),
                "requests": self.requests,
                "connections": self.connections,
                "last": {
                    "line": line,
                    "headers": headers,
                    "body": self.last_body.decode("utf-8", "replace"),
                },
            }
        ).encode()


class _DaemonProtocol(KeepAliveResponder):
    """The stand-in daemon: one route answered, one reporting what it cost (``_http_stub``)."""

    ANSWER = http_response(ANSWER_BYTES, "application/json")
    NOT_FOUND = http_response(b"404 Not Found", "text/plain", "404 Not Found")

    def __init__(self, counters: _Counters) -> None:
        super().__init__()
        self.counters = counters

    def opened(self) -> None:
        assert self.counters.connections is not None
        self.counters.connections += 1

    def answer(self, head: bytes, body: bytes) -> bytes:
        target = head.split(b" ", 2)[1]
        if target == PROMPT_PATH.encode():
            self.counters.requests += 1
            self.counters.last_head, self.counters.last_body = head, body
            return self.ANSWER
        if target == STATS_PATH.encode():
            return http_response(self.counters.stats(), "application/json")
        return self.NOT_FOUND


async def _serve_asyncio(sock: socket.socket) -> None:
    counters = _Counters()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _DaemonProtocol(counters), sock=sock, backlog=1024)
    async with server:
        await server.serve_forever()


def _serve_uvicorn(sock: socket.socket) -> None:
    import uvicorn

    counters = _Counters(counts_connections=False)  # ASGI does not show connections

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if scope["path"] == PROMPT_PATH:
            counters.requests += 1
            # Rebuild a head like the raw server records, for the wire check.
            line = f"{scope['method']} {scope['raw_path'].decode()} HTTP/{scope['http_version']}"
            fields = "".join(f"\r\n{k.decode()}: {v.decode()}" for k, v in scope["headers"])
            counters.last_head, counters.last_body = (line + fields).encode("latin-1"), body
            payload, ctype = ANSWER_BYTES, b"application/json"
        elif scope["path"] == STATS_PATH:
            payload, ctype = counters.stats(), b"application/json"
        else:
            payload, ctype = b"404 Not Found", b"text/plain"
        status = 404 if ctype == b"text/plain" else 200
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", ctype), (b"content-length", b"%d" % len(payload))],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    config = uvicorn.Config(
        app,
        http="h11",
        loop="asyncio",
        lifespan="off",
        access_log=False,
        log_level="warning",
        server_header=False,
        date_header=False,
        backlog=1024,
        # Idle connections wait while other variants take their turn; the
        # default 5 s would make each turn start with a reconnect storm.
        timeout_keep_alive=300,
    )
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


def serve(kind: str, port_out: Any) -> None:
    """Child-process entry: bind a free port, report it, serve until terminated."""
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on accepted sockets
    # whose proto says TCP, and proto 0 is inherited from the listener. Without
    # it a server that writes head and body separately (uvicorn) waits 40 ms
    # for the client's delayed ACK on every answer.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    port_out.send(sock.getsockname()[1])
    port_out.close()
    if kind == "uvicorn":
        _serve_uvicorn(sock)
    else:
        asyncio.run(_serve_asyncio(sock))


class Daemon:
    """The stand-in daemon's process, seen from the benchmark."""

    def __init__(self, kind: str) -> None:
        ctx = mp.get_context("spawn")
        receiver, sender = ctx.Pipe(duplex=False)
        self.process = ctx.Process(target=serve, args=(kind, sender), daemon=True)
        self.process.start()
        sender.close()
        if not receiver.poll(30):
            self.stop()
            raise RuntimeError("the benchmark daemon did not start within 30 s")
        self.port: int = receiver.recv()
        self.url = f"http://127.0.0.1:{self.port}"

    def stats(self) -> dict[str, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request("GET", STATS_PATH)
            data: dict[str, Any] = json.loads(conn.getresponse().read())
            return data
        finally:
            conn.close()

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)


# ---------------------------------------------------------------------------
# measuring
# ---------------------------------------------------------------------------


@dataclass
class Usage:
    """CPU share of each process while one variant ran, from process times."""

    wall: float = 0.0
    client_cpu: float = 0.0
    server_cpu: float = 0.0
    connections: int | None = 0
    requests: int = 0

    def add(self, other: Usage) -> None:
        self.wall += other.wall
        self.client_cpu += other.client_cpu
        self.server_cpu += other.server_cpu
        if self.connections is None or other.connections is None:
            self.connections = None
        else:
            self.connections += other.connections
        self.requests += other.requests

    @property
    def client_busy(self) -> float:
        return self.client_cpu / self.wall if self.wall else 0.0

    @property
    def server_busy(self) -> float:
        return self.server_cpu / self.wall if self.wall else 0.0


class Meter:
    """Brackets a timed section with the daemon's and this process's CPU clocks."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon

    def __enter__(self) -> Meter:
        self.before = self.daemon.stats()
        self.cpu = time.process_time()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        wall = time.perf_counter() - self.t0
        cpu = time.process_time() - self.cpu
        after = self.daemon.stats()
        opened = None
        if after["connections"] is not None:
            # minus one: the connection that fetched ``after`` itself
            opened = after["connections"] - self.before["connections"] - 1
        self.usage = Usage(
            wall=wall,
            client_cpu=cpu,
            server_cpu=after["cpu"] - self.before["cpu"],
            connections=opened,
            requests=after["requests"] - self.before["requests"],
        )


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def wire_of(daemon: Daemon, send: Callable[[], object]) -> dict[str, Any]:
    """The request line, headers and body the daemon received for one call."""
    send()
    last: dict[str, Any] = daemon.stats()["last"]
    return last


def same_wire(label: str, reference: dict[str, Any], other: dict[str, Any]) -> str:
    if reference == other:
        return "identical"
    diff = sorted(set(map(tuple, other["headers"])) ^ set(map(tuple, reference["headers"])))
    return (
        f"DIFFERENT for {label}: headers {diff}, body equal: {reference['body'] == other['body']}"
    )


# -- sync ---------------------------------------------------------------------


@dataclass
class SyncResult:
    samples: dict[str, list[float]] = field(default_factory=dict)
    usage: dict[str, Usage] = field(default_factory=dict)
    wire: str = ""
    sdk_cpu_us: float = 0.0
    steps: dict[str, float] = field(default_factory=dict)


def bench_sync(daemon: Daemon, calls: int, rounds: int, warmup: int) -> SyncResult:
    import httpx

    from signet_sdk import AdapterClient, UserPromptSubmitParams, UserPromptSubmitResult

    params = UserPromptSubmitParams(session_key="s", user_message="hello")
    sdk = AdapterClient("bench", daemon.url)
    raw = httpx.Client()
    plan = sdk._plan("user_prompt_submit", UserPromptSubmitResult, params)
    req = plan.request

    def sdk_call() -> object:
        return sdk.on_user_prompt_submit(params)

    def raw_call() -> object:
        return json.loads(
            raw.request(req.method, req.url, headers=req.headers, content=req.content).content
        )

    variants = {"raw httpx.Client": raw_call, "SDK AdapterClient": sdk_call}
    result = SyncResult()
    try:
        reference = wire_of(daemon, raw_call)
        result.wire = same_wire("SDK", reference, wire_of(daemon, sdk_call))
        for fn in variants.values():
            for _ in range(warmup):
                fn()
        per_round = max(1, calls // rounds)
        for name in variants:
            result.samples[name] = []
            result.usage[name] = Usage()
        names = list(variants)
        for r in range(rounds):
            for name in names if r % 2 == 0 else reversed(names):
                fn, out = variants[name], result.samples[name]
                gc.collect()
                with Meter(daemon) as meter:
                    for _ in range(per_round):
                        t0 = time.perf_counter_ns()
                        fn()
                        out.append((time.perf_counter_ns() - t0) / 1000)
                result.usage[name].add(meter.usage)

        # The SDK's own work per call with the network taken out, step by
        # step as a call does it: plan the request, start the call's budget,
        # turn the canned answer into the typed result.
        from signet_sdk.wire.retry import CallBudget

        n = 5000
        answer_headers = {"content-type": "application/json"}

        def per_call(step: Callable[[], object]) -> float:
            best = float("inf")
            for _ in range(5):
                started = time.perf_counter()
                for _ in range(n):
                    step()
                best = min(best, (time.perf_counter() - started) / n * 1e6)
            return best

        result.steps = {
            "plan": per_call(
                lambda: sdk._plan("user_prompt_submit", UserPromptSubmitResult, params)
            ),
            "budget": per_call(
                lambda: CallBudget(
                    sdk._policy, plan.request.timeout, time.monotonic
                ).attempt_timeout()
            ),
            "typed result": per_call(lambda: sdk._result(plan, 200, answer_headers, ANSWER_BYTES)),
        }
        result.sdk_cpu_us = sum(result.steps.values())
    finally:
        sdk.close()
        raw.close()
    return result


# -- async --------------------------------------------------------------------


@dataclass
class AsyncVariant:
    name: str
    call: Callable[[], Awaitable[object]]
    rates: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


async def bench_async(
    daemon: Daemon, concurrency: int, per_task: int, rounds: int
) -> tuple[list[AsyncVariant], dict[str, str]]:
    import aiohttp
    import httpx
    from httpx_aiohttp import AiohttpTransport as MaintainedTransport

    from signet_sdk import AsyncAdapterClient, UserPromptSubmitParams, UserPromptSubmitResult
    from signet_sdk.client.io import SAME_AS_HTTPX

    params = UserPromptSubmitParams(session_key="s", user_message="hello")
    # Idle connections must outlive the other variants' turns (rotation), or
    # every round would start by reconnecting; the SDK default keeps its own
    # settings because those are what is being measured.
    idle = 300.0
    limits = httpx.Limits(
        max_connections=concurrency, max_keepalive_connections=concurrency, keepalive_expiry=idle
    )

    raw_httpx = httpx.AsyncClient(limits=limits)
    sdk_httpx = AsyncAdapterClient(
        "bench", daemon.url, http_client=httpx.AsyncClient(limits=limits)
    )
    sdk_default = AsyncAdapterClient("bench", daemon.url)  # aiohttp, the SDK's own pool
    # An httpx client over aiohttp (the maintained httpx-aiohttp package).
    over_maintained = httpx.AsyncClient(
        transport=MaintainedTransport(
            client=lambda: aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=concurrency, keepalive_timeout=idle)
            )
        )
    )
    sdk_maintained = AsyncAdapterClient("bench", daemon.url, http_client=over_maintained)
    # Raw aiohttp gets exactly the headers the SDK sends, so that its request is
    # byte-for-byte the others' (aiohttp adds Host and Content-Length).
    req = sdk_httpx._plan("user_prompt_submit", UserPromptSubmitResult, params).request
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=concurrency, keepalive_timeout=idle),
        skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
    )

    async def raw_httpx_call() -> object:
        resp = await raw_httpx.request(
            req.method, req.url, headers=req.headers, content=req.content
        )
        return json.loads(resp.content)

    wire_headers = {**req.headers, **SAME_AS_HTTPX}

    async def raw_aiohttp_call() -> object:
        async with session.request(
            req.method, req.url, headers=wire_headers, data=req.content
        ) as resp:
            return json.loads(await resp.read())

    variants = [
        AsyncVariant(f"raw aiohttp (limit {concurrency})", raw_aiohttp_call),
        AsyncVariant("SDK default (aiohttp)", lambda: sdk_default.on_user_prompt_submit(params)),
        AsyncVariant(
            f"SDK over httpx+httpx-aiohttp ({concurrency})",
            lambda: sdk_maintained.on_user_prompt_submit(params),
        ),
        AsyncVariant(f"raw httpx.AsyncClient (pool {concurrency})", raw_httpx_call),
        AsyncVariant(
            f"SDK over httpx (pool {concurrency})",
            lambda: sdk_httpx.on_user_prompt_submit(params),
        ),
    ]

    async def burst(call: Callable[[], Awaitable[object]], tasks: int, each: int) -> None:
        async def worker() -> None:
            for _ in range(each):
                await call()

        await asyncio.gather(*(worker() for _ in range(tasks)))

    wire: dict[str, str] = {}
    try:
        await variants[0].call()
        reference = daemon.stats()["last"]
        for v in variants[1:]:
            await v.call()
            wire[v.name] = same_wire(v.name, reference, daemon.stats()["last"])
        # Open every connection before timing: warm each variant with timed-size
        # bursts until one opens none. A pool grows only as far as a burst's
        # overlap takes it (httpx's reaches about 20 connections, not 64), and a
        # short burst stops short of what a timed round needs.
        for v in variants:
            for _ in range(6):
                with Meter(daemon) as meter:
                    await burst(v.call, concurrency, per_task)
                if meter.usage.connections == 0:
                    break
        for r in range(rounds):
            order = variants[r % len(variants) :] + variants[: r % len(variants)]
            for v in order:
                gc.collect()
                with Meter(daemon) as meter:
                    await burst(v.call, concurrency, per_task)
                v.rates.append(concurrency * per_task / meter.usage.wall)
                v.usage.add(meter.usage)
        # One call at a time: the latency each adds, interleaved call by call.
        for _ in range(rounds * 25):
            for v in variants:
                started = time.perf_counter()
                await v.call()
                v.latencies.append(time.perf_counter() - started)
    finally:
        await raw_httpx.aclose()
        await sdk_httpx._io.client.aclose()
        await sdk_default.aclose()
        await over_maintained.aclose()
        await session.close()
    return variants, wire


# ---------------------------------------------------------------------------
# report
# ---------------------------------------------------------------------------


def report_sync(s: SyncResult, rounds: int) -> None:
    n = len(next(iter(s.samples.values())))
    print(f"SYNC  per-call latency, 1 kept-alive connection, {n} calls per variant")
    print(f"      interleaved in {rounds} rounds; wire: {s.wire}")
    print(f"  {'variant':<34}{'median µs':>11}{'p90 µs':>10}{'client':>9}{'daemon':>9}")
    stats = []
    for name, samples in s.samples.items():
        med, p90 = statistics.median(samples), percentile(samples, 0.9)
        stats.append((med, p90))
        u = s.usage[name]
        print(f"  {name:<34}{med:>11.1f}{p90:>10.1f}{u.client_busy:>9.0%}{u.server_busy:>9.0%}")
    (raw_med, raw_p90), (sdk_med, sdk_p90) = stats
    ratio = f"{sdk_med / raw_med:>11.3f}{sdk_p90 / raw_p90:>10.3f}"
    print(f"  {'SDK / raw':<34}{ratio}   (target <= 1.15)")
    steps = ", ".join(f"{name} {us:.1f}" for name, us in s.steps.items())
    print(f"  SDK work per call without I/O: {s.sdk_cpu_us:.1f} µs ({steps} µs; best of 5)")
    print("  client/daemon = CPU time / wall time of each process while timed\n")


def report_async(
    variants: list[AsyncVariant], wire: dict[str, str], concurrency: int, per_task: int
) -> None:
    rounds = len(variants[0].rates)
    print(
        f"ASYNC throughput, {concurrency} concurrent tasks x {per_task} calls"
        f" = {concurrency * per_task} calls per round, {rounds} rounds, rotating order"
    )
    print(
        f"  {'variant':<40}{'calls/s':>9}{'min-max':>13}{'vs raw':>8}"
        f"{'conns':>7}{'client':>8}{'daemon':>8}"
    )
    med = [statistics.median(v.rates) for v in variants]
    for v, m in zip(variants, med, strict=True):
        spread = f"{min(v.rates):.0f}-{max(v.rates):.0f}"
        u = v.usage
        conns = "n/a" if u.connections is None else str(u.connections)
        print(
            f"  {v.name:<40}{m:>9.0f}{spread:>13}{m / med[0]:>8.2f}"
            f"{conns:>7}{u.client_busy:>8.0%}{u.server_busy:>8.0%}"
        )
    print(f"  SDK default / raw aiohttp:      {med[1] / med[0]:.3f}  (target >= 0.85)")
    print(f"  SDK over httpx / raw httpx:     {med[4] / med[3]:.3f}")
    lat = [statistics.median(v.latencies) * 1e6 for v in variants]
    print(f"\nASYNC latency, 1 call at a time, {len(variants[0].latencies)} calls each")
    print(f"  {'variant':<40}{'median µs':>11}{'added µs':>10}")
    for v, m in zip(variants, lat, strict=True):
        print(f"  {v.name:<40}{m:>11.1f}{m - lat[0]:>+10.1f}")
    print(f"  SDK default added over raw aiohttp: {lat[1] - lat[0]:+.1f} µs  (target <= 15)")
    print("  conns = TCP connections the daemon accepted while timed (0 = all reused)")
    different = [verdict for verdict in wire.values() if verdict != "identical"]
    for verdict in different:
        print(f"  wire: {verdict}")
    if not different:
        print("  wire: all variants sent identical requests")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a short smoke run (a few seconds)")
    ap.add_argument("--server", choices=("asyncio", "uvicorn"), default="asyncio")
    ap.add_argument("--sync-calls", type=int, default=2000, help="timed sync calls per variant")
    ap.add_argument("--sync-rounds", type=int, default=50)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--per-task", type=int, default=10, help="calls per async task per round")
    ap.add_argument("--async-rounds", type=int, default=8)
    ap.add_argument(
        "--cache-sniffio-miss",
        action="store_true",
        help="when sniffio is not installed, make httpcore's per-lock `import sniffio`\n"
        "fail fast instead of searching sys.path each time (encode/httpcore#1103);\n"
        "approximates an environment that has sniffio",
    )
    ap.add_argument("--skip-sync", action="store_true")
    ap.add_argument("--skip-async", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.sync_calls, args.sync_rounds = 400, 10
        args.per_task, args.async_rounds = 5, 3

    sniffio_installed = importlib.util.find_spec("sniffio") is not None
    if args.cache_sniffio_miss and not sniffio_installed:
        sys.modules["sniffio"] = None  # type: ignore[assignment]

    import aiohttp
    import httpx

    print(f"signet-sdk client benchmark, {dt.datetime.now().isoformat(timespec='seconds')}")
    print(
        f"python {platform.python_version()}, httpx {httpx.__version__}, "
        f"aiohttp {aiohttp.__version__}, {os.cpu_count()} cores, {platform.machine()}"
    )
    if sniffio_installed:
        print("sniffio: installed")
    elif args.cache_sniffio_miss:
        print("sniffio: NOT installed; its failed import is cached (--cache-sniffio-miss)")
    else:
        print(
            "sniffio: NOT installed; httpcore's async pool retries `import sniffio` (a sys.path"
            " scan) on every lock, see encode/httpcore#1103"
        )
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"command: python bench/bench_client.py {' '.join(sys.argv[1:])}".rstrip())
    server_desc = {
        "asyncio": "hand-written asyncio.Protocol HTTP/1.1 responder",
        "uvicorn": "uvicorn (h11, asyncio) + a hand-written ASGI app",
    }[args.server]
    daemon = Daemon(args.server)
    try:
        print(f"daemon: {server_desc}, separate process, {daemon.url}")
        print(f"answer: {len(ANSWER_BYTES)} bytes of JSON, inject {len(INJECT)} chars\n")
        if not args.skip_sync:
            result = bench_sync(daemon, args.sync_calls, args.sync_rounds, warmup=200)
            report_sync(result, args.sync_rounds)
        if not args.skip_async:
            variants, wire = asyncio.run(
                bench_async(daemon, args.concurrency, args.per_task, args.async_rounds)
            )
            report_async(variants, wire, args.concurrency, args.per_task)
    finally:
        daemon.stop()
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
