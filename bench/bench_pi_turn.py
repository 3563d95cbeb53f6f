"""What the pi extension adds to a turn: wall time per prompt, extension against none.

Runs the real ``pi`` (the pinned version the end-to-end tests install from
npm) in RPC mode against a fake OpenAI-compatible model on 127.0.0.1 and the
dev daemon (``signet-sdk dev-daemon`` in its own process), three ways in the
same run:

* ``bare``: pi with no extension (the floor);
* ``off``: our extension installed but switched off (``SIGNET_BYPASS=1``);
* ``server``: our extension installed, ``signet-sdk serve`` running, so the
  shim's transport posts each event to the adapter server;
* ``process``: our extension installed, no server, so each event runs
  ``signet-sdk hook pi <event>`` (the fallback).

A turn is one RPC ``prompt`` until pi reports ``agent_end``; each prompt
fires ``input`` (a recall the shim waits for), ``before_agent_start`` and
``agent_end`` (a checkpoint handed to the outbox). pi's start-up is not
timed: every configuration starts one pi per round, warms up with two
prompts, then times ``--turns`` prompts. Rounds interleave the three, so all
see the same machine load.

Budget: the server path adds at most 5 ms per turn (median against the
floor's median).

    python bench/bench_pi_turn.py [--rounds 3] [--turns 15]

Exit status 0 when the server path is within budget, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _turns as common

ROOT = Path(__file__).resolve().parents[1]
PI_TESTS = ROOT / "adapters" / "pi" / "tests"
sys.path.insert(0, str(PI_TESTS))

from pi_fake_openai import FakeOpenAI  # noqa: E402
from pi_support import PiRpc, write_models  # noqa: E402

from signet_sdk.testing import ServeProcess, free_port  # noqa: E402

BUDGET_MS = 5.0


def _pi_bin(version: str) -> str:
    script = PI_TESTS / "e2e" / "install_pi.sh"
    done = subprocess.run(
        ["bash", str(script), version], capture_output=True, text=True, check=True, timeout=600
    )
    return done.stdout.strip().splitlines()[-1]


def _agent_dir(base: Path, name: str, fake: FakeOpenAI, env: dict[str, str], ours: bool) -> Path:
    agent = base / name / "agent"
    agent.mkdir(parents=True)
    write_models(agent, fake.base_url, 128_000)
    if ours:
        common.sdk({**env, "PI_CODING_AGENT_DIR": str(agent)}, "install", "pi")
    return agent


def _turns(pi: str, project: Path, env: dict[str, str], turns: int) -> list[float]:
    argv = [pi, "--provider", "fakeoai", "--model", "fake-model", "--mode", "rpc"]
    rpc = PiRpc(argv, project, env)
    times = []
    try:
        for n in range(turns + 2):
            start = time.perf_counter()
            rpc.prompt(f"Turn {n}: how do atlas deploys work?")
            if n >= 2:
                times.append(time.perf_counter() - start)
    finally:
        rpc.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--turns", type=int, default=15)
    parser.add_argument("--pi-version", default=os.environ.get("PI_VERSION", "0.73.1"))
    args = parser.parse_args()
    if shutil.which("node") is None or shutil.which("npm") is None:
        print("bench_pi_turn: node and npm are needed (pi comes from the npm registry)")
        return 2
    pi = _pi_bin(args.pi_version)
    print(f"pi: {pi} ({args.pi_version}); {args.rounds} rounds x {args.turns} timed turns")
    common.print_machine()

    with common.bench_dirs("signet-bench-pi-") as (base, home, project):
        port = free_port()
        env = common.harness_env(
            base,
            home,
            port,
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_CACHE_HOME=str(home / ".cache"),
            PI_OFFLINE="1",
        )
        with (
            common.dev_daemon(port, base / "daemon.sqlite3"),
            FakeOpenAI(base / "openai.jsonl") as fake,
        ):
            bare = _agent_dir(base, "bare", fake, env, ours=False)
            ours = _agent_dir(base, "ours", fake, env, ours=True)
            runs: dict[str, list[float]] = {"bare": [], "off": [], "server": [], "process": []}
            for _ in range(args.rounds):
                runs["bare"] += _turns(
                    pi, project, {**env, "PI_CODING_AGENT_DIR": str(bare)}, args.turns
                )
                with_ours = {**env, "PI_CODING_AGENT_DIR": str(ours)}
                switched_off = {**with_ours, "SIGNET_BYPASS": "1"}
                runs["off"] += _turns(pi, project, switched_off, args.turns)
                with ServeProcess(with_ours):
                    runs["server"] += _turns(pi, project, with_ours, args.turns)
                runs["process"] += _turns(pi, project, with_ours, args.turns)

    floor = statistics.median(runs["bare"]) * 1000
    print(f"\n{'configuration':<10} {'median ms':>10} {'p90 ms':>8} {'added ms':>9}")
    verdict = 0
    for name, times in runs.items():
        ms = sorted(t * 1000 for t in times)
        median, p90 = common.median_p90(ms)
        added = median - floor
        line = f"{name:<10} {median:>10.1f} {p90:>8.1f} {added:>+9.1f}"
        if os.environ.get("BENCH_VERBOSE"):
            print(" ".join(f"{v:.0f}" for v in ms))
        if name == "server":
            line, verdict = common.judged(line, added, BUDGET_MS)
        print(line)
    common.print_load_after()
    return verdict


if __name__ == "__main__":
    sys.exit(main())
