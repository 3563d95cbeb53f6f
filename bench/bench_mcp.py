"""What the MCP server adds to one ``memory_search``: through ``signet-sdk mcp`` vs the client.

Starts the dev daemon (``signet-sdk dev-daemon`` in its own process, on a
free loopback port) with a few hundred memories, then in the same run times
``--calls`` searches three ways, interleaved round by round so machine load
hits all alike:

* ``direct``: ``AsyncAdapterClient.memory_recall`` (what the tool calls);
* ``tool``: ``call_tool_async(client, "memory_search", ...)`` in-process;
* ``mcp``: an MCP ``tools/call`` to ``signet-sdk mcp`` over stdio, from the
  official MCP client (Python);
* ``mcp-wire``: the same ``tools/call`` to a second ``signet-sdk mcp``, as
  JSON-RPC lines written to its stdin and read from its stdout, the way a
  harness's own client (Claude Code's is JavaScript) talks to it.

Prints p50 and p99 per path and what each MCP path adds at p50 over direct.
The goal, at most 2 ms added at p50, is judged on ``mcp-wire``: that is
what the server adds to a harness's tool call; ``mcp`` also pays the Python
MCP client's own work, which no harness runs (exit 1 when over).

    python bench/bench_mcp.py [--calls 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import _turns as common
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from signet_sdk import AsyncAdapterClient, RememberParams, create_adapter
from signet_sdk.models import MemoryRecallRequest
from signet_sdk.testing import free_port
from signet_sdk.tools import call_tool_async

GOAL_MS = 2.0


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _run(url: str, calls: int) -> dict[str, list[float]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    env["SIGNET_DAEMON_URL"] = url
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "signet_sdk", "mcp"], env=env
    )
    times: dict[str, list[float]] = {"direct": [], "tool": [], "mcp": [], "mcp-wire": []}
    query = {"query": "deploy billing", "limit": 5}
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
        AsyncAdapterClient("bench", url) as client,
        WireClient(env) as wire,
    ):
        await session.initialize()
        for _ in range(20):  # warm every path
            await session.call_tool("memory_search", query)
            await client.memory_recall(MemoryRecallRequest(**query))
            await wire.call_tool("memory_search", query)
        for _ in range(calls):
            t = time.perf_counter()
            answer = await wire.call_tool("memory_search", query)
            times["mcp-wire"].append(time.perf_counter() - t)
            if answer.get("isError") or ("result" in answer and answer["result"].get("isError")):
                raise SystemExit(f"memory_search failed through MCP: {answer}")
            t = time.perf_counter()
            await client.memory_recall(MemoryRecallRequest(**query))
            times["direct"].append(time.perf_counter() - t)
            t = time.perf_counter()
            await call_tool_async(client, "memory_search", query)
            times["tool"].append(time.perf_counter() - t)
            t = time.perf_counter()
            result = await session.call_tool("memory_search", query)
            times["mcp"].append(time.perf_counter() - t)
            if result.is_error:
                raise SystemExit(f"memory_search failed through MCP: {result.content}")
    return times


class WireClient:
    """``signet-sdk mcp`` driven with bare JSON-RPC lines over its stdin and stdout."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.next_id = 0

    async def __aenter__(self) -> WireClient:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "signet_sdk",
            "mcp",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=self.env,
            limit=1 << 24,
        )
        info = {"name": "bench", "version": "1"}
        await self.request(
            "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info}
        )
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()

    async def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        await self.proc.stdin.drain()

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        await self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                raise SystemExit("signet-sdk mcp closed its stdout")
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == self.next_id:
                return message

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.request("tools/call", {"name": name, "arguments": arguments})


@contextmanager
def dev_daemon(folder: str) -> Iterator[str]:
    """``signet-sdk dev-daemon`` in its own process (no GIL shared with the timed loop)."""
    port = free_port()
    with common.dev_daemon(port, Path(folder) / "bench.sqlite3"):
        yield f"http://127.0.0.1:{port}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, dev_daemon(tmp) as url:
        with create_adapter("bench", url) as seed:
            for i in range(300):
                topic = ("deploy billing", "staging database", "release train")[i % 3]
                seed.remember(RememberParams(content=f"Note {i} about {topic} number {i}"))
        times = asyncio.run(_run(url, args.calls))
    print(f"python bench/bench_mcp.py --calls {args.calls}  (load {os.getloadavg()[0]:.2f})")
    print(f"{'path':<10}{'p50 ms':>10}{'p99 ms':>10}")
    for name, values in times.items():
        ms = [v * 1000 for v in values]
        print(f"{name:<10}{statistics.median(ms):>10.3f}{_pct(ms, 0.99):>10.3f}")
    direct = statistics.median(times["direct"])
    with_client = (statistics.median(times["mcp"]) - direct) * 1000
    added = (statistics.median(times["mcp-wire"]) - direct) * 1000
    verdict = "PASS" if added <= GOAL_MS else "FAIL"
    print(f"the official Python MCP client and the server add {with_client:.3f} ms at p50")
    goal = f"(goal <= {GOAL_MS} ms): {verdict}"
    print(f"the server adds {added:.3f} ms at p50 over the direct call {goal}")
    return 0 if added <= GOAL_MS else 1


if __name__ == "__main__":
    sys.exit(main())
