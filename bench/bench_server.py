"""What the adapter server adds over calling the daemon directly: latency and throughput.

One dev daemon (``signet-sdk dev-daemon``, its own process) and one adapter
server (``signet-sdk serve``, its own process) in front of it. In the same
run, interleaved round by round:

* direct: ``AsyncAdapterClient.on_user_prompt_submit`` against the daemon;
* server: ``POST /v1/bench/lifecycle/user-prompt-submit`` to the server,
  over one kept-alive ``httpx.AsyncClient`` pool, which makes that same call.

Reports p50/p99 per call at 1 concurrent client and throughput at 64. Goals:
p50 added at most 0.5 ms at 1 client; at 64, server throughput at least
0.8x the direct client's.

    python bench/bench_server.py [--calls 400] [--concurrency 64]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

import httpx

from signet_sdk import AsyncAdapterClient, UserPromptSubmitParams

ADDED_P50_MS = 0.5
THROUGHPUT_RATIO = 0.8


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _process(argv: list[str], env: dict[str, str]) -> Iterator[str]:
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if "listening on " not in line:
            raise SystemExit(f"{argv[3]} did not start: {line!r}")
        yield line.split("listening on ")[1].split(" ")[0]
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _latency(call: Callable[[], Awaitable[object]], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        await call()
        out.append((time.perf_counter() - t) * 1000)
    return out


async def _throughput(call: Callable[[], Awaitable[object]], concurrency: int, each: int) -> float:
    async def worker() -> None:
        for _ in range(each):
            await call()

    t = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return concurrency * each / (time.perf_counter() - t)


async def _run(daemon: str, server: str, calls: int, concurrency: int) -> dict[str, list[float]]:
    params = UserPromptSubmitParams(session_key="bench", user_message="what runs before release?")
    body = params.to_wire()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    out: dict[str, list[float]] = {"direct": [], "server": [], "direct/s": [], "server/s": []}
    async with (
        AsyncAdapterClient("bench", daemon) as direct,
        httpx.AsyncClient(base_url=server, limits=limits) as http,
    ):

        async def via_direct() -> object:
            return await direct.on_user_prompt_submit(params)

        async def via_server() -> object:
            answer = await http.post("/v1/bench/lifecycle/user-prompt-submit", json=body)
            answer.raise_for_status()
            return answer.json()

        for call in (via_direct, via_server):  # warm connections and caches
            await _throughput(call, concurrency, 2)
        rounds = 4
        for r in range(rounds):
            order = [("direct", via_direct), ("server", via_server)]
            for name, call in order if r % 2 == 0 else order[::-1]:
                out[name] += await _latency(call, calls // rounds)
                out[f"{name}/s"].append(await _throughput(call, concurrency, 10))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=64)
    args = ap.parse_args(argv)
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_STATE_HOME": tmp}
        daemon_cmd = [
            py,
            "-m",
            "signet_sdk",
            "dev-daemon",
            "--port",
            str(_port()),
            "--db",
            f"{tmp}/d.db",
        ]
        with _process(daemon_cmd, env) as daemon:
            server_cmd = [py, "-m", "signet_sdk", "serve", "--port", "0", "--daemon-url", daemon]
            with _process(server_cmd, env) as server:
                res = asyncio.run(_run(daemon, server, args.calls, args.concurrency))
    d50, s50 = statistics.median(res["direct"]), statistics.median(res["server"])
    d99, s99 = _pct(res["direct"], 0.99), _pct(res["server"], 0.99)
    d_tp, s_tp = statistics.median(res["direct/s"]), statistics.median(res["server/s"])
    print(
        f"python bench/bench_server.py --calls {args.calls} --concurrency {args.concurrency}"
        f"  (load {os.getloadavg()[0]:.2f})"
    )
    print(f"{'path':<8}{'p50 ms':>9}{'p99 ms':>9}{'calls/s at ' + str(args.concurrency):>18}")
    print(f"{'direct':<8}{d50:>9.3f}{d99:>9.3f}{d_tp:>18.0f}")
    print(f"{'server':<8}{s50:>9.3f}{s99:>9.3f}{s_tp:>18.0f}")
    added = s50 - d50
    ratio = s_tp / d_tp
    ok_latency, ok_tp = added <= ADDED_P50_MS, ratio >= THROUGHPUT_RATIO
    verdict = "PASS" if ok_latency else "FAIL"
    print(f"added p50 at 1 client: {added:.3f} ms (goal <= {ADDED_P50_MS}): {verdict}")
    print(
        f"throughput at {args.concurrency}: {ratio:.2f}x direct (goal >= {THROUGHPUT_RATIO}): "
        f"{'PASS' if ok_tp else 'FAIL'}"
    )
    return 0 if ok_latency and ok_tp else 1


if __name__ == "__main__":
    sys.exit(main())
