"""What only the pi adapter tests need (a module name no other test folder uses).

``install_pi``: the pinned ``pi`` from the npm registry (the kit's
``npm_binary``). ``AdapterServer``: ``signet-sdk serve`` as a process (the
kit's :class:`~signet_sdk.testing.ServeProcess`) whose :meth:`post` sends pi
events. ``PiRpc``: ``pi --mode rpc`` driven over its JSON-lines stdio.
``write_models``: pi's ``models.json`` naming a fake OpenAI-compatible model.
Everything else (the scripted daemon, the hook process, the outbox readers,
the vectors) comes from :mod:`signet_sdk.testing`.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from signet_e2e import npm_binary

from signet_sdk.testing import ServeProcess

#: The pi release the end-to-end tests run (``PI_VERSION`` picks another).
PI_VERSION = os.environ.get("PI_VERSION", "0.73.1")


def install_pi(version: str = PI_VERSION) -> str:
    """The ``pi`` program of ``version``, installed from the npm registry once per cache.

    Its manifest says the version: ``pi --version`` (seconds: it loads everything) is not run.
    """
    return str(npm_binary("@mariozechner/pi-coding-agent", version, "pi", probe=None, timeout=600))


def write_models(agent: Path, base_url: str, context_window: int) -> None:
    """``agent/models.json``: provider ``fakeoai``, model ``fake-model`` served at ``base_url``."""
    models = {
        "providers": {
            "fakeoai": {
                "baseUrl": base_url,
                "api": "openai-completions",
                "apiKey": "dummy",
                "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                "models": [
                    {"id": "fake-model", "contextWindow": context_window, "maxTokens": 4096}
                ],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))


class AdapterServer(ServeProcess):
    """``signet-sdk serve --port 0`` as a process; :meth:`post` sends pi events."""

    harness = "pi"


class PiRpc:
    """``pi --mode rpc`` as a process: JSON lines in on stdin, out on stdout (split on LF only)."""

    def __init__(self, argv: list[str], cwd: Path, env: Mapping[str, str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: list[dict[str, Any]] = []
        # Waiters wake on every line (not on a polling tick): a turn is timed to the line.
        self._lock = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._ids = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buffer = b""
        while chunk := os.read(fd, 65536):
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    parsed = json.loads(line)
                except ValueError:
                    continue
                with self._lock:
                    self.lines.append(parsed)
                    self._lock.notify_all()
        with self._lock:
            self._lock.notify_all()  # pi's stdout closed: waiters stop waiting

    def _wait(self, found: Any, what: str, timeout: float) -> dict[str, Any]:
        end = time.monotonic() + timeout
        with self._lock:
            seen = 0
            while True:
                for line in self.lines[seen:]:
                    if found(line):
                        return line
                seen = len(self.lines)
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    break
                self._lock.wait(min(left, 0.5))
            kinds = [line.get("type") for line in self.lines[-20:]]
        raise AssertionError(f"pi rpc: no {what} within {timeout}s; last events {kinds}")

    def command(self, command: dict[str, Any], timeout: float = 60.0) -> dict[str, Any]:
        """Send one command and return its response."""
        self._ids += 1
        ident = f"c{self._ids}"
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps({**command, "id": ident}) + "\n").encode())
        self.proc.stdin.flush()
        return self._wait(lambda line: line.get("id") == ident, f"response to {command}", timeout)

    def count(self, kind: str) -> int:
        with self._lock:
            return sum(1 for line in self.lines if line.get("type") == kind)

    def prompt(self, text: str, timeout: float = 60.0) -> None:
        """One prompt, until its agent_end."""
        ended = self.count("agent_end")
        response = self.command({"type": "prompt", "message": text}, timeout)
        assert response.get("success") is True, response
        end = time.monotonic() + timeout
        with self._lock:
            while sum(1 for line in self.lines if line.get("type") == "agent_end") <= ended:
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"pi rpc: no agent_end for {text!r}")
                self._lock.wait(min(left, 0.5))

    def close(self, timeout: float = 30.0) -> int:
        """Close stdin (pi shuts down) and wait; kill it if it does not exit."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        finally:
            self._reader.join(timeout=5)
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()
        return self.proc.returncode
