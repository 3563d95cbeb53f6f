"""The shim transport's latency per path: first event and steady state, from Node.

Paths, each timed from a fresh Node process (so the first event includes
the transport's own discovery), against the dev daemon with one memory:

* server: a ``signet-sdk serve`` already running (found by its state file);
* process: no server and autostart off: every event runs ``signet-sdk hook``;
* autostart: no server at first: the first event starts one in the
  background and is served by the hook process; later events find the
  server once it is up.

    python bench/bench_transport.py [--events 30]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _turns as common

from signet_sdk.testing import ServeProcess, free_port

TRANSPORT = Path(__file__).resolve().parents[1] / "signet_sdk" / "shims" / "transport.mjs"
SDK = str(Path(sys.executable).parent / "signet-sdk")
PAYLOAD = {"session_id": "bench-1", "cwd": "/srv/atlas", "prompt": "which day do we deploy?"}


def _node_times(env: dict[str, str], events: int, pause: float = 0.0) -> list[float]:
    script = f"""
const t = await import({json.dumps(TRANSPORT.as_uri())});
const times = [];
for (let i = 0; i < {events}; i++) {{
  const start = performance.now();
  await t.send("claude-code", "UserPromptSubmit", {json.dumps(PAYLOAD)});
  times.push(performance.now() - start);
  if ({pause}) await new Promise((r) => setTimeout(r, {pause * 1000}));
}}
process.stderr.write(JSON.stringify(times));
"""
    node = shutil.which("node") or "node"
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    return list(json.loads(done.stderr))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=30)
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
        port = free_port()
        url = f"http://127.0.0.1:{port}"

        def env_for(state: str, **extra: str) -> dict[str, str]:
            """The shim's environment, its state in ``tmp/<state>``."""
            return {
                **base,
                "HOME": tmp,
                "XDG_STATE_HOME": f"{tmp}/{state}",
                "SIGNET_DAEMON_URL": url,
                **extra,
            }

        with common.dev_daemon(port, Path(tmp, "d.db")):
            # server path
            env = env_for("s1")
            with ServeProcess(env):
                rows.append(("server", _node_times(env, args.events)))
            # process path
            env = env_for("s2", SIGNET_SDK_COMMAND=SDK, SIGNET_ADAPTER_AUTOSTART="0")
            rows.append(("process", _node_times(env, args.events)))
            # autostart path: events spaced out so the server has time to come up
            env = env_for("s3", SIGNET_SDK_COMMAND=SDK)
            rows.append(("autostart", _node_times(env, args.events, pause=0.05)))
            state = Path(tmp, "s3", "signet-sdk", "adapter-server.json")
            if state.exists():
                os.kill(json.loads(state.read_text())["pid"], 15)
                time.sleep(0.5)
    print(
        f"python bench/bench_transport.py --events {args.events}  (load {os.getloadavg()[0]:.2f})"
    )
    print(f"{'path':<11}{'first ms':>10}{'steady p50 ms':>15}{'steady p90 ms':>15}")
    for name, times in rows:
        steady = sorted(times[len(times) // 2 :])  # the second half: warm
        p90 = steady[int(0.9 * (len(steady) - 1))]
        print(f"{name:<11}{times[0]:>10.1f}{statistics.median(steady):>15.2f}{p90:>15.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
