"""0.145's secrets exec jobs: a bounded queue of commands run on worker threads.

``POST /api/secrets/exec`` answers 202 with the job; ``GET
/api/secrets/exec/:jobId`` polls it until ``completed`` (with ``result``) or
``failed`` (with ``error``). As in the daemon, four jobs run at once, 64 may
wait (more is the 429 ``secret exec queue is full``), finished jobs are
forgotten after an hour, and the oldest finished ones make room when too many
are kept. Threads, not event-loop tasks, run the commands, so a job finishes
whether the mock is served on a socket or called in-process.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._rules import iso, parse_iso

MAX_RUNNING = 4
MAX_QUEUED = 64
MAX_RETAINED = MAX_RUNNING + MAX_QUEUED + 64
JOB_TTL_SECONDS = 3600.0
DEFAULT_TIMEOUT_MS = 5 * 60_000
MIN_TIMEOUT_MS = 1_000
MAX_TIMEOUT_MS = 30 * 60_000
MAX_OUTPUT_BYTES = 1024 * 1024
#: Characters that would need a shell (such a command is answered, never run).
SHELL_META = re.compile(r"[;&|`$(){}\[\]<>!\\]")
_TOKEN = re.compile(r"""(?:[^\s"']+|"[^"]*"|'[^']*')+""")
SECRET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
REDACTED = "[REDACTED]"
NAME_RULE = "Use letters, digits, and underscores only."
META_REFUSED = {"stdout": "", "stderr": "command contains disallowed shell metacharacters"}

Job = dict[str, Any]


class QueueFull(Exception):
    """More jobs than the daemon keeps: the route's 429."""

    def __init__(self) -> None:
        super().__init__("secret exec queue is full")


class ExecFailed(Exception):
    """What makes a job ``failed``: its ``error`` text."""


def normalize_timeout(value: Any) -> int:
    """``normalizeSecretExecTimeoutMs``: a finite number clamped to 1 s .. 30 min."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return DEFAULT_TIMEOUT_MS
    return min(MAX_TIMEOUT_MS, max(MIN_TIMEOUT_MS, int(value)))


def resolve_secret(ref: str, store: Mapping[str, str]) -> str:
    """``getSecret`` for a local store: a name or ``local://name`` (1Password has no token)."""
    if ref.startswith("op://"):
        raise ExecFailed("Secret 'OP_SERVICE_ACCOUNT_TOKEN' not found")
    name = ref.removeprefix("local://")
    if not SECRET_NAME.match(name):
        raise ExecFailed(f"Invalid secret name '{name}'. {NAME_RULE}")
    if name not in store:
        raise ExecFailed(f"Secret '{name}' not found")
    return store[name]


def redact(text: str, values: Iterable[str]) -> str:
    """Every secret value longer than three characters, longest first, replaced."""
    for value in sorted(values, key=len, reverse=True):
        if len(value) > 3:
            text = text.replace(value, REDACTED)
    return text


def _output(data: bytes | None, name: str, values: Iterable[str]) -> str:
    """At most 1 MiB of a stream (with the daemon's note when cut), redacted."""
    text = redact((data or b"")[:MAX_OUTPUT_BYTES].decode(errors="replace"), values)
    cut = len(data or b"") > MAX_OUTPUT_BYTES
    return text + (f"\n[signet secret exec: {name} truncated]\n" if cut else "")


def run_command(
    command: str, refs: Mapping[str, str], store: Mapping[str, str], timeout_ms: int
) -> dict[str, Any]:
    """``execWithSecrets``: the result, or :class:`ExecFailed` (a secret, or the spawn)."""
    if SHELL_META.search(command):
        return {**META_REFUSED, "code": 1}
    argv = [re.sub(r"^[\"']|[\"']$", "", token) for token in _TOKEN.findall(command)]
    if not argv:
        return {"stdout": "", "stderr": "empty command", "code": 1}
    injected = {str(var): resolve_secret(str(ref), store) for var, ref in refs.items()}
    values = list(injected.values())
    try:
        done = subprocess.run(
            argv,
            env={**os.environ, **injected},
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=timeout_ms / 1000,
            check=False,
        )
        code, timed_out = done.returncode, False
        out: bytes | None = done.stdout
        err: bytes | None = done.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err, timed_out = 124, exc.output, exc.stderr, True
    except OSError as exc:
        kind = {FileNotFoundError: "ENOENT", PermissionError: "EACCES"}.get(type(exc))
        raise ExecFailed(f"spawn {argv[0]} {kind or 'EIO'}") from exc
    result: dict[str, Any] = {"stdout": _output(out, "stdout", values)}
    result.update(stderr=_output(err, "stderr", values), code=code)
    if timed_out:
        result["stderr"] += f"\n[signet secret exec: timed out after {timeout_ms}ms]\n"
        result["timedOut"] = True
    return result


class ExecJobs:
    """The job table and its queue; every method is thread-safe."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._now = clock
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}
        self._requests: dict[str, tuple[str, dict[str, str], dict[str, str]]] = {}
        self._pending: deque[str] = deque()
        self._running = 0
        self.on_done: Callable[[Job], None] | None = None

    def _prune(self) -> None:
        now = self._now()
        for job_id, job in list(self._jobs.items()):
            stamp = parse_iso(job.get("completedAt") or job["createdAt"])
            if stamp is not None and now - stamp > JOB_TTL_SECONDS:
                del self._jobs[job_id]
                self._requests.pop(job_id, None)

    def _evict(self) -> None:
        finished = [j for j in self._jobs.values() if j["status"] in ("completed", "failed")]
        finished.sort(key=lambda j: parse_iso(j.get("completedAt") or j["createdAt"]) or 0.0)
        for job in finished:
            if len(self._jobs) < MAX_RETAINED:
                return
            del self._jobs[job["id"]]

    def start(
        self, command: str, refs: Mapping[str, str], store: Mapping[str, str], timeout_ms: int
    ) -> Job:
        """Queue a job (``QueueFull`` when there is no room) and start what may run;
        the answer is the job as it stands once started (``running`` when a slot was free)."""
        with self._lock:
            self._prune()
            self._evict()
            if len(self._jobs) >= MAX_RETAINED or len(self._pending) >= MAX_QUEUED:
                raise QueueFull
            job_id = str(uuid.uuid4())
            job: Job = {
                "id": job_id,
                "status": "queued",
                "createdAt": iso(self._now()),
                "timeoutMs": timeout_ms,
            }
            self._jobs[job_id] = job
            self._requests[job_id] = (command, dict(refs), dict(store))
            self._pending.append(job_id)
            self._drain()
            return dict(job)

    def get(self, job_id: str) -> Job | None:
        """A copy of the job, or ``None`` (unknown or forgotten)."""
        with self._lock:
            self._prune()
            job = self._jobs.get(job_id)
            if job is None:
                return None
            copy = dict(job)
            if "result" in copy:
                copy["result"] = dict(copy["result"])
            return copy

    def _drain(self) -> None:
        while self._running < MAX_RUNNING and self._pending:
            job_id = self._pending.popleft()
            job, request = self._jobs.get(job_id), self._requests.get(job_id)
            if job is None or request is None or job["status"] != "queued":
                self._requests.pop(job_id, None)
                continue
            self._running += 1
            job["status"] = "running"
            job["startedAt"] = iso(self._now())
            thread = threading.Thread(
                target=self._run, args=(job, request), name=f"exec-job-{job_id[:8]}", daemon=True
            )
            thread.start()

    def _run(self, job: Job, request: tuple[str, dict[str, str], dict[str, str]]) -> None:
        command, refs, store = request
        outcome: dict[str, Any]
        try:
            outcome = {"result": run_command(command, refs, store, int(job["timeoutMs"]))}
            status = "completed"
        except ExecFailed as exc:
            outcome, status = {"error": str(exc)}, "failed"
        except Exception as exc:  # a bug in the mock fails the job, as a throw would
            outcome, status = {"error": str(exc) or type(exc).__name__}, "failed"
        with self._lock:
            job.update(outcome, status=status, completedAt=iso(self._now()))
            self._requests.pop(str(job["id"]), None)
            self._running = max(0, self._running - 1)
            self._drain()
            done = dict(job)
        if self.on_done is not None:
            self.on_done(done)
