"""Load held, nothing lost: many harness sessions at once, and a daemon that crashes under them.

Runs ``--lanes`` harness sessions side by side (default 16: Claude Code,
Codex and a harness nobody packaged as hook processes, pi and Hermes Agent
through one ``signet-sdk serve``), ``--turns`` turns each (default 30, in
sessions of 15: prompts, checkpoints, remembered facts, a compaction with
its own summary half-way through each session, the session's end), against
the real Signet daemon (``--version``, default 0.145.8, from the real-daemon
kit). Once ``--kill-at`` of all turns are done the daemon is killed with
SIGKILL, left down ``--down`` seconds and started again on the same port
and data; the lanes go on throughout. When they are done and the outbox is
empty (``signet-sdk outbox status --json``), the daemon's own API is asked
what it holds: every remembered fact, compaction summary and session
transcript once, and every turn once in its session's transcript.

    python bench/bench_load.py [--lanes 16] [--turns 30] [--down 5]

Prints the counts (expected, stored once, missing, duplicated, and where the
daemon shows each), the hook times (p50, p99, max, and the largest share of
an event's deadline, per path) and the machine's load. Exit status 0 when
every write is stored exactly once (but a compaction summary the outbox sent
again because the killed daemon had stored it without resetting the
session's transcript, which is stored twice) and no event ran past its
deadline, 1
otherwise; 2 when there is no real-daemon kit. The scenario itself is in
``_load.py``; ``tests/real_daemon/test_load_restart.py`` runs it small.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import tempfile
from collections import Counter
from pathlib import Path

from _load import WHERE, LoadResult, hook_times, mix, run_load

from signet_sdk.testing.real_daemon import DaemonKit, kit_or_reason


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lanes", type=int, default=16, help="harness sessions at once")
    parser.add_argument("--turns", type=int, default=30, help="turns per lane")
    parser.add_argument("--session-turns", type=int, default=15, help="turns per session")
    parser.add_argument("--think", type=float, default=0.2, help="seconds between events")
    parser.add_argument("--kill-at", type=float, default=0.5, help="share of turns done")
    parser.add_argument(
        "--quiet-kill",
        action="store_true",
        help="kill between events, once the outbox is empty (no send is cut)",
    )
    parser.add_argument("--down", type=float, default=5.0, help="seconds the daemon stays down")
    parser.add_argument("--flush-seconds", type=float, default=120.0)
    parser.add_argument("--version", default="0.145.8", help="the real daemon's version")
    args = parser.parse_args(argv)
    if args.lanes < 1 or args.turns < 1 or args.session_turns < 1:
        parser.error("--lanes, --turns and --session-turns must be at least 1")
    if not 0 < args.kill_at < 1:
        parser.error("--kill-at must be between 0 and 1")
    root, reason = kit_or_reason()
    if root is None:
        print(f"bench_load: {reason}", file=sys.stderr)
        return 2
    kit = DaemonKit(root)
    lanes = mix(args.lanes)
    load_before = os.getloadavg()
    daemon = kit.start(args.version)
    try:
        with tempfile.TemporaryDirectory(prefix="signet-bench-load-") as tmp:
            result = run_load(
                daemon,
                Path(tmp),
                lanes=lanes,
                turns=args.turns,
                session_turns=args.session_turns,
                think=args.think,
                kill_at=args.kill_at,
                quiet_kill=args.quiet_kill,
                down=args.down,
                flush_seconds=args.flush_seconds,
                say=lambda line: print(f"  .. {line}", flush=True),
            )
    finally:
        daemon.stop()
    report(result, args, daemon.version, daemon.port, load_before)
    return 0 if result.ok() else 1


def report(
    result: LoadResult,
    args: argparse.Namespace,
    version: str,
    port: int,
    load_before: tuple[float, float, float],
) -> None:
    load_after = os.getloadavg()
    kinds = Counter(result.lanes)
    out = result.outage
    print(f"command: {shlex.join(['python', *sys.argv])}")
    print(f"lanes:   {', '.join(f'{n} {k}' for k, n in kinds.items())}; {args.turns} turns each")
    print(
        f"daemon:  real {version} on 127.0.0.1:{port}; SIGKILL "
        f"{'between events ' if args.quiet_kill else ''}after {out.turns_before} of "
        f"{len(result.lanes) * args.turns} turns, answering again {out.back_at - out.killed_at:.1f}"
        f" s later ({args.down:g} s down, {out.restart_seconds:.1f} s to start)"
    )
    print(
        f"machine: {os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}, load average {load_before[0]:.2f} before, "
        f"{load_after[0]:.2f} after; run {result.wall_seconds:.0f} s"
    )
    print(
        f"outbox:  {result.pending} pending and {len(result.dead)} dead letters "
        f"{result.drained_seconds:.1f} s after the last event; "
        f"{result.flushes} flushes started by a later session"
    )
    if result.hooks_log:
        print("hooks.log: " + ", ".join(f"{k} {v}" for k, v in result.hooks_log.items()))
    print()
    print(f"{'write':<20}{'expected':>9}{'once':>7}{'missing':>9}{'twice+':>8}   where")
    for c in result.counts:
        print(
            f"{c.kind:<20}{c.expected:>9}{c.once:>7}{len(c.missing):>9}{len(c.duplicated):>8}"
            f"   {WHERE[c.kind]}"
        )
        for marker in (c.missing + c.duplicated)[:10]:
            print(f"{'':<20}  {'missing' if marker in c.missing else 'twice+'}: {marker}")
    print()
    print(f"{'events':<16}{'count':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'max/deadline':>14}")
    for path in ("hook process", "adapter server"):
        n, p50, p99, top, share = hook_times(result.timed, path)
        if n:
            print(f"{path:<16}{n:>7}{p50:>9.1f}{p99:>9.1f}{top:>9.1f}{share:>13.1%}")
    during = [t for t in result.timed if out.killed_at <= t.started < out.back_at]
    print(f"events started while the daemon was down: {len(during)}")
    over = result.over_deadline()
    print(f"events past their deadline: {len(over)}")
    for t in over[:10]:
        print(f"  {t.harness} {t.event}: {t.seconds:.2f} s (deadline {t.deadline:g} s)")
    for problem in result.problems[:10]:
        print(f"problem: {problem}")
    verdict = "PASS" if result.ok() else "FAIL"
    said = "every write stored once (a summary sent again after a cut: twice)"
    print(f"{said}, no event past its deadline: {verdict}")


if __name__ == "__main__":
    sys.exit(main())
