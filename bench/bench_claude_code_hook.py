"""What one Claude Code prompt pays for the Signet hook: wall time and peak memory.

Runs ``signet-claude-code-hook UserPromptSubmit`` with a realistic payload on
stdin against the dev daemon (``MockDaemon.serve()`` on 127.0.0.1), and
``python -c pass`` with the same interpreter in the same run as the floor,
interleaved so both see the same machine load. Peak memory is each child's
``ru_maxrss`` from ``os.wait4``. Linux counts the spawning process's image in
a child's ``ru_maxrss`` (the old memory map at ``exec``), so the daemon runs
in a helper process and this one imports only the standard library; the
floor's figure shows what that leaves in every measurement.

It also times bare imports of the modules the hook path needs, so a slow
result says where the time goes.

Targets: median hook time <= 3.0 x the median floor, peak RSS <= 30 MiB.

    python bench/bench_claude_code_hook.py [--runs N]

Exit status 0 when both targets are met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

TARGET_RATIO = 3.0
TARGET_RSS_MIB = 30.0


def run_child(argv: list[str], data: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    """Seconds, peak RSS in MiB and stdout of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(data)
    proc.stdin.close()
    out = proc.stdout.read()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} exited with {proc.returncode}")
    rss_kib = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss / 1024
    return elapsed, rss_kib / 1024, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--serve", metavar="DB", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve)
    if args.runs < 20:
        parser.error("--runs must be at least 20")

    python = sys.executable
    hook = str(Path(python).parent / "signet-claude-code-hook")
    work = Path(tempfile.mkdtemp(prefix="signet-bench-"))
    session = str(uuid.uuid4())
    project = str(Path.home() / "projects" / "atlas")
    payload = {
        "session_id": session,
        "transcript_path": str(work / ".claude" / "projects" / "atlas" / f"{session}.jsonl"),
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt_id": str(uuid.uuid4()),
        "prompt": (
            "Before we change the deploy script, remind me what we decided about "
            "running database migrations during the atlas release, and whether the "
            "staging environment still needs the feature flag we added last week."
        ),
    }
    data = json.dumps(payload).encode()
    # Children write bytecode caches as an installed package would.
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work),
        "XDG_STATE_HOME": str(work / "state"),
    }
    server = subprocess.Popen(
        [python, __file__, "--serve", str(work / "daemon.sqlite3")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        env["SIGNET_DAEMON_URL"] = server.stdout.readline().strip()
        start = dict(payload, hook_event_name="SessionStart", source="startup")
        run_child([hook, "SessionStart"], json.dumps(start).encode(), env)
        for _ in range(3):  # warm the page cache and write bytecode caches
            run_child([python, "-c", "pass"], b"", env)
            run_child([hook, "UserPromptSubmit"], data, env)

        floor: list[float] = []
        floor_rss: list[float] = []
        times: list[float] = []
        rss: list[float] = []
        injected = 0
        for _ in range(args.runs):
            seconds, peak, _ = run_child([python, "-c", "pass"], b"", env)
            floor.append(seconds)
            floor_rss.append(peak)
            seconds, peak, out = run_child([hook, "UserPromptSubmit"], data, env)
            times.append(seconds)
            rss.append(peak)
            injected += bool(out)
        imports = {}
        for module in IMPORTS:
            code = f"import {module}"
            imports[module] = statistics.median(
                run_child([python, "-c", code], b"", env)[0] for _ in range(args.runs // 2)
            )
    finally:
        server.stdin.close()
        requests = int(server.stdout.readline().strip() or 0)
        server.wait(timeout=30)
        server.stdout.close()

    floor_ms = statistics.median(floor) * 1000
    hook_ms = statistics.median(times) * 1000
    ratio = hook_ms / floor_ms
    peak = max(rss)
    p90 = sorted(times)[int(len(times) * 0.9) - 1] * 1000
    lines = [
        f"runs: {args.runs} (interleaved), python: {python}",
        f"python -c pass      median {floor_ms:6.1f} ms   peak RSS {max(floor_rss):5.1f} MiB",
        f"hook UserPromptSubmit median {hook_ms:6.1f} ms   p90 {p90:6.1f} ms   "
        f"peak RSS {peak:5.1f} MiB",
        f"ratio to floor: {ratio:.2f}x (target <= {TARGET_RATIO}x); "
        f"peak RSS {peak:.1f} MiB (target <= {TARGET_RSS_MIB} MiB)",
        f"daemon answered {requests} prompt-submit calls; {injected}/{args.runs} runs "
        "printed additionalContext",
        "bare import cost over the floor (median wall, ms):",
        *(f"  +{(t * 1000 - floor_ms):6.1f}  import {m}" for m, t in imports.items()),
    ]
    ok = ratio <= TARGET_RATIO and peak <= TARGET_RSS_MIB
    lines.append("PASS" if ok else "FAIL")
    print("\n".join(lines))
    return 0 if ok else 1


IMPORTS = (
    "signet_sdk",
    "dataclasses",
    "http.client",
    "signet_sdk.wire.config, signet_sdk.wire.endpoints, signet_sdk.runtime.calls, signet_sdk.wire.request",
    "signet_sdk.wire.lean",
    "signet_adapter_claude_code.hook, signet_sdk.hooks.runner, signet_sdk.wire.lean",
)


def serve(db: str) -> int:
    """Helper process: the mock daemon with two memories, until stdin closes."""
    from signet_sdk.testing.mock_daemon import MockDaemon

    daemon = MockDaemon(db_path=db)
    with daemon.serve() as handle:
        for text in (
            "Atlas migrations run before the release, never during it.",
            "The staging feature flag atlas-new-deploy can be removed after the release.",
        ):
            daemon_post(handle.url, "/api/memory/remember", {"content": text})
        print(handle.url, flush=True)
        sys.stdin.read()
        print(len(daemon.requests_to("/api/hooks/user-prompt-submit")), flush=True)
    return 0


def daemon_post(base: str, path: str, body: dict[str, object]) -> None:
    import urllib.request

    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()


if __name__ == "__main__":
    sys.exit(main())
