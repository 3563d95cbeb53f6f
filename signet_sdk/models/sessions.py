"""Bodies of the ``/api/sessions*`` routes.

Session listings come from the daemon's in-memory claim tracker, so they
forget everything on a restart. Summary rows are raw database rows
(snake_case columns plus a camelCase ``childCount``), while the expand
route rebuilds its nodes in camelCase: two models over one list of
columns, apart only in their wire names.
"""

from __future__ import annotations

from pydantic import ConfigDict, Field, StrictBool
from pydantic.alias_generators import to_camel

from ._base import RequestModel, ResponseModel
from .field_types import NonBlankStr

__all__ = [
    "ExpandedTranscript",
    "LinkedMemory",
    "SessionBypassRequest",
    "SessionBypassResult",
    "SessionInfo",
    "SessionList",
    "SessionRenewResult",
    "SessionSearchHit",
    "SessionSearchRequest",
    "SessionSearchResult",
    "SessionSummaryList",
    "SessionSummaryRow",
    "SessionTranscript",
    "SummaryExpandRequest",
    "SummaryExpandResult",
    "SummaryNode",
]


class SessionInfo(ResponseModel):
    """A live session; ``expiresAt`` is null when only a presence row knows it."""

    key: str
    agent_id: str | None = None
    runtime_path: str | None = None
    claimed_at: str | None = None
    expires_at: str | None = None
    bypassed: bool | None = None


class SessionList(ResponseModel):
    """Newest claim first; scoped to one agent (query ``agent_id``)."""

    sessions: list[SessionInfo]
    count: int | None = None


class SessionTranscript(ResponseModel):
    """The stored, cleaned transcript (newer daemons only; TS 0.109 answers 404)."""

    content: str
    session_key: str | None = None
    agent_id: str | None = None


class SessionSearchRequest(RequestModel):
    """Full-text search over stored transcripts (newer daemons only).

    ``limit`` is clamped to 1..20 by the daemon; out-of-range values are
    refused here instead of silently changed.
    """

    query: NonBlankStr
    agent_id: str | None = None
    current_session_key: str | None = None
    session_key: str | None = None
    project: str | None = None
    limit: int | None = Field(None, ge=1, le=20)


class SessionSearchHit(ResponseModel):
    """One matching session and the excerpt that matched."""

    session_key: str
    project: str | None = None
    updated_at: str | None = None
    excerpt: str | None = None
    rank: float | None = None


class SessionSearchResult(ResponseModel):
    """Hits ranked best first."""

    hits: list[SessionSearchHit]
    query: str | None = None
    count: int | None = None


class _SummaryColumns(ResponseModel):
    """The columns of a ``session_summaries`` row, which both summary shapes carry."""

    id: str
    project: str | None = None
    depth: int | None = None
    kind: str | None = None
    content: str | None = None
    token_count: int | None = None
    earliest_at: str | None = None
    latest_at: str | None = None
    session_key: str | None = None
    harness: str | None = None
    agent_id: str | None = None
    source_type: str | None = None
    source_ref: str | None = None
    meta_json: str | None = None
    created_at: str | None = None


def _row_key(field: str) -> str:
    """A column keeps its own (snake_case) name; a key the route adds is camelCase."""
    return field if field in _SummaryColumns.model_fields else to_camel(field)


class SessionSummaryRow(_SummaryColumns):
    """A raw ``session_summaries`` row: snake_case columns, camelCase ``childCount``."""

    model_config = ConfigDict(alias_generator=_row_key)

    child_count: int | None = None


class SessionSummaryList(ResponseModel):
    """Newest first; ``total`` (absent from older docs) counts all matching rows."""

    summaries: list[SessionSummaryRow]
    total: int | None = None


class SummaryExpandRequest(RequestModel):
    """``transcriptCharLimit`` is clamped by the daemon (at most 12000)."""

    id: NonBlankStr
    include_transcript: bool | None = None
    transcript_char_limit: int | None = None
    agent_id: str | None = None
    session_key: str | None = None


class SummaryNode(_SummaryColumns):
    """A summary node as the expand route rebuilds it: every key camelCase."""


class LinkedMemory(ResponseModel):
    """A memory tied to the node; ``deleted`` ones are listed, not hidden."""

    id: str
    content: str | None = None
    type: str | None = None
    created_at: str | None = None
    deleted: bool | None = None


class ExpandedTranscript(ResponseModel):
    """The session transcript behind a node; ``content`` only when asked for."""

    session_key: str | None = None
    harness: str | None = None
    project: str | None = None
    updated_at: str | None = None
    excerpt: str | None = None
    content: str | None = None


class SummaryExpandResult(ResponseModel):
    """A node with its neighbours; at most 25 linked memories."""

    node: SummaryNode
    parents: list[SummaryNode] = Field(default_factory=list)
    children: list[SummaryNode] = Field(default_factory=list)
    linked_memories: list[LinkedMemory] = Field(default_factory=list)
    transcript: ExpandedTranscript | None = None


class SessionBypassRequest(RequestModel):
    """The daemon wants a real JSON boolean: ``"true"`` and ``1`` are 400s."""

    enabled: StrictBool


class SessionBypassResult(ResponseModel):
    """``key`` comes back normalized (no ``session:`` prefix)."""

    key: str
    bypassed: bool


class SessionRenewResult(ResponseModel):
    """A renewal pushes the claim (and any bypass) 4 h out."""

    key: str
    renewed: bool | None = None
    expires_at: str | None = None
