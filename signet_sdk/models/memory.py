# long module: the memory endpoints' request and response models, one family of schemas
"""Bodies of the memory routes and of the remember/recall hooks.

The hooks and ``/api/memory/*`` share shapes: ``/api/hooks/remember`` is a
proxy to ``/api/memory/remember`` and ``/api/hooks/recall`` returns the
memory recall answer with a few extra keys. Rows straight from the database
keep their snake_case column names on the wire (``created_at``,
``source_id`` ...), so those fields carry explicit aliases; everything the
route code builds itself is camelCase.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ConfigDict, Field, PositiveInt, model_validator

from ._base import RequestModel, ResponseModel
from .field_types import JsonObject, NonBlankStr, NonEmptyStr, Tags
from .hooks import HookResult, HookWire

__all__ = [
    "BatchForgetRequest",
    "BatchForgetResult",
    "BatchModifyItem",
    "BatchModifyRequest",
    "BatchModifyResult",
    "ForgetCandidate",
    "ForgetItem",
    "ForgetMemoryRequest",
    "ForgetMemoryResult",
    "MemoryPatch",
    "MemoryRecallRequest",
    "MemoryRecallResult",
    "MemoryRecord",
    "MemoryRememberRequest",
    "ModifyMemoryRequest",
    "ModifyMemoryResult",
    "RecallAggregate",
    "RecallDedupe",
    "RecallHit",
    "RecallMeta",
    "RecallParams",
    "RecallRequest",
    "RecallResult",
    "RecallTime",
    "RememberParams",
    "RememberRequest",
    "RememberResult",
]


# -- recall ------------------------------------------------------------------


class RecallHit(ResponseModel):
    """One recalled memory: row columns (snake_case) mixed with computed keys."""

    id: str
    content: str
    content_length: int | None = Field(None, alias="content_length")
    truncated: bool | None = None
    score: float | None = None
    source: str | None = None
    source_id: str | None = Field(None, alias="source_id")
    session_id: str | None = Field(None, alias="session_id")
    type: str | None = None
    tags: Tags = None
    pinned: bool | None = None
    importance: float | None = None
    who: str | None = None
    project: str | None = None
    created_at: str | None = Field(None, alias="created_at")
    supplementary: bool | None = None
    # 0.145 on: where the memory came from, and whether this session saw it already.
    source_path: str | None = Field(None, alias="source_path")
    already_recalled: bool | None = Field(None, alias="already_recalled")
    visibility: str | None = None
    scope: str | None = None
    # 0.145's temporal rows (``id`` ``temporal:<subject_type>:<subject_id>:<facet>``).
    temporal_facet: str | None = Field(None, alias="temporal_facet")
    temporal_start_at: str | None = Field(None, alias="temporal_start_at")
    temporal_end_at: str | None = Field(None, alias="temporal_end_at")
    subject_type: str | None = Field(None, alias="subject_type")
    subject_id: str | None = Field(None, alias="subject_id")


class RecallDedupe(ResponseModel):
    """0.145's per-session recall dedupe: rows this session already saw are held back.

    ``suppressed`` were left out; ``repeatedReturned`` came back marked
    ``already_recalled`` (``includeRecalled``). ``contextEpoch`` advances at
    each compaction-complete, which lets earlier rows through again.
    """

    enabled: bool | None = None
    context_epoch: int | None = None
    suppressed: int | None = None
    repeated_returned: int | None = None


class RecallMeta(ResponseModel):
    """``noHits`` tells "nothing matched" apart from a failed search.

    0.145 adds ``timings``, ``dedupe`` and, for a question about a time
    (``time`` or "what happened yesterday"), ``temporal``.
    """

    total_returned: int | None = None
    has_supplementary: bool | None = None
    no_hits: bool | None = None
    timings: dict[str, Any] | None = None
    dedupe: RecallDedupe | None = None
    temporal: dict[str, Any] | None = None


class RecallAggregate(ResponseModel):
    """0.145's ``aggregate: true`` answer: one synthesised memory over many recalls.

    ``stoppedReason`` is ``complete``, ``no_evidence``, ``router_unavailable``
    or ``synthesis_failed`` (typed ``str``: newer daemons may add reasons).
    """

    saved_memory_id: str | None = None
    saved: bool | None = None
    deduped: bool | None = None
    budget: str | None = None
    queries: list[str] | None = None
    source_memory_ids: list[str] | None = None
    stopped_reason: str | None = None
    usage: dict[str, Any] | None = None


class _RecallBody(ResponseModel):
    query: str | None = None
    method: str | None = None
    meta: RecallMeta | None = None
    entities: list[Any] | None = None
    sources: dict[str, Any] | None = None
    aggregate: RecallAggregate | None = None


class RecallTime(RequestModel):
    """A recall's time window (0.145 on): ISO ``start``/``end``, which facets, how to use it.

    ``mode`` ``timeline`` orders what happened in the window, ``filter``
    keeps only rows inside it, ``auto`` lets the daemon choose.
    """

    start: str | None = None
    end: str | None = None
    facets: list[str] | None = None
    mode: Literal["auto", "timeline", "filter"] | None = None


class MemoryRecallRequest(RequestModel):
    """Spread straight into the search parameters, so the names are the daemon's.

    ``importance_min`` is snake_case on the wire; ``project`` is replaced by
    the token's project scope when there is one. Daemons newer than 0.145.8
    drop results scoring under ``minScore`` (NicholaiVogel/signetai
    platform/daemon/src/routes/memory-routes.ts@c533a472, ``POST
    /api/memory/recall``: ``applyRecallScoreThreshold``); ``sourceOnly`` is a
    field of upstream's recall-request contract (Signet-AI/signetai
    platform/core/contracts/recall-request-v1.json@84ef5770). Older daemons
    ignore both. :meth:`from_intent` builds a request the way that contract
    says every client does.
    """

    query: NonBlankStr
    keyword_query: str | None = None
    limit: int | None = None
    agent_id: str | None = None
    type: str | None = None
    tags: str | None = None
    who: str | None = None
    since: str | None = None
    until: str | None = None
    pinned: bool | None = None
    importance_min: float | None = Field(None, alias="importance_min")
    scope: str | None = None
    expand: bool | None = None
    project: str | None = None
    # 0.145 on (0.109 ignores them):
    aggregate: bool | None = None
    aggregate_budget: Literal["small", "medium", "large"] | None = None
    save_aggregate: bool | None = None
    time: RecallTime | None = None
    include_recalled: bool | None = None
    session_key: str | None = None
    # Daemons newer than 0.145.8 (0.145.8 and older ignore them):
    min_score: float | None = None
    source_only: bool | None = None

    @classmethod
    def from_intent(
        cls,
        query: str,
        options: Mapping[str, Any] | None = None,
        *,
        context_agent_id: str | None = None,
    ) -> MemoryRecallRequest:
        """A request from a recall intent, normalised as upstream's cross-client contract says.

        ``options`` use wire or Python names. ``limit`` defaults to 10, drops
        its fraction and is held to 1..100; ``pinned``, ``expand``,
        ``includeRecalled``, ``sourceOnly`` and ``aggregate`` are left out when
        false, ``saveAggregate: false`` is kept; ``contextAgentId`` (or
        ``context_agent_id``) is the agent of the caller's context, sent as
        ``agentId`` only when no ``agentId`` was given. Anything else is
        validated as the constructor validates it, naming a wrong field.
        """
        from ._recall_intent import recall_request_body

        return cls.model_validate(recall_request_body(cls, query, options or {}, context_agent_id))


class MemoryRecallResult(_RecallBody):
    """The search answer; a reply without ``results`` breaks the contract."""

    results: list[RecallHit]


class RecallParams(RequestModel):
    """Hook recall takes only these filters (no ``pinned``/``importance_min``/``scope``).

    TS 0.109 takes the agent from ``x-signet-agent-id`` and ignores body
    ``agentId``; newer daemons read it, and ``aggregate*`` and
    ``includeRecalled``, which TS 0.109 ignores.
    """

    query: NonEmptyStr
    keyword_query: str | None = None
    #: The daemon hands it to SQL as a JavaScript number: past 2**53 it is not the
    #: number sent, and past SQLite's 64 bits the recall fails (a 500).
    limit: int | None = Field(None, ge=-(2**53 - 1), le=2**53 - 1)
    project: str | None = None
    type: str | None = None
    tags: str | None = None
    who: str | None = None
    since: str | None = None
    until: str | None = None
    expand: bool | None = None
    session_key: str | None = None
    agent_id: str | None = None
    aggregate: bool | None = None
    aggregate_budget: Literal["small", "medium", "large"] | None = None
    save_aggregate: bool | None = None
    time: RecallTime | None = None
    include_recalled: bool | None = None


class RecallRequest(RecallParams, HookWire):
    """The hook recall wire body."""


class RecallResult(_RecallBody, HookResult):
    """The memory recall answer plus ``memories`` (= results), ``count`` and ``message``.

    ``results`` defaults to empty because older daemons answer internal and
    bypassed calls with ``{memories: [], count: 0}`` only.
    """

    results: list[RecallHit] = Field(default_factory=list)
    memories: list[RecallHit] | None = None
    count: int | None = None
    message: str | None = None


# -- remember ----------------------------------------------------------------


class _RememberFields(RequestModel):
    content: NonBlankStr
    who: str | None = None
    project: str | None = None
    importance: float | None = None
    tags: Tags = None
    pinned: bool | None = None
    source_type: str | None = None
    source_id: str | None = None
    created_at: str | None = None
    scope: str | None = None
    agent_id: str | None = None
    visibility: Literal["private", "global"] | None = None
    hints: list[str] | None = None
    transcript: str | None = None
    structured: JsonObject | None = None
    # 0.145 on (0.109 ignores them): when the fact held, where it came from,
    # and a key that makes a resend store nothing new.
    occurred_at: str | None = None
    observed_at: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    source_created_at: str | None = None
    source_path: str | None = None
    idempotency_key: str | None = None
    metadata: JsonObject | None = None
    # Daemons newer than 0.145.8 (NicholaiVogel/signetai
    # platform/daemon/src/routes/memory-routes.ts@c533a472, POST /api/memory/remember):
    # when the fact is due for review, and the memory this one replaces (with why).
    review_after: str | None = None
    supersedes: str | None = None
    reason: str | None = None


class MemoryRememberRequest(_RememberFields):
    """The fields ``/api/memory/remember`` acts on; all camelCase, unlike the rows.

    ``(sourceType, sourceId)`` within ``scope`` is the de-duplication key, and
    ``transcript`` is stored only when ``sourceId`` is set. 0.145 also
    de-duplicates on ``idempotencyKey`` and checks the temporal fields are ISO
    timestamps (``validUntil`` after ``validFrom``), a 400 naming the field.
    Daemons newer than 0.145.8 (memory-routes.ts@c533a472) keep what is
    remembered as evidence whose content and type a later PATCH may not change
    (409 ``episodic_content_immutable``), and turn a ninth concurrent capture
    away with 503 ``Too many concurrent memory captures (max 8)``.
    """


class RememberParams(_RememberFields):
    """The hook forwards the whole body, so the memory fields all apply.

    ``sessionKey`` only feeds the conflict and bypass checks.
    ``idempotencyKey`` is honoured by the Rust and March daemons, ignored by
    TS 0.109 (a harmless hint); ``type`` is ignored (it is inferred).
    """

    session_key: str | None = None
    type: str | None = None


class RememberRequest(RememberParams, HookWire):
    """The hook remember wire body."""


class RememberResult(HookResult):
    """Every success shape in one model: new row, ``deduped``, ``chunked``, ``{saved, id}``.

    The no-op answers are ``{success: true, memories: []}`` plus flags.
    """

    id: str | None = None
    type: str | None = None
    tags: Tags = None
    pinned: bool | None = None
    importance: float | None = None
    content: str | None = None
    embedded: bool | None = None
    entities_linked: int | None = Field(None, alias="entities_linked")
    hints_written: int | None = Field(None, alias="hints_written")
    structured: bool | None = None
    deduped: bool | None = None
    chunked: bool | None = None
    chunk_count: int | None = Field(None, alias="chunk_count")
    ids: list[str] | None = None
    group_id: str | None = Field(None, alias="group_id")
    saved: bool | None = None
    success: bool | None = None
    memories: list[Any] | None = None
    #: Daemons newer than 0.145.8: what became of the memory ``supersedes`` named
    #: (``superseded`` or ``already_superseded``; memory-routes.ts@c533a472).
    superseded: str | None = None


# -- get ---------------------------------------------------------------------


class MemoryRecord(ResponseModel):
    """The raw database row: snake_case columns, and booleans as 0/1 integers.

    ``sessionId`` (camelCase) is derived by the route: ``session_id``, or
    ``source_id`` for session-sourced rows.
    """

    id: str
    content: str
    type: str | None = None
    importance: float | None = None
    tags: Tags = None
    pinned: int | None = None
    who: str | None = None
    source_id: str | None = Field(None, alias="source_id")
    source_type: str | None = Field(None, alias="source_type")
    project: str | None = None
    session_id: str | None = Field(None, alias="session_id")
    confidence: float | None = None
    access_count: int | None = Field(None, alias="access_count")
    last_accessed: str | None = Field(None, alias="last_accessed")
    is_deleted: int | None = Field(None, alias="is_deleted")
    deleted_at: str | None = Field(None, alias="deleted_at")
    extraction_status: str | None = Field(None, alias="extraction_status")
    embedding_model: str | None = Field(None, alias="embedding_model")
    version: int | None = None
    created_at: str | None = Field(None, alias="created_at")
    updated_at: str | None = Field(None, alias="updated_at")
    updated_by: str | None = Field(None, alias="updated_by")
    derived_session_id: str | None = Field(None, alias="sessionId")

    @property
    def is_pinned(self) -> bool:
        return bool(self.pinned)


# -- modify ------------------------------------------------------------------

_CHANGE_FIELDS = ("content", "type", "tags", "importance", "pinned")


class _Change(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={"anyOf": [{"required": [name]} for name in _CHANGE_FIELDS]}
    )

    content: NonBlankStr | None = None
    type: NonEmptyStr | None = None
    tags: Tags = None
    importance: float | None = Field(None, ge=0, le=1)
    pinned: bool | None = None

    @model_validator(mode="after")
    def _changes_something(self) -> _Change:
        # ``tags=None`` is a real change (it clears them); other fields must carry a value.
        changed = "tags" in self.model_fields_set or any(
            getattr(self, name) is not None for name in _CHANGE_FIELDS if name != "tags"
        )
        if not changed:
            raise ValueError(f"at least one of {', '.join(_CHANGE_FIELDS)} is required")
        return self


class ModifyMemoryRequest(_Change):
    """``PATCH /api/memory/:id``; ``reason`` is mandatory for the audit trail.

    ``if_version`` makes the change conditional on the row's version;
    ``changed_by`` names the actor when there is no token or ``x-signet-actor``.
    On daemons newer than 0.145.8 a memory saved through remember keeps its
    ``content`` and ``type``: changing either is a 409 whose ``status`` is
    ``episodic_content_immutable`` (NicholaiVogel/signetai
    platform/daemon/src/routes/memory-routes.ts@c533a472), raised as a
    ``ConflictError`` with that ``code``; tags, importance and pinned still change.
    """

    reason: NonEmptyStr
    if_version: PositiveInt | None = Field(None, alias="if_version")
    changed_by: str | None = Field(None, alias="changed_by")


class _RowOutcome(ResponseModel):
    """What a change did to one memory: its ``status``, the row's version as found
    (``currentVersion``) and, when the change was written, the version it made."""

    id: str
    status: str
    current_version: int | None = None
    new_version: int | None = None


class ModifyMemoryResult(_RowOutcome):
    """``status`` is ``updated`` or ``no_changes`` on a 200 (other values are errors)."""

    content_changed: bool | None = None
    embedded: bool | None = None
    duplicate_memory_id: str | None = None
    error: str | None = None


class MemoryPatch(_Change):
    """One item of a batch modify; ``reason`` falls back to the batch's."""

    id: NonEmptyStr
    reason: str | None = None
    if_version: PositiveInt | None = Field(None, alias="if_version")


class BatchModifyRequest(RequestModel):
    """``POST /api/memory/modify``: at most 200 patches, each judged on its own."""

    patches: list[MemoryPatch] = Field(min_length=1, max_length=200)
    reason: str | None = None
    changed_by: str | None = Field(None, alias="changed_by")


class BatchModifyItem(ResponseModel):
    """Per-item failures arrive here inside the 200, as ``status``/``error``.

    Newer daemons add ``episodic_content_immutable`` to the statuses (the
    same refusal a single PATCH answers with 409; memory-routes.ts@c533a472).
    """

    id: str | None = None
    status: str
    error: str | None = None
    current_version: int | None = None
    new_version: int | None = None
    duplicate_memory_id: str | None = None
    content_changed: bool | None = None
    embedded: bool | None = None


class BatchModifyResult(ResponseModel):
    """Check each item's ``status``: a 200 does not mean every patch applied."""

    results: list[BatchModifyItem]
    total: int | None = None
    updated: int | None = None


# -- forget ------------------------------------------------------------------


class ForgetMemoryRequest(RequestModel):
    """``DELETE /api/memory/:id``; a pinned memory needs ``force``. Deletes are soft."""

    reason: NonEmptyStr
    force: bool | None = None
    if_version: PositiveInt | None = Field(None, alias="if_version")
    changed_by: str | None = Field(None, alias="changed_by")


class ForgetMemoryResult(_RowOutcome):
    """``status: "deleted"`` on a 200."""


_FORGET_FILTERS = ("type", "tags", "who", "since", "until", "scope", "source_type")


class BatchForgetRequest(RequestModel):
    """``POST /api/memory/forget``: preview first, then execute with the same selection.

    An execute over 25 candidates needs the preview's ``confirmToken`` as
    ``confirm_token``. ``if_version`` is refused on this route (use the
    single delete), so it is not a field here.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [{"required": [name]} for name in ("ids", "query", *_FORGET_FILTERS)],
            "if": {"properties": {"mode": {"const": "execute"}}, "required": ["mode"]},
            "then": {"required": ["reason"]},
        }
    )

    mode: Literal["preview", "execute"] | None = None
    ids: list[NonEmptyStr] | None = None
    query: str | None = None
    type: str | None = None
    tags: str | None = None
    who: str | None = None
    since: str | None = None
    until: str | None = None
    scope: str | None = None
    source_type: str | None = Field(None, alias="source_type")
    limit: int | None = Field(None, ge=1, le=200)
    reason: str | None = None
    force: bool | None = None
    confirm_token: str | None = Field(None, alias="confirm_token")
    changed_by: str | None = Field(None, alias="changed_by")

    @model_validator(mode="after")
    def _selects_something(self) -> BatchForgetRequest:
        has_filter = any(getattr(self, name) is not None for name in _FORGET_FILTERS)
        if not (self.ids or self.query or has_filter):
            raise ValueError(f"ids, query or one of {', '.join(_FORGET_FILTERS)} is required")
        if self.mode == "execute" and not self.reason:
            raise ValueError("reason is required when mode is execute")
        return self


class ForgetCandidate(ResponseModel):
    """A row a preview would delete; ``score`` is rounded to 3 decimals."""

    id: str
    score: float | None = None
    pinned: bool | None = None
    version: int | None = None


class ForgetItem(_RowOutcome):
    """What an execute did to one row."""


class BatchForgetResult(ResponseModel):
    """Both answers: preview (``count``, ``confirmToken``, ``candidates``) and
    execute (``requested``, ``deleted``, ``results``), told apart by ``mode``."""

    mode: str
    count: int | None = None
    requires_confirm: bool | None = None
    confirm_token: str | None = None
    candidates: list[ForgetCandidate] | None = None
    requested: int | None = None
    deleted: int | None = None
    results: list[ForgetItem] | None = None
