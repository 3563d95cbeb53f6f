"""Bodies of the secrets, health and log routes.

``/health`` and ``/api/logs`` describe the daemon itself, and newer daemons
add keys there freely; only what a caller decides on is typed, the rest is
kept as extra fields.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ._base import RequestModel, ResponseModel
from .field_types import NonEmptyStr

__all__ = [
    "HealthPipeline",
    "HealthStatus",
    "LogEntry",
    "LogError",
    "LogList",
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


class SecretsExecResult(ResponseModel):
    """A non-zero ``code`` is still a 200; secret values in the output are redacted."""

    stdout: str
    stderr: str
    code: int


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
