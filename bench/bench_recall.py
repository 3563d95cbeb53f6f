"""Recall latency of the mock daemon's store over 100,000 memories.

Fills a MockDaemon store with generated memories (a pseudo-word vocabulary
with a Zipf-like frequency curve, fixed seed, so runs are comparable), then
times recall queries through ``signet_sdk.testing.mock_daemon.recall``: the same
function ``POST /api/memory/recall`` and ``POST /api/hooks/recall`` call.
Prints p50/p90/p99 milliseconds per query; the target is p50 <= 5 ms.

    python bench/bench_recall.py [--memories 100000] [--queries 1000] [--db PATH]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from signet_sdk.testing.mock_daemon import MemoryFilters, MockDaemon, RecallParams, recall

SYLLABLES = [a + b for a in "bcdfghjklmnprstvwz" for b in ("a", "e", "i", "o", "u", "ai", "ou")]


def vocabulary(rng: random.Random, size: int) -> list[str]:
    """``size`` distinct pseudo-words of two to four syllables."""
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--vocabulary", type=int, default=20_000)
    parser.add_argument("--agents", type=int, default=4, help="memories are spread over agents")
    parser.add_argument("--db", type=Path, default=None, help="SQLite file (default: a temp file)")
    parser.add_argument("--seed", type=int, default=20260430)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    words = vocabulary(rng, args.vocabulary)
    # Zipf-like weights: a few words are very common, most are rare.
    weights = [1.0 / (rank + 1) ** 0.9 for rank in range(len(words))]
    cumulative = list(itertools.accumulate(weights))
    agents = [f"agent-{i}" for i in range(args.agents)]

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "bench.sqlite3"
        daemon = MockDaemon(db_path=db)
        store = daemon.store
        started = time.perf_counter()
        batch = []
        for i in range(args.memories):
            text = " ".join(rng.choices(words, cum_weights=cumulative, k=rng.randint(8, 24)))
            batch.append(
                {
                    "content": text,
                    "agent_id": agents[i % len(agents)],
                    "importance": round(rng.random(), 2),
                    "tags": ",".join(rng.sample(["infra", "ui", "db", "ops", "docs"], k=2)),
                }
            )
            if len(batch) == 10_000:
                store.add_memories(batch)
                batch.clear()
        if batch:
            store.add_memories(batch)
        fill = time.perf_counter() - started
        sys.stdout.write(f"filled {store.count_memories():,} memories in {fill:.1f} s ({db})\n")

        queries = []
        for _ in range(args.queries):
            k = rng.choice((1, 2, 2, 3, 3, 4, 6))
            queries.append(
                RecallParams(
                    query=" ".join(rng.choices(words, cum_weights=cumulative, k=k)),
                    limit=10,
                    filters=MemoryFilters(agent_id=rng.choice(agents)),
                )
            )
        for params in queries[:20]:  # warm the page cache
            recall(store, params)
        timings = []
        hits = 0
        for params in queries:
            t0 = time.perf_counter()
            result = recall(store, params)
            timings.append((time.perf_counter() - t0) * 1000)
            hits += bool(result["results"])
        timings.sort()

        def pct(p: float) -> float:
            return timings[min(len(timings) - 1, int(p * len(timings)))]

        p50 = statistics.median(timings)
        sys.stdout.write(
            f"{len(timings)} recall queries ({hits} with hits): "
            f"p50 {p50:.2f} ms, p90 {pct(0.90):.2f} ms, p99 {pct(0.99):.2f} ms, "
            f"max {timings[-1]:.2f} ms\n"
        )
        daemon.close()
        return 0 if p50 <= 5.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
