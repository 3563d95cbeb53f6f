# Generated from async_client.py by unasync (python3 dev.py generate): do not edit.
# dev.py check fails when this file and its source disagree.
# long module: one method per daemon endpoint, and the source both clients are generated from
"""The runtime adapter contract over HTTP: one daemon call per lifecycle method.

Every lifecycle method is exactly one daemon call; the other methods cover
the rest of the daemon API an integration needs. Requests are planned and
answers judged by the shared sans-I/O base; the client only sends them and
waits between tries. This module (``AsyncAdapterClient``) is the source of
both clients: ``sync_client.py`` (``AdapterClient``) is generated from it by
unasync (``python3 dev.py generate``), and ``dev.py check`` fails when the
two differ, so they cannot drift.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from pydantic import BaseModel

from signet_sdk.client.base import BaseAdapterClient, Plan, SSEDecoder
from signet_sdk.client.contract import RuntimeAdapter
from signet_sdk.client.io import io_for
from signet_sdk.client.waits import wait
from signet_sdk.models import (
    BatchForgetRequest,
    BatchForgetResult,
    BatchModifyRequest,
    BatchModifyResult,
    CheckpointExtractParams,
    CheckpointExtractResult,
    CompactionCompleteParams,
    CompactionCompleteResult,
    ForgetMemoryRequest,
    ForgetMemoryResult,
    HealthStatus,
    HookResult,
    LogEntry,
    LogList,
    MemoryRecallRequest,
    MemoryRecallResult,
    MemoryRecord,
    MemoryRememberRequest,
    ModifyMemoryRequest,
    ModifyMemoryResult,
    NotificationsParams,
    NotificationsResult,
    PreCompactionParams,
    PreCompactionResult,
    RecallParams,
    RecallResult,
    RememberParams,
    RememberResult,
    SecretsExecJob,
    SecretsExecRequest,
    SecretsExecResult,
    SessionBypassResult,
    SessionEndParams,
    SessionEndResult,
    SessionInfo,
    SessionList,
    SessionRenewResult,
    SessionSearchRequest,
    SessionSearchResult,
    SessionStartParams,
    SessionStartResult,
    SessionSummaryList,
    SessionTranscript,
    SummaryExpandRequest,
    SummaryExpandResult,
    SynthesisCompleteRequest,
    SynthesisCompleteResult,
    SynthesisConfig,
    SynthesisRequest,
    SynthesisResult,
    UserPromptSubmitParams,
    UserPromptSubmitResult,
)
from signet_sdk.wire.errors import (
    APIConnectionError,
    APIResponseValidationError,
    ConflictError,
    NotFoundError,
    SignetError,
)
from signet_sdk.wire.lifecycle import LifecycleCall
from signet_sdk.wire.retry import CallBudget

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from signet_sdk.client.io import HTTPClient
    from signet_sdk.wire.config import ClientOptions

__all__ = ["AdapterClient"]

M = TypeVar("M", bound=BaseModel)


class AdapterClient(BaseAdapterClient, RuntimeAdapter):
    """Talks to one Signet daemon on behalf of one harness.

    Settings come from the arguments, then the environment
    (``SIGNET_DAEMON_URL`` ...), then defaults. The async client sends with
    aiohttp; pass ``http_client`` (an ``aiohttp.ClientSession``, or an
    ``httpx.AsyncClient``, for example one on an ASGI app or mocked by respx)
    to share a pool or choose how bytes travel: the requests and the errors
    are the same either way. Use it as a context manager, or close it, to
    release connections (a client never closes a pool it was given).
    """

    _sleep = staticmethod(wait)

    def __init__(
        self,
        harness: str,
        daemon_url: str | None = None,
        *,
        http_client: HTTPClient | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        super().__init__(harness, daemon_url, **options)
        self._io = io_for(http_client, own_connections=True)

    def close(self) -> None:
        self._closed = True
        if not self._borrows_pool:
            self._io.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- the one send loop -------------------------------------------------

    def _run(self, plan: Plan) -> Any:
        budget = CallBudget(self._policy, plan.request.timeout, time.monotonic)
        while True:
            try:
                status, headers, content = self._io.send(plan.request, budget.attempt_timeout())
                return self._result(plan, status, headers, content)
            except ConflictError as exc:
                return self._conflict_outcome(plan.request.endpoint, plan.model, exc)
            except NotFoundError as exc:
                if not self._may_be_missing(plan.request.endpoint):
                    raise
                raise self._missing_route(plan, exc) from None
            except APIResponseValidationError:
                raise  # the daemon answered: asking again gets the same answer
            except SignetError as exc:
                self._sleep(budget.next_delay(plan.request.endpoint, exc))

    def _missing_route(self, plan: Plan, exc: NotFoundError) -> NotFoundError:
        """A 404 from a route newer than the daemon: the typed error, else the 404 as it was."""
        try:
            version = self.daemon_version()
        except SignetError:
            return exc
        return self._unsupported(plan.request.endpoint, exc, version)

    def daemon_version(self) -> str | None:
        """The daemon's version (``0.145.8``), read from ``/health`` once per client.

        None when the daemon does not say. Asked only when needed: a route
        the daemon may lack answered 404, or the caller asks.
        """
        if self._daemon_version is None:
            self._daemon_version = (self.health()).version or ""
        return self._daemon_version or None

    def _call(
        self,
        name: str,
        model: type[M],
        body: BaseModel | Mapping[str, Any] | None = None,
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
    ) -> M:
        plan = self._plan(name, model, body, path_params=path_params, query=query)
        return cast(M, self._run(plan))

    # -- lifecycle ---------------------------------------------------------

    def on_session_start(self, params: SessionStartParams) -> SessionStartResult:
        return self._call("session_start", SessionStartResult, params)

    def on_user_prompt_submit(self, params: UserPromptSubmitParams) -> UserPromptSubmitResult:
        return self._call("user_prompt_submit", UserPromptSubmitResult, params)

    def on_session_end(self, params: SessionEndParams) -> SessionEndResult:
        return self._call("session_end", SessionEndResult, params)

    def on_session_checkpoint(self, params: CheckpointExtractParams) -> CheckpointExtractResult:
        return self._call("session_checkpoint_extract", CheckpointExtractResult, params)

    def on_pre_compaction(self, params: PreCompactionParams) -> PreCompactionResult:
        return self._call("pre_compaction", PreCompactionResult, params)

    def on_compaction_complete(self, params: CompactionCompleteParams) -> CompactionCompleteResult:
        return self._call("compaction_complete", CompactionCompleteResult, params)

    def remember(self, params: RememberParams) -> RememberResult:
        return self._call("remember", RememberResult, params)

    def recall(self, params: RecallParams) -> RecallResult:
        return self._call("recall", RecallResult, params)

    def hook_notifications(self, params: NotificationsParams) -> NotificationsResult:
        """Unread cross-agent messages to show the model at one of the harness's hooks.

        A route of daemons newer than 0.145.8 (``POST /api/hooks/notifications``):
        0.145.8 and older answer 404, raised as ``UnsupportedByDaemonError``.
        Reading a message does not use it up: it comes back at later hooks
        until the recipient acknowledges it. An answer with nothing unread has
        ``inject == ""`` and no ``notifications``.
        """
        return self._call("hook_notifications", NotificationsResult, params)

    def call_lifecycle(self, call: LifecycleCall) -> HookResult:
        """Perform a translated call: params validated, then its one daemon call."""
        params = self._lifecycle_params(call)  # an unknown action is a PayloadError here
        return cast(HookResult, getattr(self, call.method)(params))

    # -- synthesis ---------------------------------------------------------

    def synthesis_config(self) -> SynthesisConfig:
        return self._call("synthesis_config", SynthesisConfig)

    def request_synthesis(self, params: SynthesisRequest | None = None) -> SynthesisResult:
        return self._call("synthesis_request", SynthesisResult, params or {})

    def complete_synthesis(self, params: SynthesisCompleteRequest) -> SynthesisCompleteResult:
        return self._call("synthesis_complete", SynthesisCompleteResult, params)

    # -- sessions ----------------------------------------------------------

    def list_sessions(self, *, agent_id: str | None = None) -> SessionList:
        return self._call(
            "list_sessions", SessionList, query={"agent_id": agent_id or self.config.agent_id}
        )

    def get_session(self, key: str, *, agent_id: str | None = None) -> SessionInfo:
        return self._call(
            "get_session",
            SessionInfo,
            path_params={"key": key},
            query={"agent_id": agent_id or self.config.agent_id},
        )

    def get_session_transcript(self, key: str, *, agent_id: str | None = None) -> SessionTranscript:
        return self._call(
            "get_session_transcript",
            SessionTranscript,
            path_params={"key": key},
            query={"agent_id": agent_id or self.config.agent_id},
        )

    def search_sessions(self, params: SessionSearchRequest) -> SessionSearchResult:
        return self._call("search_sessions", SessionSearchResult, params)

    def list_session_summaries(
        self,
        *,
        agent_id: str | None = None,
        session_key: str | None = None,
        project: str | None = None,
        depth: int | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> SessionSummaryList:
        query = self._summaries_query(agent_id, session_key, project, depth, limit, offset)
        return self._call("list_session_summaries", SessionSummaryList, query=query)

    def expand_session_summary(self, params: SummaryExpandRequest) -> SummaryExpandResult:
        return self._call("expand_session_summary", SummaryExpandResult, params)

    def set_session_bypass(
        self, key: str, enabled: bool, *, agent_id: str | None = None
    ) -> SessionBypassResult:
        return self._call(
            "set_session_bypass",
            SessionBypassResult,
            {"enabled": enabled},
            path_params={"key": key},
            query={"agent_id": agent_id or self.config.agent_id},
        )

    def renew_session(self, key: str, *, agent_id: str | None = None) -> SessionRenewResult:
        return self._call(
            "renew_session",
            SessionRenewResult,
            {},
            path_params={"key": key},
            query={"agent_id": agent_id or self.config.agent_id},
        )

    # -- memory ------------------------------------------------------------

    def memory_recall(self, params: MemoryRecallRequest) -> MemoryRecallResult:
        return self._call("memory_recall", MemoryRecallResult, params)

    def memory_remember(self, params: MemoryRememberRequest) -> RememberResult:
        return self._call("memory_remember", RememberResult, params)

    def get_memory(self, memory_id: str) -> MemoryRecord:
        return self._call("get_memory", MemoryRecord, path_params={"id": memory_id})

    def modify_memory(self, memory_id: str, params: ModifyMemoryRequest) -> ModifyMemoryResult:
        return self._call(
            "modify_memory", ModifyMemoryResult, params, path_params={"id": memory_id}
        )

    def modify_memories(self, params: BatchModifyRequest) -> BatchModifyResult:
        return self._call("modify_memories", BatchModifyResult, params)

    def forget_memory(self, memory_id: str, params: ForgetMemoryRequest) -> ForgetMemoryResult:
        return self._call(
            "forget_memory", ForgetMemoryResult, params, path_params={"id": memory_id}
        )

    def forget_memories(self, params: BatchForgetRequest) -> BatchForgetResult:
        return self._call("forget_memories", BatchForgetResult, params)

    # -- secrets, health, logs ----------------------------------------------

    def secrets_exec(self, params: SecretsExecRequest) -> SecretsExecResult:
        """Run a command with secrets injected; its result, on every daemon version.

        0.109 runs it within the request. 0.145 queues a job (202), which is
        polled with back-off (a 429's ``Retry-After`` honoured) until it is
        done, all inside one deadline: the write timeout plus the command's
        own ``timeoutMs`` (on 0.109 the one request gets it all). A job that
        failed raises ``JobFailedError`` with the daemon's reason; one still
        running at the deadline raises ``APITimeoutError`` naming the job,
        which the daemon keeps running. Once the job is started, a look at it
        that cannot reach the daemon is tried again until the deadline: it
        never surfaces as ``NotSentError``, which would say the command is
        safe to run again.
        """
        deadline = self._exec_deadline(params)
        started = time.monotonic()
        job = self.with_options(timeout=deadline).secrets_exec_start(params)
        delay = self._POLL_FIRST
        while not job.finished:
            left = deadline - (time.monotonic() - started)
            if left <= delay:
                raise self._exec_timed_out(job, deadline)
            self._sleep(delay)
            # The daemon away for a moment (restarting): look again.
            with contextlib.suppress(APIConnectionError):
                job = self.with_options(timeout=left - delay).secrets_exec_status(self._job_id(job))
            delay = min(delay * 2, self._POLL_MAX)
        return self._exec_outcome(job)

    def secrets_exec_start(self, params: SecretsExecRequest) -> SecretsExecJob:
        """Start a secrets exec and return the job, for callers that poll themselves.

        On 0.109 the job comes back already ``completed`` with its ``result``
        and no ``id``; on 0.145 it is ``queued`` (a full queue is a 429,
        ``RateLimitError``).
        """
        return self._call("secrets_exec", SecretsExecJob, params)

    def secrets_exec_status(self, job_id: str) -> SecretsExecJob:
        """One look at a secrets exec job (0.145 on; 0.109 raises ``UnsupportedByDaemonError``)."""
        return self._call("secrets_exec_status", SecretsExecJob, path_params={"jobId": job_id})

    def health(self) -> HealthStatus:
        return self._call("health", HealthStatus)

    def logs(
        self,
        *,
        limit: int | None = None,
        level: str | None = None,
        category: str | None = None,
        since: str | None = None,
    ) -> LogList:
        query = {"limit": limit, "level": level, "category": category, "since": since}
        return self._call("logs", LogList, query=query)

    def stream_logs(self) -> Iterator[LogEntry]:
        """Yields log entries as the daemon writes them, until the caller stops."""
        plan = self._plan("logs_stream", LogEntry)
        req = plan.request
        decoder = SSEDecoder()

        def refuse(status: int, headers: Mapping[str, str], content: bytes) -> None:
            self._judge(req, status, headers, content)

        for line in self._io.lines(req, self._stream_timeout(), refuse):
            frame = decoder.feed(line)
            if frame is not None:
                yield self._validate(plan, frame)
