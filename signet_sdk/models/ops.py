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
    "HealthDatabaseIntegrity",
    "HealthPipeline",
    "HealthStatus",
    "HealthWorkspace",
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


class HealthWorkspace(ResponseModel):
    """The agent workspace a newer daemon found: ``status`` ``missing`` or ``incomplete``
    (with ``reasons``) makes it answer ``degraded``."""

    status: str | None = None
    path: str | None = None
    source: str | None = None
    reasons: list[str] = Field(default_factory=list)


class HealthDatabaseIntegrity(ResponseModel):
    """The daemon's last database check: ``state`` ``corrupt``, ``unavailable`` or
    ``degraded`` makes it answer ``degraded``; ``repairGuidance`` says what to do."""

    state: str | None = None
    checked_at: str | None = None
    repair_guidance: str | None = None


#: The ``status`` values that mean the daemon runs but something under it is wrong.
_DEGRADED_WORKSPACE = ("missing", "incomplete")
_DEGRADED_DATABASE = ("corrupt", "unavailable", "degraded")


class HealthStatus(ResponseModel):
    """``status`` is ``healthy`` or ``shutting_down``, and ``degraded`` on newer daemons.

    Typed ``str`` on purpose: a status the SDK does not know yet still parses.
    Daemons newer than 0.145.8 (NicholaiVogel/signetai
    platform/daemon/src/routes/health.ts@0ac824ae, ``GET /health``) no longer
    send ``pipeline``; they add ``workspace``, ``databaseIntegrity``,
    ``dbWriter``, ``dbReader``, ``dbRuntime``, ``dbOwner`` and ``eventLoop``
    (the last five kept as extra fields), and answer ``degraded`` when the
    workspace is missing or incomplete or the database check failed. A
    degraded daemon still serves: :attr:`degraded_reasons` says why, for a
    warning rather than an error.
    """

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
    workspace: HealthWorkspace | None = None
    database_integrity: HealthDatabaseIntegrity | None = None

    @property
    def degraded(self) -> bool:
        return self.status == "degraded"

    @property
    def degraded_reasons(self) -> list[str]:
        """Why the daemon says it is degraded, in its own words where it gave them."""
        reasons: list[str] = []
        ws = self.workspace
        if ws is not None and ws.status in _DEGRADED_WORKSPACE:
            where = f" at {ws.path}" if ws.path else ""
            detail = f": {'; '.join(ws.reasons)}" if ws.reasons else ""
            reasons.append(f"workspace {ws.status}{where}{detail}")
        db = self.database_integrity
        if db is not None and db.state in _DEGRADED_DATABASE:
            guidance = f": {db.repair_guidance}" if db.repair_guidance else ""
            reasons.append(f"database integrity {db.state}{guidance}")
        if self.degraded and not reasons:
            reasons.append("the daemon gave no reason")
        return reasons


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
