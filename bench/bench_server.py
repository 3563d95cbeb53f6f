"""What the adapter server adds over calling the daemon directly: latency and throughput.

One dev daemon (``signet-sdk dev-daemon``, its own process) and one adapter
server (``signet-sdk serve``, its own process) in front of it. In the same
run, interleaved round by round:

* direct: ``AsyncAdapterClient.on_user_prompt_submit`` against the daemon;
* server: ``POST /v1/bench/lifecycle/user-prompt-submit`` to the server, over
  one kept-alive aiohttp session (the library the direct client sends with,
  so both sides pay the same client cost), which makes that same call;
* floor (``--floor``): the same POST to a bare proxy (a 20-line ASGI app on
  uvicorn that forwards the bytes with aiohttp, no validation, no routing):
  what one more process hop costs on this machine, whoever serves it.

Reports p50/p99 per call at 1 and at 64 concurrent clients, calls/s at 64,
and the CPU time each process spent per call. Goals: p50 added at most
0.5 ms at 1 client; at 64, server throughput at least 0.8x the direct
client's.

    python bench/bench_server.py [--calls 400] [--concurrency 64] [--rounds 6] [--floor]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

import aiohttp

from signet_sdk import AsyncAdapterClient, UserPromptSubmitParams

ADDED_P50_MS = 0.5
THROUGHPUT_RATIO = 0.8
PATH = "/v1/bench/lifecycle/user-prompt-submit"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _process(argv: list[str], env: dict[str, str]) -> Iterator[tuple[str, int]]:
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if "listening on " not in line:
            raise SystemExit(f"{argv[1:4]} did not start: {line!r}")
        yield line.split("listening on ")[1].split()[0], proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def _cpu(pid: int) -> float:
    """Seconds of CPU (user + system) a process has used so far (Linux)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


Call = Callable[[], Awaitable[object]]


async def _concurrent(call: Call, concurrency: int, each: int, out: list[float]) -> float:
    """Run ``concurrency`` workers of ``each`` calls; per-call ms into ``out``; calls/s back."""

    async def worker() -> None:
        for _ in range(each):
            t = time.perf_counter()
            await call()
            out.append((time.perf_counter() - t) * 1000)

    t = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return concurrency * each / (time.perf_counter() - t)


class Row:
    def __init__(self, name: str, call: Call, pids: list[int]) -> None:
        self.name, self.call, self.pids = name, call, pids
        self.one: list[float] = []
        self.many: list[float] = []
        self.rates: list[float] = []
        self.cpu: dict[int, float] = dict.fromkeys(pids, 0.0)
        self.calls = 0


async def _run(
    daemon: str, targets: dict[str, tuple[str, int]], daemon_pid: int, args: argparse.Namespace
) -> list[Row]:
    params = UserPromptSubmitParams(session_key="bench", user_message="what runs before release?")
    body = params.to_wire()
    n = args.concurrency
    payload = json.dumps(body).encode()
    headers = {"content-type": "application/json"}
    async with AsyncAdapterClient("bench", daemon) as direct:
        rows = [Row("direct", lambda: direct.on_user_prompt_submit(params), [daemon_pid])]
        pools = []
        for name, (url, pid) in targets.items():
            http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=n))
            pools.append(http)

            async def via(http: aiohttp.ClientSession = http, url: str = url) -> object:
                async with http.post(url + PATH, data=payload, headers=headers) as answer:
                    answer.raise_for_status()
                    return json.loads(await answer.read())

            rows.append(Row(name, via, [pid, daemon_pid]))
        try:
            for row in rows:  # warm connections and caches
                await _concurrent(row.call, n, 3, [])
            for r in range(args.rounds):
                shift = r % len(rows)
                for row in rows[shift:] + rows[:shift]:
                    before = {pid: _cpu(pid) for pid in row.pids}
                    await _concurrent(row.call, 1, args.calls // args.rounds, row.one)
                    row.rates.append(await _concurrent(row.call, n, 10, row.many))
                    for pid in row.pids:
                        row.cpu[pid] += _cpu(pid) - before[pid]
                    row.calls += args.calls // args.rounds + n * 10
        finally:
            for http in pools:
                await http.close()
    return rows


def _floor_proxy(port: int, daemon: str) -> None:
    """The bare proxy ``--floor`` measures: forward the body, return the answer, nothing else."""
    import aiohttp
    import uvicorn

    session: list[aiohttp.ClientSession] = []
    target = f"{daemon}/api/hooks/user-prompt-submit"

    async def app(scope: dict, receive: Callable, send: Callable) -> None:  # type: ignore[type-arg]
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        data = (await receive())["body"].replace(b"{", b'{"harness":"bench",', 1)
        if not session:
            session.append(aiohttp.ClientSession())
        headers = {"content-type": "application/json"}
        async with session[0].post(target, data=data, headers=headers) as answer:
            content = await answer.read()
        length = [(b"content-length", str(len(content)).encode())]
        await send({"type": "http.response.start", "status": answer.status, "headers": length})
        await send({"type": "http.response.body", "body": content})

    print(f"floor: listening on http://127.0.0.1:{port}", flush=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=400, help="sequential calls per path")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--floor", action="store_true", help="also measure a bare proxy")
    ap.add_argument("--as-floor-proxy", nargs=2, metavar=("PORT", "DAEMON"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.as_floor_proxy:
        _floor_proxy(int(args.as_floor_proxy[0]), args.as_floor_proxy[1])
        return 0
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_STATE_HOME": tmp}
        daemon_cmd = [py, "-m", "signet_sdk", "dev-daemon", "--port", str(_port())]
        with _process([*daemon_cmd, "--db", f"{tmp}/d.db"], env) as (daemon, daemon_pid):
            server_cmd = [py, "-m", "signet_sdk", "serve", "--port", "0", "--daemon-url", daemon]
            with _process(server_cmd, env) as server:
                targets = {"server": server}
                if args.floor:
                    floor_cmd = [py, __file__, "--as-floor-proxy", str(_port()), daemon]
                    with _process(floor_cmd, env) as floor:
                        targets["floor"] = floor
                        rows = asyncio.run(_run(daemon, targets, daemon_pid, args))
                else:
                    rows = asyncio.run(_run(daemon, targets, daemon_pid, args))
    return _report(rows, args)


def _report(rows: list[Row], args: argparse.Namespace) -> int:
    n = args.concurrency
    flags = f"--calls {args.calls} --concurrency {n} --rounds {args.rounds}"
    print(f"python bench/bench_server.py {flags}{' --floor' if args.floor else ''}")
    print(f"  (load {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores)")
    head = f"{'path':<8}{'p50 @1':>9}{'p99 @1':>9}{f'p50 @{n}':>10}{f'p99 @{n}':>10}"
    print(f"{head}{f'calls/s @{n}':>14}  CPU ms per call")
    base = rows[0]
    for row in rows:
        cpu = " + ".join(f"{row.cpu[pid] / row.calls * 1000:.2f}" for pid in row.pids)
        label = "daemon" if row is base else f"{row.name} + daemon"
        print(
            f"{row.name:<8}{statistics.median(row.one):>9.3f}{_pct(row.one, 0.99):>9.3f}"
            f"{statistics.median(row.many):>10.2f}{_pct(row.many, 0.99):>10.2f}"
            f"{statistics.median(row.rates):>14.0f}  {cpu} ({label})"
        )
    ok = True
    for row in rows[1:]:
        added = statistics.median(row.one) - statistics.median(base.one)
        added99 = _pct(row.one, 0.99) - _pct(base.one, 0.99)
        ratio = statistics.median(row.rates) / statistics.median(base.rates)
        good = added <= ADDED_P50_MS and ratio >= THROUGHPUT_RATIO
        ok = ok and (good or row.name != "server")
        print(
            f"{row.name}: added at 1 client p50 {added:.3f} ms, p99 {added99:.3f} ms "
            f"(goal p50 <= {ADDED_P50_MS}); throughput at {n} {ratio:.2f}x direct "
            f"(goal >= {THROUGHPUT_RATIO}): {'PASS' if good else 'FAIL'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
