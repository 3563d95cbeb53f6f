"""What the turn benches share: the dev daemon, ports, processes, the figures' frame.

``bench_openclaw_turn.py``, ``bench_pi_turn.py`` and ``bench_opencode_turn.py``
each run a real harness against a fake model on 127.0.0.1 and the dev
daemon (``signet-sdk dev-daemon`` in its own process, :func:`dev_daemon`),
time its turns per configuration and print the median and p90
(:func:`median_p90`) against a floor, between the machine's line
(:func:`print_machine`) and its load afterwards. Not a benchmark itself.
"""

from __future__ import annotations

import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

#: The ``signet-sdk`` command of this interpreter's environment.
SDK = str(Path(sys.executable).parent / "signet-sdk")


@contextmanager
def bench_dirs(prefix: str) -> Iterator[tuple[Path, Path, Path]]:
    """A temporary folder, its ``home`` and its project ``atlas``; removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        base = Path(tmp)
        home, project = base / "home", base / "atlas"
        home.mkdir()
        project.mkdir()
        yield base, home, project


def sdk(env: Mapping[str, str], *args: str) -> None:
    """Run ``signet-sdk <args>`` under ``env`` (an installer, say); it must succeed."""
    subprocess.run([SDK, *args], env=dict(env), check=True, capture_output=True)


def harness_env(base: Path, home: Path, port: int, **extra: str) -> dict[str, str]:
    """A harness's environment: this PATH, ``home``, state in ``base``, the dev daemon on ``port``.

    No adapter server is started on demand (``SIGNET_ADAPTER_AUTOSTART=0``):
    a configuration has one only when the bench starts it. ``extra``: the
    harness's own variables, or others in place of these.
    """
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "XDG_STATE_HOME": str(base / "state"),
        "SIGNET_DAEMON_URL": f"http://127.0.0.1:{port}",
        "SIGNET_ADAPTER_AUTOSTART": "0",
    }
    env.update(extra)
    return env


def wait_port(
    port: int, proc: subprocess.Popen[bytes] | None = None, timeout: float = 60.0
) -> None:
    """Wait until something listens on 127.0.0.1:``port`` (``proc`` must not exit first)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited before listening on {port}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@contextmanager
def dev_daemon(port: int, db: Path) -> Iterator[None]:
    """``signet-sdk dev-daemon`` on 127.0.0.1:``port``, its store at ``db``, for the block."""
    daemon = subprocess.Popen(
        [SDK, "dev-daemon", "--port", str(port), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_port(port, daemon)
        yield
    finally:
        daemon.terminate()
        daemon.wait(timeout=15)


def print_machine() -> None:
    """The machine line every bench prints before its figures."""
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, ", end="")
    print(f"load {os.getloadavg()[0]:.2f}")


def median_p90(values: Sequence[float]) -> tuple[float, float]:
    """The median and the 90th percentile (nearest rank, at least the first) of ``values``."""
    ordered = sorted(values)
    return statistics.median(ordered), ordered[max(int(len(ordered) * 0.9) - 1, 0)]


def judged(line: str, added: float, budget: float) -> tuple[str, int]:
    """``line`` with the verdict on ``added`` ms, and the exit status (0 within budget, 1 over)."""
    ok = added <= budget
    return f"{line}   budget {budget:.0f} ms: {'PASS' if ok else 'FAIL'}", 0 if ok else 1


def print_load_after() -> None:
    """The machine's load once the bench is done, its last line."""
    print(f"load after: {os.getloadavg()[0]:.2f}")
