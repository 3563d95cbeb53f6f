"""Bodies of the session lifecycle hooks (``/api/hooks/*``).

Each hook has three models. ``XxxParams`` is what a caller fills in; the
client adds ``harness`` and ``runtimePath`` from its configuration, which
gives ``XxxRequest``, the body the daemon reads. ``XxxResult`` is the 200
answer. A 200 is not always work done: the daemon answers bypassed,
internal and runtime-path-conflict calls with flagged no-op bodies, so every
result carries those flags (``HookResult``) and no field a no-op body may
lack is required.

Fields of daemons newer than 0.145.8 (known from upstream's source, cited as
NicholaiVogel/signetai <path>@<commit>) are all optional, so the same models
read 0.109, 0.145 and newer answers.
"""

from __future__ import annotations

from pydantic import ConfigDict, Field, model_validator

from ._base import RequestModel, ResponseModel
from .field_types import IsoTimestamp, NonEmptyStr, RuntimePath
from .notifications import HookNotifications

__all__ = [
    "CheckpointExtractParams",
    "CheckpointExtractRequest",
    "CheckpointExtractResult",
    "CompactionCompleteParams",
    "CompactionCompleteRequest",
    "CompactionCompleteResult",
    "HookResult",
    "Identity",
    "InjectedMemory",
    "NotificationsParams",
    "NotificationsRequest",
    "NotificationsResult",
    "PreCompactionParams",
    "PreCompactionRequest",
    "PreCompactionResult",
    "SessionEndParams",
    "SessionEndRequest",
    "SessionEndResult",
    "SessionStartParams",
    "SessionStartRequest",
    "SessionStartResult",
    "UserPromptSubmitParams",
    "UserPromptSubmitRequest",
    "UserPromptSubmitResult",
]


class HookWire(RequestModel):
    """The two fields the client, not the caller, supplies on every hook body.

    ``harness`` is a 400 when missing or empty. ``runtimePath`` mirrors the
    ``x-signet-runtime-path`` header (which wins when both are sent).
    """

    harness: NonEmptyStr
    runtime_path: RuntimePath | None = None


class HookResult(ResponseModel):
    """The "did nothing" flags a hook may put on a 200.

    TS 0.109 answers a bypassed session, an ``x-signet-no-hooks`` call, a
    session owned by the other runtime path, or a repeated session-end with
    200 and these flags rather than an error; a caller must tell such an
    answer from real work before acting on it.
    """

    skipped: bool | None = None
    duplicate_runtime_path: bool | None = None
    claimed_by: str | None = None
    duplicate_session_end: bool | None = None
    ended_by: str | None = None
    bypassed: bool | None = None
    internal: bool | None = None
    warnings: list[str] | None = None

    @property
    def did_nothing(self) -> bool:
        """True when the daemon declined the call (skip, bypass, internal, duplicate)."""
        return any(
            flag is True
            for flag in (
                self.skipped,
                self.bypassed,
                self.internal,
                self.duplicate_runtime_path,
                self.duplicate_session_end,
            )
        )


# -- session-start -----------------------------------------------------------


class SessionStartParams(RequestModel):
    """``harnessAgentId``, ``parentSessionKey`` and ``source`` are read only by
    daemons newer than TS 0.109, which ignores them; ``context`` is declared
    by TS 0.109 but never read.

    ``claimOnly`` (daemons newer than 0.145.8: NicholaiVogel/signetai
    platform/daemon/src/routes/hooks-routes.ts@0f06b2b9, registerSessionStart)
    re-establishes the runtime-path claim without building the context, and
    answers ``{sessionKnown: true}``; it needs a runtime path (else 400).
    """

    session_key: str | None = None
    agent_id: str | None = None
    project: str | None = None
    context: str | None = None
    harness_agent_id: str | None = None
    parent_session_key: str | None = None
    source: str | None = None
    claim_only: bool | None = None


class SessionStartRequest(SessionStartParams, HookWire):
    """The session-start wire body."""


class Identity(ResponseModel):
    """Who the agent is; ``{name: "Agent"}`` when identity injection is off."""

    name: str
    description: str | None = None


class InjectedMemory(ResponseModel):
    """A memory chosen for the inject; a row column, hence ``created_at``.

    Ids are UUID strings; a numeric id (as older docs show) is read as text.
    """

    model_config = ConfigDict(coerce_numbers_to_str=True)

    id: str
    content: str
    type: str | None = None
    importance: float | None = None
    created_at: str | None = Field(None, alias="created_at")


class SessionStartResult(HookResult):
    """Full inject, the repeat-start stub, a no-op, or the Rust daemon's thin form.

    ``sessionKey``, ``agentId`` and ``deduped`` come from the Rust daemon. The
    rest of the newer fields come from daemons newer than 0.145.8, as
    NicholaiVogel/signetai platform/daemon/src/hooks.ts@0e2d96b1 writes them
    (``SessionStartResponse``, ``attachPromptContext``):
    ``stableSystemPrompt`` is the deterministic prefix a harness may cache,
    ``dynamicContext`` the state-dependent rest, and ``inject`` their join
    wrapped in ``<signet-memory-context>`` for clients that do not split;
    ``contextHash`` is the SHA-256 (hex) of exactly that ``inject`` and
    ``contextVersion`` its format (1, platform/core/src/prompt-context.ts
    @5c13b0b4). ``notifications`` (hooks-routes.ts@0f06b2b9,
    withCrossAgentNotifications) holds unread cross-agent messages, whose text
    the daemon appends to ``inject`` only. ``sessionKnown`` answers a
    ``claimOnly`` start.
    """

    inject: str = ""
    identity: Identity | None = None
    memories: list[InjectedMemory] = Field(default_factory=list)
    recent_context: str | None = None
    stable_system_prompt: str | None = None
    dynamic_context: str | None = None
    context_hash: str | None = None
    context_version: int | str | None = None
    notifications: HookNotifications | None = None
    session_known: bool | None = None
    session_key: str | None = None
    agent_id: str | None = None
    deduped: bool | None = None


# -- user-prompt-submit ------------------------------------------------------


class UserPromptSubmitParams(RequestModel):
    """The daemon needs a non-blank ``userMessage`` or, failing that, ``userPrompt``.

    ``memory_feedback`` (memory id -> -1..1) keeps its snake_case wire name;
    ``harnessAgentId`` is read only by newer daemons.
    """

    model_config = ConfigDict(
        json_schema_extra={"anyOf": [{"required": ["userMessage"]}, {"required": ["userPrompt"]}]}
    )

    user_message: str | None = None
    user_prompt: str | None = None
    session_key: str | None = None
    agent_id: str | None = None
    project: str | None = None
    last_assistant_message: str | None = None
    transcript_path: str | None = None
    transcript: str | None = None
    memory_feedback: dict[str, float] | None = Field(None, alias="memory_feedback")
    harness_agent_id: str | None = None

    @model_validator(mode="after")
    def _needs_a_message(self) -> UserPromptSubmitParams:
        if not any(m and m.strip() for m in (self.user_message, self.user_prompt)):
            raise ValueError(
                "user_message (userMessage) or user_prompt (userPrompt) is required and must"
                " not be blank"
            )
        return self


class UserPromptSubmitRequest(UserPromptSubmitParams, HookWire):
    """The user-prompt-submit wire body."""


class UserPromptSubmitResult(HookResult):
    """``sessionKnown: false`` means the daemon forgot the session: start it again.

    ``inject`` is ``""`` for no-ops (and, in newer daemons, on low signal).
    Daemons newer than 0.145.8 add, as NicholaiVogel/signetai
    platform/daemon/src/hooks.ts@0e2d96b1 writes them
    (``UserPromptSubmitResponse``, ``finalizeUserPromptSubmitSuccess``):
    ``dynamicContext`` (the per-turn context, unwrapped), ``clockContext``
    (``Current date/time: ...``, kept out of the hashed context so a replayed
    prompt stays cache-stable), ``contextHash`` and ``contextVersion`` of the
    ``<signet-memory-context>`` ``inject``, and ``notifications``
    (hooks-routes.ts@0f06b2b9).
    """

    inject: str = ""
    memory_count: int = 0
    session_known: bool | None = None
    query_terms: str | None = None
    engine: str | None = None
    dynamic_context: str | None = None
    clock_context: str | None = None
    context_hash: str | None = None
    context_version: int | str | None = None
    notifications: HookNotifications | None = None


# -- session-end -------------------------------------------------------------


class SessionEndParams(RequestModel):
    """The project travels as ``cwd`` on this route; there is no ``project``.

    ``reason: "clear"`` discards the session without extracting anything.
    ``capturedAt`` (daemons newer than 0.145.8: NicholaiVogel/signetai
    platform/daemon/src/routes/hooks-routes.ts@0f06b2b9, registerSessionEnd) is
    when an importing harness captured the session, an ISO instant the daemon
    records as the end; anything else is a 400 there, refused here.
    """

    session_key: str | None = None
    session_id: str | None = None
    agent_id: str | None = None
    transcript_path: str | None = None
    transcript: str | None = None
    cwd: str | None = None
    reason: str | None = None
    captured_at: IsoTimestamp | None = None


class SessionEndRequest(SessionEndParams, HookWire):
    """The session-end wire body."""


class SessionEndResult(HookResult):
    """``memoriesSaved`` is always 0 in TS 0.109: extraction runs later, as ``jobId``.

    Daemons newer than 0.145.8 answer ``{memoriesSaved: 0, queued,
    transcriptCaptureJobId?}`` (NicholaiVogel/signetai
    platform/daemon/src/hooks.ts@0e2d96b1, handleSessionEnd): the id of the
    capture job the transcript went to, polled at
    ``GET /api/hooks/transcript-capture/<id>``; absent when there was no
    transcript to capture.
    """

    memories_saved: int = 0
    queued: bool | None = None
    job_id: str | None = None
    transcript_capture_job_id: str | None = None


# -- session-checkpoint-extract ----------------------------------------------


class CheckpointExtractParams(RequestModel):
    """An inline ``transcript`` is extracted whole each time; a path is read by delta."""

    session_key: NonEmptyStr
    agent_id: str | None = None
    project: str | None = None
    transcript: str | None = None
    transcript_path: str | None = None


class CheckpointExtractRequest(CheckpointExtractParams, HookWire):
    """The session-checkpoint-extract wire body."""


class CheckpointExtractResult(HookResult):
    """``{queued, jobId}``, or ``{skipped: true}`` for every reason not to extract."""

    queued: bool | None = None
    job_id: str | None = None


# -- pre-compaction ----------------------------------------------------------


class PreCompactionParams(RequestModel):
    """``transcriptPath`` and ``agentId`` are sent by newer CLIs; TS 0.109 ignores them."""

    session_key: str | None = None
    session_context: str | None = None
    message_count: int | None = None
    transcript_path: str | None = None
    agent_id: str | None = None


class PreCompactionRequest(PreCompactionParams, HookWire):
    """The pre-compaction wire body."""


class PreCompactionResult(HookResult):
    """The bypass answer is ``{instructions: "", bypassed: true}`` with no prompt."""

    summary_prompt: str = ""
    guidelines: str = ""
    instructions: str | None = None


# -- compaction-complete -----------------------------------------------------


class CompactionCompleteParams(RequestModel):
    """``project`` is used only when no stored transcript row names one."""

    summary: NonEmptyStr
    session_key: str | None = None
    project: str | None = None
    agent_id: str | None = None


class CompactionCompleteRequest(CompactionCompleteParams, HookWire):
    """The compaction-complete wire body."""


class CompactionCompleteResult(HookResult):
    """``memoryId`` is null for noise sessions; ``contextEpoch`` comes from newer daemons.

    A numeric ``memoryId`` (as older docs show) is read as text.
    """

    model_config = ConfigDict(coerce_numbers_to_str=True)

    success: bool | None = None
    memory_id: str | None = None
    context_epoch: int | None = None


# -- notifications (daemons newer than 0.145.8) ------------------------------


class NotificationsParams(RequestModel):
    """Ask for unread cross-agent messages at one of the harness's own hooks.

    ``POST /api/hooks/notifications`` (NicholaiVogel/signetai
    platform/daemon/src/routes/hooks-routes.ts@0f06b2b9, registerNotifications)
    reads ``harness``, ``hook``, ``sessionKey``, ``agentId`` and ``project``.
    ``hook`` is the harness's own event name: ``SessionStart`` and
    ``UserPromptSubmit`` for every harness, and per harness the points
    cross-agent-notifications.ts@0f06b2b9 (``HARNESS_NOTIFICATION_HOOKS``)
    lists, such as ``PreToolUse`` for claude-code and codex; any other is a 400.
    """

    hook: NonEmptyStr
    session_key: str | None = None
    agent_id: str | None = None
    project: str | None = None


class NotificationsRequest(NotificationsParams, HookWire):
    """The notifications wire body."""


class NotificationsResult(HookResult):
    """``{inject: ""}`` when nothing is unread, else the text and the block it came from.

    A bypassed session answers ``{inject: "", bypassed: true}``.
    """

    inject: str = ""
    notifications: HookNotifications | None = None
