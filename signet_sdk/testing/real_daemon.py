"""The real Signet daemon (TypeScript on Bun) as a test fixture, for every version we support.

The mock daemon is fast, but only the real daemon proves the SDK works for
users. A *kit* is a directory holding ``signet-daemon.sh`` and the daemon's
source archives (``signetai-<version>.tar.gz``); the script builds a version
once (cached under ``~/.cache/signet-daemon``), starts it on a loopback port
with a fresh, isolated data directory and no model provider, and stops it by
its PID (its whole process group).

The kit is found through ``SIGNET_DAEMON_KIT`` or, from a checkout of this
repository, ``../shared/signet-daemon`` beside it. :func:`kit_or_reason`
says why there is none, so a suite can skip with one line; under ``CI=true``
a suite fails instead (:func:`require_kit`), because a run that silently
skipped the real daemons proves nothing about them.
"""

from __future__ import annotations

import os
import socket
import subprocess
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

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def minor(self) -> str:
        """``0.145`` for ``0.145.8``: the form ``--daemon-version`` takes."""
        return ".".join(self.version.split(".")[:2])

    def stop(self) -> None:
        if not self.stopped:
            self.stopped = True
            self.kit._run("stop", self.version, str(self.pid), timeout=60)

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


def versions_to_test(kit: DaemonKit, wanted: Sequence[str] = SUPPORTED_VERSIONS) -> list[str]:
    """The supported versions this kit holds (a kit may be newer and hold more)."""
    have = set(kit.versions())
    return [v for v in wanted if v in have]
