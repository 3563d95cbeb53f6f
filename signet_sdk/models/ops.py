"""Bodies of the secrets, health and log routes.

``/health`` and ``/api/logs`` describe the daemon itself, and newer daemons
add keys there freely; only what a caller decides on is typed, the rest is
kept as extra fields.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from ._base import RequestModel, ResponseModel
from .field_types import NonEmptyStr

__all__ = [
    "HealthPipeline",
    "HealthStatus",
    "LogEntry",
    "LogError",
    "LogList",
    "SecretsExecJob",
    "SecretsExecRequest",
    "SecretsExecResult",
]


class SecretsExecRequest(RequestModel):
    """Run ``command`` with secrets injected as environment variables.

    ``secrets`` maps a variable name to a secret reference (a stored name,
    ``local://name`` or ``op://vault/item/field``). There is no shell: a
    command holding shell metacharacters such as ``$`` or ``|`` is refused
    with ``code: 1``.
    """

    command: NonEmptyStr
    secrets: dict[str, str] = Field(min_length=1)
    #: How long the command may run, in milliseconds (1 s to 30 min; the
    #: daemon's default is 5 min). Read from 0.145 on; 0.109 ignores it.
    timeout_ms: int | None = Field(None, ge=1_000, le=1_800_000)


class SecretsExecResult(ResponseModel):
    """A non-zero ``code`` is still a success; secret values in the output are redacted.

    ``timedOut`` (0.145 on) marks a command the daemon killed at its
    ``timeoutMs`` (``code`` is then 124).
    """

    stdout: str
    stderr: str
    code: int
    timed_out: bool | None = None


class SecretsExecJob(ResponseModel):
    """A secrets exec as a job: what 0.145 answers (202) and ``GET /api/secrets/exec/:id`` polls.

    0.109 runs the command within the request and answers its result
    directly; that answer reads as a job already ``completed`` with no
    ``id``, so a caller handles both daemons the same way.
    """

    id: str | None = None
    status: Literal["queued", "running", "completed", "failed"]
    created_at: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    timeout_ms: int | None = None
    result: SecretsExecResult | None = None
    error: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _direct_result(cls, data: Any) -> Any:
        # 0.109's 200 is the bare result: {stdout, stderr, code}.
        if isinstance(data, dict) and "status" not in data and "code" in data:
            return {"status": "completed", "result": data}
        return data

    @property
    def finished(self) -> bool:
        """True once the job is ``completed`` or ``failed``: polling further changes nothing."""
        return self.status in ("completed", "failed")


class HealthPipeline(ResponseModel):
    """``extractionStalled``: work is pending and nothing moved for 60 s."""

    extraction_running: bool | None = None
    extraction_stalled: bool | None = None
    extraction_pending: int | None = None
    extraction_backoff_ms: float | None = None  # with jitter on the real daemon: 1234.56


class HealthStatus(ResponseModel):
    """``status`` is ``healthy`` or ``shutting_down`` today (typed ``str`` on purpose)."""

    status: str
    uptime: float | None = None
    pid: int | None = None
    version: str | None = None
    port: int | None = None
    agents_dir: str | None = None
    db: bool | None = None
    shutting_down: bool | None = None
    update_available: bool | None = None
    pending_restart: bool | None = None
    pipeline: HealthPipeline | None = None
    resources: dict[str, Any] | None = None


class LogError(ResponseModel):
    """The error a log line was written about."""

    name: str | None = None
    message: str | None = None
    stack: str | None = None


class LogEntry(ResponseModel):
    """One log line, from ``/api/logs`` or one ``/api/logs/stream`` frame.

    The key is ``timestamp`` (older docs say ``at``).
    """

    timestamp: str
    level: str
    message: str
    category: str | None = None
    data: dict[str, Any] | None = None
    duration: float | None = None
    error: LogError | None = None


class LogList(ResponseModel):
    """Oldest first, read from the newest log files on disk."""

    logs: list[LogEntry]
    count: int | None = None
