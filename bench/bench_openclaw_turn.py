"""What the OpenClaw plugin adds to a turn: time inside its prompt hook, plugin against none.

Runs the real OpenClaw gateway (the pinned version the end-to-end tests
install from npm, on Node 24) against a fake OpenAI-compatible model on
127.0.0.1 and the dev daemon (``signet-sdk dev-daemon`` in its own process).

The part of a turn our plugin can lengthen is ``before_prompt_build``: it is
the one hook OpenClaw awaits before the model call (modifying hooks run one
after another by priority); ``agent_end`` and the compaction and session
hooks run beside or after the turn. A bench-only timer plugin subscribes
``before_prompt_build`` at priority +1000 and -1000, so its two handlers run
first and last and the time between them is what the plugins in between
(ours, at the default priority 0) take. Three gateways in one run, turns
interleaved in rounds so all see the same load:

* ``off``: our plugin installed but switched off (``SIGNET_BYPASS=1``): the
  floor, the timer's own cost;
* ``server``: ``signet-sdk serve`` running, so the transport posts each hook
  to the adapter server (a recall against the daemon per turn);
* ``process``: no server, so each hook runs ``signet-sdk hook openclaw``.

The whole turn as the ``openclaw agent`` command sees it (1-5 s, most of it
the CLI's own start-up) is printed too, for scale.

Budget: the server path adds at most 5 ms per turn (median against the
floor's median).

    python bench/bench_openclaw_turn.py [--turns 12]

Exit status 0 when the server path is within budget, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _turns as common

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "adapters" / "openclaw" / "tests"))

from oc_support import QUIET, fake_model, fake_provider, openclaw_install  # noqa: E402

from signet_sdk.testing import ServeProcess, free_port, stop_process  # noqa: E402
from signet_sdk.testing.fake_openai import FakeOpenAI  # noqa: E402

BUDGET_MS = 5.0
TOKEN = "bench-token"

TIMER = """
import { appendFileSync } from "node:fs";
const LOG = process.env.BENCH_TIMER_LOG;
const started = new Map();
export default {
  id: "bench-timer",
  name: "bench timer",
  register(api) {
    api.on("before_prompt_build", (event, ctx) => {
      started.set(ctx.runId, process.hrtime.bigint());
    }, { priority: 1000 });
    api.on("before_prompt_build", (event, ctx) => {
      const t0 = started.get(ctx.runId);
      if (t0 === undefined) return;
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      appendFileSync(LOG, JSON.stringify({ run: ctx.runId, key: ctx.sessionKey, ms }) + "\\n");
    }, { priority: -1000 });
  },
};
"""


def _state(base: Path, name: str, fake: FakeOpenAI, timer: Path, env: dict[str, str]) -> Path:
    state = base / name
    state.mkdir()
    provider = fake_provider(fake, context_window=128000)
    config = {
        "models": {"providers": {"fake": provider}},
        "agents": {"defaults": {"model": {"primary": "fake/fake-model"}}},
        "logging": {"file": str(state / "openclaw.log")},
        "plugins": {
            "load": {"paths": [str(timer)]},
            "entries": {
                "bench-timer": {"enabled": True, "hooks": {"allowConversationAccess": True}}
            },
        },
    }
    (state / "openclaw.json").write_text(json.dumps(config, indent=2))
    common.sdk({**env, "OPENCLAW_STATE_DIR": str(state)}, "install", "openclaw")
    return state


def _gateway_turns(
    openclaw: str, env: dict[str, str], state: Path, turns: int, tag: str
) -> list[float]:
    """Start a gateway on ``state``, run warm-up plus ``turns`` turns; wall seconds per turn."""
    port = free_port()
    env = {**env, "OPENCLAW_STATE_DIR": str(state), "OPENCLAW_GATEWAY_PORT": str(port)}
    env["OPENCLAW_CONFIG_PATH"] = str(state / "openclaw.json")
    args = ["gateway", "run", "--bind", "loopback", "--port", str(port)]
    args += ["--auth", "token", "--token", TOKEN, "--allow-unconfigured"]
    log = (state / "gateway.log").open("wb")
    gateway = subprocess.Popen([openclaw, *args], env=env, stdout=log, stderr=subprocess.STDOUT)
    walls = []
    try:
        common.wait_port(port, gateway, timeout=120)
        key = f"agent:main:bench-{tag}"
        for n in range(turns + 2):
            start = time.perf_counter()
            argv = [openclaw, "agent", "--agent", "main", "--session-key", key, "--json"]
            done = subprocess.run(
                [*argv, "--message", f"Turn {n}: how do atlas deploys work?"],
                env=env,
                capture_output=True,
                timeout=180,
            )
            if done.returncode != 0:
                raise RuntimeError(done.stderr.decode()[-2000:])
            if n >= 2:
                walls.append(time.perf_counter() - start)
    finally:
        stop_process(gateway, grace=30)
        log.close()
    return walls


def _hook_ms(log: Path, tag: str) -> list[float]:
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    ms = [r["ms"] for r in rows if r.get("key") == f"agent:main:bench-{tag}"]
    return ms[2:]  # the warm-up turns


def _row(name: str, values: list[float], floor: float | None) -> str:
    median, p90 = common.median_p90(values)
    added = "" if floor is None else f"{median - floor:>+9.2f}"
    return f"{name:<10} {median:>10.2f} {p90:>8.2f} {added:>9}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=12)
    args = parser.parse_args()
    if shutil.which("npm") is None:
        print(
            "bench_openclaw_turn: npm is needed (OpenClaw and Node 24 come from the npm registry)"
        )
        return 2
    install = openclaw_install()
    openclaw = install.openclaw
    print(f"openclaw: {openclaw}; {args.turns} timed turns per configuration")
    common.print_machine()

    with common.bench_dirs("signet-bench-openclaw-") as (base, home, _):
        timer = base / "timer"
        timer.mkdir()
        (timer / "index.mjs").write_text(TIMER)
        (timer / "package.json").write_text(
            json.dumps(
                {
                    "name": "bench-timer",
                    "type": "module",
                    "openclaw": {"extensions": ["./index.mjs"]},
                }
            )
        )
        manifest = {"id": "bench-timer", "name": "bench timer", "activation": {"onStartup": True}}
        manifest["configSchema"] = {
            "type": "object",
            "additionalProperties": False,
            "properties": {},
        }
        (timer / "openclaw.plugin.json").write_text(json.dumps(manifest))
        port = free_port()
        env = common.harness_env(
            base,
            home,
            port,
            PATH=install.path(),
            TMPDIR=str(base),
            XDG_STATE_HOME=str(base / "xdg-state"),
            **QUIET,
            OPENCLAW_GATEWAY_TOKEN=TOKEN,
            BENCH_TIMER_LOG=str(base / "timer.jsonl"),
        )
        walls: dict[str, list[float]] = {}
        with (
            common.dev_daemon(port, base / "daemon.sqlite3"),
            fake_model(base / "openai.jsonl") as fake,
        ):
            for tag in ("off", "server", "process"):
                state = _state(base, tag, fake, timer, env)
                run_env = {**env, "SIGNET_BYPASS": "1"} if tag == "off" else env
                if tag == "server":
                    with ServeProcess(run_env):
                        walls[tag] = _gateway_turns(openclaw, run_env, state, args.turns, tag)
                else:
                    walls[tag] = _gateway_turns(openclaw, run_env, state, args.turns, tag)
        hooks = {tag: _hook_ms(base / "timer.jsonl", tag) for tag in walls}

    floor = statistics.median(hooks["off"])
    print("\nbefore_prompt_build, between the timer's first and last handler")
    print(f"{'config':<10} {'median ms':>10} {'p90 ms':>8} {'added ms':>9}")
    verdict = 0
    for tag, values in hooks.items():
        line = _row(tag, values, floor)
        if tag == "server":
            line, verdict = common.judged(line, statistics.median(values) - floor, BUDGET_MS)
        print(line)
    print("\nwhole turn as `openclaw agent` (CLI start-up included) sees it")
    print(f"{'config':<10} {'median ms':>10} {'p90 ms':>8}")
    for tag, values in walls.items():
        print(_row(tag, [v * 1000 for v in values], None))
    common.print_load_after()
    return verdict


if __name__ == "__main__":
    sys.exit(main())
