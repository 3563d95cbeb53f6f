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
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OC_TESTS = ROOT / "adapters" / "openclaw" / "tests"
sys.path.insert(0, str(OC_TESTS))

from oc_fake_openai import FakeOpenAI  # noqa: E402
from oc_support import AdapterServer  # noqa: E402

BUDGET_MS = 5.0
SDK = str(Path(sys.executable).parent / "signet-sdk")
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(
    port: int, proc: subprocess.Popen[bytes] | None = None, timeout: float = 120
) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited before listening on {port}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


def _install() -> tuple[str, str]:
    script = OC_TESTS / "e2e" / "install_openclaw.sh"
    done = subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, check=True, timeout=900
    )
    node_dir, openclaw = done.stdout.strip().splitlines()[-2:]
    return node_dir, openclaw


def _state(base: Path, name: str, fake: FakeOpenAI, timer: Path, env: dict[str, str]) -> Path:
    state = base / name
    state.mkdir()
    model = {
        "id": "fake-model",
        "name": "Fake",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 4096,
    }
    provider = {"baseUrl": fake.base_url, "apiKey": "sk", "api": "openai-completions"}
    config = {
        "models": {"providers": {"fake": {**provider, "models": [model]}}},
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
    subprocess.run(
        [SDK, "install", "openclaw"],
        env={**env, "OPENCLAW_STATE_DIR": str(state)},
        check=True,
        capture_output=True,
    )
    return state


def _gateway_turns(
    openclaw: str, env: dict[str, str], state: Path, turns: int, tag: str
) -> list[float]:
    """Start a gateway on ``state``, run warm-up plus ``turns`` turns; wall seconds per turn."""
    port = _free_port()
    env = {**env, "OPENCLAW_STATE_DIR": str(state), "OPENCLAW_GATEWAY_PORT": str(port)}
    env["OPENCLAW_CONFIG_PATH"] = str(state / "openclaw.json")
    args = ["gateway", "run", "--bind", "loopback", "--port", str(port)]
    args += ["--auth", "token", "--token", TOKEN, "--allow-unconfigured"]
    log = (state / "gateway.log").open("wb")
    gateway = subprocess.Popen([openclaw, *args], env=env, stdout=log, stderr=subprocess.STDOUT)
    walls = []
    try:
        _wait_port(port, gateway)
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
        gateway.send_signal(signal.SIGTERM)
        try:
            gateway.wait(timeout=30)
        except subprocess.TimeoutExpired:
            gateway.kill()
            gateway.wait()
        log.close()
    return walls


def _hook_ms(log: Path, tag: str) -> list[float]:
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    ms = [r["ms"] for r in rows if r.get("key") == f"agent:main:bench-{tag}"]
    return ms[2:]  # the warm-up turns


def _row(name: str, values: list[float], floor: float | None) -> str:
    ms = sorted(values)
    median = statistics.median(ms)
    p90 = ms[max(int(len(ms) * 0.9) - 1, 0)]
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
    node_dir, openclaw = _install()
    print(f"openclaw: {openclaw}; {args.turns} timed turns per configuration")
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, ", end="")
    print(f"load {os.getloadavg()[0]:.2f}")

    with tempfile.TemporaryDirectory(prefix="signet-bench-openclaw-") as tmp:
        base = Path(tmp)
        home = base / "home"
        home.mkdir()
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
        port = _free_port()
        env = {
            "PATH": os.pathsep.join([node_dir, str(Path(openclaw).parent), "/usr/bin", "/bin"]),
            "LANG": "C.UTF-8",
            "HOME": str(home),
            "TMPDIR": str(base),
            "XDG_STATE_HOME": str(base / "xdg-state"),
            "OPENCLAW_DISABLE_BONJOUR": "1",
            "OPENCLAW_SKIP_CHANNELS": "1",
            "OPENCLAW_NO_RESPAWN": "1",
            "OPENCLAW_EXEC_SHELL_SNAPSHOT": "0",
            "OPENCLAW_GATEWAY_TOKEN": TOKEN,
            "SIGNET_DAEMON_URL": f"http://127.0.0.1:{port}",
            "SIGNET_ADAPTER_AUTOSTART": "0",
            "BENCH_TIMER_LOG": str(base / "timer.jsonl"),
        }
        daemon = subprocess.Popen(
            [SDK, "dev-daemon", "--port", str(port), "--db", str(base / "daemon.sqlite3")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        walls: dict[str, list[float]] = {}
        try:
            _wait_port(port, timeout=30)
            with FakeOpenAI(base / "openai.jsonl") as fake:
                for tag in ("off", "server", "process"):
                    state = _state(base, tag, fake, timer, env)
                    run_env = {**env, "SIGNET_BYPASS": "1"} if tag == "off" else env
                    if tag == "server":
                        with AdapterServer(run_env):
                            walls[tag] = _gateway_turns(openclaw, run_env, state, args.turns, tag)
                    else:
                        walls[tag] = _gateway_turns(openclaw, run_env, state, args.turns, tag)
            hooks = {tag: _hook_ms(base / "timer.jsonl", tag) for tag in walls}
        finally:
            daemon.terminate()
            daemon.wait(timeout=15)

    floor = statistics.median(hooks["off"])
    print("\nbefore_prompt_build, between the timer's first and last handler")
    print(f"{'config':<10} {'median ms':>10} {'p90 ms':>8} {'added ms':>9}")
    verdict = 0
    for tag, values in hooks.items():
        line = _row(tag, values, floor)
        if tag == "server":
            added = statistics.median(values) - floor
            verdict = 0 if added <= BUDGET_MS else 1
            line += f"   budget {BUDGET_MS:.0f} ms: {'PASS' if verdict == 0 else 'FAIL'}"
        print(line)
    print("\nwhole turn as `openclaw agent` (CLI start-up included) sees it")
    print(f"{'config':<10} {'median ms':>10} {'p90 ms':>8}")
    for tag, values in walls.items():
        print(_row(tag, [v * 1000 for v in values], None))
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return verdict


if __name__ == "__main__":
    sys.exit(main())
