"""What the clients do differently by daemon version, decided without I/O.

A route newer than the oldest supported daemon (``Endpoint.since``) may
answer 404 because the daemon is older: the client then learns the
daemon's version once and raises ``UnsupportedByDaemonError`` naming both
versions. A secrets exec is a job from 0.145 on; the deadline, the poll
pacing and the verdict on a finished job are decided here for both clients.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from signet_sdk.wire.endpoints import BASELINE_VERSION, Endpoint
from signet_sdk.wire.errors import (
    APIResponseValidationError,
    APITimeoutError,
    JobFailedError,
    NotFoundError,
    UnsupportedByDaemonError,
)

if TYPE_CHECKING:
    from signet_sdk.models import SecretsExecJob, SecretsExecRequest, SecretsExecResult
    from signet_sdk.wire.config import ClientConfig

__all__ = ["DaemonVersions"]


class DaemonVersions:
    """Mixed into both clients: version checks and secrets exec job handling."""

    _config: ClientConfig
    #: The daemon's version once learnt ("" when it does not say).
    _daemon_version: str | None = None

    @staticmethod
    def _may_be_missing(ep: Endpoint) -> bool:
        """A route newer than the oldest supported daemon: its 404 may mean "too old"."""
        return ep.since != BASELINE_VERSION

    @staticmethod
    def _unsupported(ep: Endpoint, exc: NotFoundError, version: str | None) -> NotFoundError:
        from signet_sdk.wire.versions import older_than

        # A handler's 404 is JSON ({"error": ...}): the route exists, the thing does
        # not. Only the router's own plain-text 404 can mean "too old for this route".
        if isinstance(exc.body, dict):
            return exc
        if version and older_than(version, ep.since):
            return UnsupportedByDaemonError(
                exc, endpoint=ep.name, daemon_version=version, since=ep.since
            )
        return exc

    # -- secrets exec jobs ------------------------------------------------

    #: Seconds between the first polls of a secrets exec job, doubling up to the second.
    _POLL_FIRST = 0.05
    _POLL_MAX = 1.0

    def _exec_deadline(self, params: SecretsExecRequest) -> float:
        """The whole call: the write timeout, plus what the command itself may take."""
        write = self._config.timeouts.write
        return write + (params.timeout_ms or 0) / 1000

    @staticmethod
    def _job_id(job: SecretsExecJob) -> str:
        if not job.id:
            raise APIResponseValidationError(
                "secrets exec: an unfinished job came back without an id",
                method="POST",
                url="/api/secrets/exec",
                body=job.model_dump(by_alias=True),
            )
        return job.id

    def _exec_timed_out(self, job: SecretsExecJob, deadline: float) -> APITimeoutError:
        return APITimeoutError(
            f"secrets exec job {job.id} still {job.status} after {deadline:.1f} s "
            "(the daemon keeps running it; poll secrets_exec_status to see it end)",
            method="GET",
            url=f"{self._config.base_url}/api/secrets/exec/{job.id}",
        )

    def _exec_outcome(self, job: SecretsExecJob) -> SecretsExecResult:
        if job.status == "completed" and job.result is not None:
            return job.result
        reason = job.error or f"job ended {job.status} without a result"
        raise JobFailedError(
            f"secrets exec job {job.id} failed: {reason}",
            method="GET",
            url=f"{self._config.base_url}/api/secrets/exec/{job.id}",
            job_id=job.id,
            reason=reason,
        )
