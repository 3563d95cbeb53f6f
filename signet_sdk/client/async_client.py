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
from collections.abc import AsyncIterator, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from pydantic import BaseModel

from signet_sdk.client.base import BaseAdapterClient, Plan, SSEDecoder
from signet_sdk.client.contract import AsyncRuntimeAdapter
from signet_sdk.client.io import async_io_for
from signet_sdk.client.waits import async_wait
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

    from signet_sdk.client.io import AsyncHTTPClient
    from signet_sdk.wire.config import ClientOptions

__all__ = ["AsyncAdapterClient"]

M = TypeVar("M", bound=BaseModel)


class AsyncAdapterClient(BaseAdapterClient, AsyncRuntimeAdapter):
    """Talks to one Signet daemon on behalf of one harness.

    Settings come from the arguments, then the environment
    (``SIGNET_DAEMON_URL`` ...), then defaults. The async client sends with
    aiohttp; pass ``http_client`` (an ``aiohttp.ClientSession``, or an
    ``httpx.AsyncClient``, for example one on an ASGI app or mocked by respx)
    to share a pool or choose how bytes travel: the requests and the errors
    are the same either way. Use it as a context manager, or close it, to
    release connections (a client never closes a pool it was given).
    """

    _sleep = staticmethod(async_wait)

    def __init__(
        self,
        harness: str,
        daemon_url: str | None = None,
        *,
        http_client: AsyncHTTPClient | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        super().__init__(harness, daemon_url, **options)
        self._io = async_io_for(http_client, own_connections=True)

    async def aclose(self) -> None:
        self._closed = True
        if not self._borrows_pool:
            await self._io.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- the one send loop -------------------------------------------------

    async def _run(self, plan: Plan) -> Any:
        budget = CallBudget(self._policy, plan.request.timeout, time.monotonic)
        while True:
            try:
                status, headers, content = await self._io.send(
                    plan.request, budget.attempt_timeout()
                )
                return self._result(plan, status, headers, content)
            except ConflictError as exc:
                return self._conflict_outcome(plan.request.endpoint, plan.model, exc)
            except NotFoundError as exc:
                if not self._may_be_missing(plan.request.endpoint):
                    raise
                raise await self._missing_route(plan, exc) from None
            except APIResponseValidationError:
                raise  # the daemon answered: asking again gets the same answer
            except SignetError as exc:
                await self._sleep(budget.next_delay(plan.request.endpoint, exc))

    async def _missing_route(self, plan: Plan, exc: NotFoundError) -> NotFoundError:
        """A 404 from a route newer than the daemon: the typed error, else the 404 as it was."""
        try:
            version = await self.daemon_version()
        except SignetError:
            return exc
        return self._unsupported(plan.request.endpoint, exc, version)

    async def daemon_version(self) -> str | None:
        """The daemon's version (``0.145.8``), read from ``/health`` once per client.

        None when the daemon does not say. Asked only when needed: a route
        the daemon may lack answered 404, or the caller asks.
        """
        if self._daemon_version is None:
            self._daemon_version = (await self.health()).version or ""
        return self._daemon_version or None

    async def _call(
        self,
        name: str,
        model: type[M],
        body: BaseModel | Mapping[str, Any] | None = None,
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
    ) -> M:
        plan = self._plan(name, model, body, path_params=path_params, query=query)
        return cast(M, await self._run(plan))

    # -- lifecycle ---------------------------------------------------------

    async def on_session_start(self, params: SessionStartParams) -> SessionStartResult:
        return await self._call("session_start", SessionStartResult, params)

    async def on_user_prompt_submit(self, params: UserPromptSubmitParams) -> UserPromptSubmitResult:
        return await self._call("user_prompt_submit", UserPromptSubmitResult, params)

    async def on_session_end(self, params: SessionEndParams) -> SessionEndResult:
        return await self._call("session_end", SessionEndResult, params)

    async def on_session_checkpoint(
        self, params: CheckpointExtractParams
    ) -> CheckpointExtractResult:
        return await self._call("session_checkpoint_extract", CheckpointExtractResult, params)

    async def on_pre_compaction(self, params: PreCompactionParams) -> PreCompactionResult:
        return await self._call("pre_compaction", PreCompactionResult, params)

    async def on_compaction_complete(
        self, params: CompactionCompleteParams
    ) -> CompactionCompleteResult:
        return await self._call("compaction_complete", CompactionCompleteResult, params)

    async def remember(self, params: RememberParams) -> RememberResult:
        return await self._call("remember", RememberResult, params)

    async def recall(self, params: RecallParams) -> RecallResult:
        return await self._call("recall", RecallResult, params)

    async def hook_notifications(self, params: NotificationsParams) -> NotificationsResult:
        """Unread cross-agent messages to show the model at one of the harness's hooks.

        A route of daemons newer than 0.145.8 (``POST /api/hooks/notifications``):
        0.145.8 and older answer 404, raised as ``UnsupportedByDaemonError``.
        Reading a message does not use it up: it comes back at later hooks
        until the recipient acknowledges it. An answer with nothing unread has
        ``inject == ""`` and no ``notifications``.
        """
        return await self._call("hook_notifications", NotificationsResult, params)

    async def call_lifecycle(self, call: LifecycleCall) -> HookResult:
        """Perform a translated call: params validated, then its one daemon call."""
        params = self._lifecycle_params(call)  # an unknown action is a PayloadError here
        return cast(HookResult, await getattr(self, call.method)(params))

    # -- synthesis ---------------------------------------------------------

    async def synthesis_config(self) -> SynthesisConfig:
        return await self._call("synthesis_config", SynthesisConfig)

    async def request_synthesis(self, params: SynthesisRequest | None = None) -> SynthesisResult:
        return await self._call("synthesis_request", SynthesisResult, params or {})

    async def complete_synthesis(self, params: SynthesisCompleteRequest) -> SynthesisCompleteResult:
        return await self._call("synthesis_complete", SynthesisCompleteResult, params)

    # -- sessions ----------------------------------------------------------

    async def list_sessions(self, *, agent_id: str | None = None) -> SessionList:
        return await self._call(
            "list_sessions", SessionList, query={"agent_id": agent_id or self.config.agent_id}
        )

    async def get_session(self, key: str, *, agent_id: str | None = None) -> SessionInfo:
        return await self._call(
            "get_session",
            SessionInfo,
            path_params={"key": key},
            query={"agent_id": agent_id or self.config.agent_id},
        )

    async def get_session_transcript(
        self, key: str, *, agent_id: str | None = None
    ) -> SessionTranscript:
        return await self._call(
            "get_session_transcript",
            SessionTranscript,
            path_params={"key": key},
            query={"agent_id": agent_id or self.config.agent_id},
        )

    async def search_sessions(self, params: SessionSearchRequest) -> SessionSearchResult:
        return await self._call("search_sessions", SessionSearchResult, params)

    async def list_session_summaries(
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
        return await self._call("list_session_summaries", SessionSummaryList, query=query)

    async def expand_session_summary(self, params: SummaryExpandRequest) -> SummaryExpandResult:
        return await self._call("expand_session_summary", SummaryExpandResult, params)

    async def set_session_bypass(
        self, key: str, enabled: bool, *, agent_id: str | None = None
    ) -> SessionBypassResult:
        return await self._call(
            "set_session_bypass",
            SessionBypassResult,
            {"enabled": enabled},
            path_params={"key": key},
            query={"agent_id": agent_id or self.config.agent_id},
        )

    async def renew_session(self, key: str, *, agent_id: str | None = None) -> SessionRenewResult:
        return await self._call(
            "renew_session",
            SessionRenewResult,
            {},
            path_params={"key": key},
            query={"agent_id": agent_id or self.config.agent_id},
        )

    # -- memory ------------------------------------------------------------

    async def memory_recall(self, params: MemoryRecallRequest) -> MemoryRecallResult:
        return await self._call("memory_recall", MemoryRecallResult, params)

    async def memory_remember(self, params: MemoryRememberRequest) -> RememberResult:
        return await self._call("memory_remember", RememberResult, params)

    async def get_memory(self, memory_id: str) -> MemoryRecord:
        return await self._call("get_memory", MemoryRecord, path_params={"id": memory_id})

    async def modify_memory(
        self, memory_id: str, params: ModifyMemoryRequest
    ) -> ModifyMemoryResult:
        return await self._call(
            "modify_memory", ModifyMemoryResult, params, path_params={"id": memory_id}
        )

    async def modify_memories(self, params: BatchModifyRequest) -> BatchModifyResult:
        return await self._call("modify_memories", BatchModifyResult, params)

    async def forget_memory(
        self, memory_id: str, params: ForgetMemoryRequest
    ) -> ForgetMemoryResult:
        return await self._call(
            "forget_memory", ForgetMemoryResult, params, path_params={"id": memory_id}
        )

    async def forget_memories(self, params: BatchForgetRequest) -> BatchForgetResult:
        return await self._call("forget_memories", BatchForgetResult, params)

    # -- secrets, health, logs ----------------------------------------------

    async def secrets_exec(self, params: SecretsExecRequest) -> SecretsExecResult:
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
        job = await self.with_options(timeout=deadline).secrets_exec_start(params)
        delay = self._POLL_FIRST
        while not job.finished:
            left = deadline - (time.monotonic() - started)
            if left <= delay:
                raise self._exec_timed_out(job, deadline)
            await self._sleep(delay)
            # The daemon away for a moment (restarting): look again.
            with contextlib.suppress(APIConnectionError):
                job = await self.with_options(timeout=left - delay).secrets_exec_status(
                    self._job_id(job)
                )
            delay = min(delay * 2, self._POLL_MAX)
        return self._exec_outcome(job)

    async def secrets_exec_start(self, params: SecretsExecRequest) -> SecretsExecJob:
        """Start a secrets exec and return the job, for callers that poll themselves.

        On 0.109 the job comes back already ``completed`` with its ``result``
        and no ``id``; on 0.145 it is ``queued`` (a full queue is a 429,
        ``RateLimitError``).
        """
        return await self._call("secrets_exec", SecretsExecJob, params)

    async def secrets_exec_status(self, job_id: str) -> SecretsExecJob:
        """One look at a secrets exec job (0.145 on; 0.109 raises ``UnsupportedByDaemonError``)."""
        return await self._call(
            "secrets_exec_status", SecretsExecJob, path_params={"jobId": job_id}
        )

    async def health(self) -> HealthStatus:
        return await self._call("health", HealthStatus)

    async def logs(
        self,
        *,
        limit: int | None = None,
        level: str | None = None,
        category: str | None = None,
        since: str | None = None,
    ) -> LogList:
        query = {"limit": limit, "level": level, "category": category, "since": since}
        return await self._call("logs", LogList, query=query)

    async def stream_logs(self) -> AsyncIterator[LogEntry]:
        """Yields log entries as the daemon writes them, until the caller stops."""
        plan = self._plan("logs_stream", LogEntry)
        req = plan.request
        decoder = SSEDecoder()

        def refuse(status: int, headers: Mapping[str, str], content: bytes) -> None:
            self._judge(req, status, headers, content)

        async for line in self._io.lines(req, self._stream_timeout(), refuse):
            frame = decoder.feed(line)
            if frame is not None:
                yield self._validate(plan, frame)
