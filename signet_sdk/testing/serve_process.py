"""``signet-sdk serve --port 0`` as a child process, for tests that drive a harness through it.

It is started with the environment given, waits until the server says it
listens, reads the URL and token from the state file the server writes (as
a shim's transport does), and is always stopped by its PID
(:func:`stop_process`: SIGTERM, then SIGKILL after 15 s).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self

__all__ = ["ServeProcess", "stop_process"]


def stop_process(proc: subprocess.Popen[Any], grace: float = 15.0) -> int:
    """Stop the child ``proc`` by its PID and return its exit status.

    SIGTERM first, so it shuts down as it would for a user; SIGKILL if it is
    still there after ``grace`` seconds, so a stuck child never outlives the
    test run. A child that has exited already is only reaped.
    """
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    return proc.returncode


class ServeProcess:
    """One running adapter server; ``harness`` names the event route :meth:`post` uses."""

    #: The harness whose native events :meth:`post` sends; subclasses set it.
    harness: str | None = None

    def __init__(self, env: Mapping[str, str]) -> None:
        from signet_sdk.runtime.files import state_dir

        self.env = dict(env)
        command = str(Path(sys.executable).parent / "signet-sdk")
        self.proc = subprocess.Popen(
            [command, "serve", "--port", "0"],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # nobody reads it: a full pipe would stall the server
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()  # printed once it accepts requests
        if "listening on" not in line:
            self.stop()
            raise RuntimeError(f"signet-sdk serve did not start: {line!r}")
        state = json.loads((Path(state_dir(self.env)) / "adapter-server.json").read_text())
        self.url: str = state["url"]
        self.token: str | None = state.get("token")

    def post(
        self, event: str, payload: Any, timeout: float = 30.0, *, harness: str | None = None
    ) -> dict[str, Any]:
        """One native event of ``harness`` (default: the class's) through a shim's route."""
        harness = harness or self.harness
        if harness is None:
            raise TypeError("ServeProcess.post needs a harness: pass one, or subclass and set it")
        headers = {"content-type": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(
            f"{self.url}/v1/{harness}/events/{event}",
            data=json.dumps(payload).encode(),
            headers=headers,
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer: dict[str, Any] = json.loads(response.read())
        return answer

    def stop(self) -> None:
        stop_process(self.proc)
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
