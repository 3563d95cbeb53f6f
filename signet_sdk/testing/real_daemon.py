"""The real Signet daemon (TypeScript on Bun) as a test fixture, for every version we support.

The mock daemon is fast, but only the real daemon proves the SDK works for
users. A *kit* is a directory holding ``signet-daemon.sh`` and the daemon's
source archives (``signetai-<version>.tar.gz``); the script builds a version
once (cached under ``~/.cache/signet-daemon``), starts it on a loopback port
with a fresh, isolated data directory and no model provider, and stops it by
its PID (its whole process group). :meth:`RealDaemon.kill` ends one the way
a crash does (SIGKILL, no shutdown work) and :meth:`RealDaemon.restart`
starts the same build again on the same port and data directory, as a user's
daemon comes back after an update or a crash.

The kit is found through ``SIGNET_DAEMON_KIT`` or, from a checkout of this
repository, ``../shared/signet-daemon`` beside it. :func:`kit_or_reason`
says why there is none, so a suite can skip with one line; under ``CI=true``
a suite fails instead (:func:`require_kit`), because a run that silently
skipped the real daemons proves nothing about them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "SUPPORTED_VERSIONS",
    "DaemonKit",
    "RealDaemon",
    "find_kit",
    "free_port",
    "kit_or_reason",
    "require_kit",
    "versions_to_test",
]

#: The daemon releases the SDK is proven against, oldest first.
SUPPORTED_VERSIONS: tuple[str, ...] = ("0.109.15", "0.145.8")

_SCRIPT = "signet-daemon.sh"


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _default_cache() -> Path:
    """The kit's own default: ``SIGNET_DAEMON_CACHE``, else the user cache directory."""
    explicit = os.environ.get("SIGNET_DAEMON_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "signet-daemon"


def _candidates(start: Path | None) -> Iterator[Path]:
    env = os.environ.get("SIGNET_DAEMON_KIT")
    if env:
        yield Path(env)
        return
    here = (start or Path(__file__)).resolve()
    for parent in [here, *here.parents]:
        yield parent.parent / "shared" / "signet-daemon"


def find_kit(start: Path | None = None) -> Path | None:
    """The kit directory, or None: ``SIGNET_DAEMON_KIT``, else ``../shared/signet-daemon``."""
    for candidate in _candidates(start):
        if (candidate / _SCRIPT).is_file():
            return candidate
    return None


def kit_or_reason(start: Path | None = None) -> tuple[Path | None, str]:
    """The kit and an empty string, or None and a one-line reason it cannot be used."""
    import shutil

    kit = find_kit(start)
    if kit is None:
        return None, (
            "no real-daemon kit (set SIGNET_DAEMON_KIT or run from a checkout with "
            "../shared/signet-daemon)"
        )
    for tool in ("npm", "node", "bash", "curl"):
        if shutil.which(tool) is None:
            return None, f"the real-daemon kit needs {tool} on the PATH"
    return kit, ""


def require_kit(start: Path | None = None) -> Path:
    """The kit, or a pytest skip (a failure under ``CI=true``) naming why there is none."""
    import pytest

    kit, reason = kit_or_reason(start)
    if kit is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    return kit


@dataclass
class DaemonKit:
    """One kit directory: builds versions and starts daemons from them."""

    root: Path
    #: Where built daemons are cached, fixed when the kit is made: a test that
    #: points HOME elsewhere must not make the kit build everything again.
    cache: Path = field(default_factory=lambda: _default_cache())
    _built: set[str] = field(default_factory=set)

    @property
    def script(self) -> Path:
        return self.root / _SCRIPT

    def versions(self) -> list[str]:
        """The versions this kit holds, as its script lists them."""
        done = self._run("versions", timeout=30)
        return [line.strip() for line in done.splitlines() if line.strip()]

    def setup(self, version: str) -> None:
        """Build ``version`` once (about two minutes cold; a no-op when cached)."""
        if version in self._built:
            return
        self._run("setup", version, timeout=900)
        self._built.add(version)

    def start(self, version: str, port: int | None = None) -> RealDaemon:
        """A fresh daemon of ``version`` on 127.0.0.1 (a free port unless one is given)."""
        self.setup(version)
        last = ""
        for _ in range(3):  # a port taken between choosing and binding: choose again
            chosen = port or free_port()
            try:
                pid = int(self._run("start", version, str(chosen), timeout=120).strip())
            except RuntimeError as exc:
                last = str(exc)
                if port is not None or "already in use" not in last:
                    raise
                continue
            return RealDaemon(self, version, chosen, pid)
        raise RuntimeError(last)

    @contextmanager
    def running(self, version: str) -> Iterator[RealDaemon]:
        """A daemon of ``version`` for the duration of the block, stopped by its PID."""
        daemon = self.start(version)
        try:
            yield daemon
        finally:
            daemon.stop()

    def _run(self, *args: str, timeout: float) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
        for keep in ("SIGNET_REAL_PROFILE", "SIGNET_REAL_KEEP"):
            if keep in os.environ:
                env[keep] = os.environ[keep]
        env["SIGNET_DAEMON_CACHE"] = str(self.cache)
        done = subprocess.run(
            ["bash", str(self.script), *args],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            tail = " | ".join(done.stderr.strip().splitlines()[-5:])
            raise RuntimeError(f"signet-daemon.sh {' '.join(args)} failed: {tail}")
        return done.stdout


@dataclass
class RealDaemon:
    """One running real daemon; :meth:`stop` ends it (and removes its data) by PID."""

    kit: DaemonKit
    version: str
    port: int
    pid: int
    stopped: bool = False
    #: How the kit launched the process, read before :meth:`kill` (for :meth:`restart`).
    _launch: _Launch | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def minor(self) -> str:
        """``0.145`` for ``0.145.8``: the form ``--daemon-version`` takes."""
        return ".".join(self.version.split(".")[:2])

    def stop(self) -> None:
        """End the daemon and remove its data directory (after :meth:`kill` too)."""
        if not self.stopped:
            self.stopped = True
            self.kit._run("stop", self.version, str(self.pid), timeout=60)

    @property
    def run_dir(self) -> Path:
        """The run's folder: the data directory (``agents/``), its HOME and ``daemon.log``.

        The kit records it beside the PID it started (``runs/pid-<pid>``);
        :meth:`restart` keeps that record current.
        """
        return Path(self._record().read_text(encoding="utf-8").strip())

    def _record(self) -> Path:
        return self.kit.cache / self.version / "runs" / f"pid-{self.pid}"

    def alive(self) -> bool:
        """Whether the daemon's process still runs (a zombie does not)."""
        try:
            with open(f"/proc/{self.pid}/stat", encoding="ascii") as fh:
                # ``pid (comm) state ...``: the state is the field after the last ")".
                return fh.read().rpartition(")")[2].split()[0] not in ("Z", "X")
        except (OSError, IndexError):
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                return True
            return True

    def kill(self, timeout: float = 30.0) -> None:
        """SIGKILL the daemon's process group, as a crash or the OOM killer would.

        Nothing of the daemon's shutdown runs: requests in flight are cut, work
        it queued in memory is lost, SQLite is left to recover its journal. The
        data directory stays for :meth:`restart`; :meth:`stop` still removes it.
        Returns once the process is gone and its port no longer answers.
        """
        if self.stopped:
            raise RuntimeError(f"daemon {self.version} on port {self.port} was stopped")
        self._launch = self._launch or _launch_of(self.pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)  # the kit made it a process-group leader
        end = time.monotonic() + timeout
        while self.alive() or _listening(self.port):
            if time.monotonic() > end:
                raise RuntimeError(f"daemon {self.pid} still there {timeout:g} s after SIGKILL")
            time.sleep(0.05)

    def restart(self, timeout: float = 120.0) -> None:
        """Start the same build again on the same port and data directory.

        A daemon still running is killed first (:meth:`kill`). The new process
        gets the command, working directory and environment the kit gave the
        first one (read from ``/proc`` before the kill), so it opens the same
        database and configuration; its output is appended to the run's
        ``daemon.log``. Returns once ``/health`` answers; :attr:`pid` is then
        the new process, which :meth:`stop` ends as before.
        """
        if self.stopped:
            raise RuntimeError(f"daemon {self.version} on port {self.port} was stopped")
        if self.alive():
            self.kill()
        launch = self._launch
        if launch is None:
            raise RuntimeError(f"daemon {self.pid} is gone and was not killed by kill()")
        run = self.run_dir
        with open(run / "daemon.log", "ab") as log:
            log.write(f"--- restarted on port {self.port} at {time.ctime()} ---\n".encode())
            log.flush()
            proc = subprocess.Popen(
                launch.argv,
                cwd=launch.cwd,
                env=launch.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a group leader, as the kit's setsid makes it
            )
        # Reap it when it ends (the kit's stop waits for the PID to disappear).
        threading.Thread(target=proc.wait, name=f"reap-{proc.pid}", daemon=True).start()
        old = self._record()
        (old.parent / f"pid-{proc.pid}").write_text(f"{run}\n", encoding="utf-8")
        old.unlink(missing_ok=True)
        self.pid = proc.pid
        end = time.monotonic() + timeout
        while not self._healthy():
            if proc.poll() is not None or time.monotonic() > end:
                tail = (run / "daemon.log").read_text(errors="replace").splitlines()[-15:]
                raise RuntimeError(
                    f"daemon {self.version} did not come back on port {self.port}: "
                    + " | ".join(tail)
                )
            time.sleep(0.25)

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/health", timeout=2) as answer:
                return bool(answer.status == 200)
        except (OSError, urllib.error.URLError):
            return False

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        """One raw request (for set-up the SDK has no method for, such as storing a secret)."""
        req = urllib.request.Request(
            self.url + path,
            data=body,
            method=method,
            headers={"content-type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=30) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def store_secret(self, name: str, value: str) -> None:
        import json

        status, body = self.request(
            "POST", f"/api/secrets/{name}", json.dumps({"value": value}).encode()
        )
        if status != 200:
            raise RuntimeError(f"storing secret {name} failed: {status} {body[:200]!r}")

    def wait_until(self, predicate: object, *, timeout: float = 10.0) -> None:
        """Poll ``predicate()`` until it is true (daemon work that is queued, not awaited)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if callable(predicate) and predicate():
                return
            time.sleep(0.1)
        raise AssertionError(f"condition not met within {timeout} s on daemon {self.version}")


@dataclass(frozen=True)
class _Launch:
    """What a process was started with: its command, working directory and environment."""

    argv: list[str]
    cwd: str
    env: dict[str, str]


def _launch_of(pid: int) -> _Launch:
    """The command line, working directory and environment of ``pid``, from ``/proc``."""
    proc = Path("/proc") / str(pid)
    try:
        argv = [a.decode() for a in (proc / "cmdline").read_bytes().split(b"\0") if a]
        cwd = os.readlink(proc / "cwd")
        pairs = (proc / "environ").read_bytes().split(b"\0")
    except OSError as exc:
        raise RuntimeError(
            f"cannot read how daemon {pid} was started (needs /proc): {exc}"
        ) from exc
    env = dict(p.decode().split("=", 1) for p in pairs if b"=" in p)
    if not argv:
        raise RuntimeError(f"daemon {pid} has no command line (already gone?)")
    return _Launch(argv, cwd, env)


def _listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def versions_to_test(kit: DaemonKit, wanted: Sequence[str] = SUPPORTED_VERSIONS) -> list[str]:
    """The supported versions this kit holds (a kit may be newer and hold more)."""
    have = set(kit.versions())
    return [v for v in wanted if v in have]
