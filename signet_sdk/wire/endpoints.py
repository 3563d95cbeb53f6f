# long module: the route table is one piece of data; split, it would not read as the map
"""The endpoint map: every daemon route the SDK speaks, as data.

One table drives the clients, the stdlib hook transport, the mock daemon and
the parity suite, so they cannot disagree about a method, a path or whether a
call may be repeated. ``contract/endpoints.json`` is generated from it, and a
check in the test command fails when the two drift apart.

This module is imported on the hook hot path: standard library only.
"""

from __future__ import annotations

from signet_sdk.wire.record import KW_ONLY, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    Phase: TypeAlias = Literal["lifecycle", "memory", "session", "synthesis", "secrets", "ops"]
    Conflict: TypeAlias = Literal["409", "skip", "none"]
    TimeoutClass: TypeAlias = Literal[
        "session_start", "prompt_submit", "default", "write", "stream"
    ]

__all__ = [
    "AFTER_NEWEST_TESTED",
    "BASELINE_VERSION",
    "DEPENDENCY_MAP_ROWS",
    "ENDPOINTS",
    "NEWER_ENDPOINTS",
    "Endpoint",
    "endpoint",
    "endpoint_for_row",
]


#: The oldest daemon release the SDK supports; a route without ``since`` has
#: been there at least as long.
BASELINE_VERSION = "0.109.15"

#: ``since`` of a route no tested daemon serves: the release after the newest
#: tested one (0.145.8). Its true first release is not known here, only that
#: 0.145.8 lacks it, so a 404 from 0.145.8 or older says "too old".
AFTER_NEWEST_TESTED = "0.145.9"


class Endpoint(Record):
    """One daemon route and everything a caller must know before sending to it.

    ``retry_safe`` is true only where repeating the request cannot change what
    the daemon stores: a retried write could store a memory twice, and a
    retried session-start returns the repeat stub instead of the inject.
    ``conflict`` says how TS 0.109 answers when the other runtime path owns
    the session: ``"409"``, a ``"skip"`` 200 body, or ``"none"`` (no claim).
    ``since`` is the oldest supported daemon release known to serve the
    route: an older one answers 404, which the clients turn into
    ``UnsupportedByDaemonError``.
    """

    name: str
    method: str
    path: str
    phase: Phase
    request: str | None
    response: str
    retry_safe: bool
    conflict: Conflict
    timeout: TimeoutClass
    _: KW_ONLY
    row: str | None = None
    hook: bool = False
    summary: str = ""
    since: str = BASELINE_VERSION

    @property
    def writes(self) -> bool:
        """Whether the route stores or changes what the user keeps (its deadline class is
        ``write``): it is never sent again, nor on a kept-alive connection."""
        return self.timeout == "write"

    @property
    def path_params(self) -> tuple[str, ...]:
        """Names of the ``{placeholders}`` in the path, in order."""
        out: list[str] = []
        rest = self.path
        while "{" in rest:
            start = rest.index("{")
            end = rest.index("}", start)
            out.append(rest[start + 1 : end])
            rest = rest[end + 1 :]
        return tuple(out)

    @property
    def sends_runtime_path(self) -> bool:
        """Session hooks read ``x-signet-runtime-path``; synthesis routes do not."""
        return self.hook and self.phase != "synthesis"


ENDPOINTS: tuple[Endpoint, ...] = (
    # -- lifecycle hooks -------------------------------------------------
    Endpoint(
        "session_start",
        "POST",
        "/api/hooks/session-start",
        "lifecycle",
        "SessionStartRequest",
        "SessionStartResult",
        False,
        "409",
        "session_start",
        row="session-start",
        hook=True,
        summary="Inject identity and memories.",
    ),
    Endpoint(
        "user_prompt_submit",
        "POST",
        "/api/hooks/user-prompt-submit",
        "lifecycle",
        "UserPromptSubmitRequest",
        "UserPromptSubmitResult",
        False,
        "skip",
        "prompt_submit",
        row="prompt-submit",
        hook=True,
        summary="Per-turn context for the prompt.",
    ),
    Endpoint(
        "session_end",
        "POST",
        "/api/hooks/session-end",
        "lifecycle",
        "SessionEndRequest",
        "SessionEndResult",
        False,
        "skip",
        "write",
        row="session-end",
        hook=True,
        summary="Persist the transcript, queue extraction.",
    ),
    Endpoint(
        "session_checkpoint_extract",
        "POST",
        "/api/hooks/session-checkpoint-extract",
        "lifecycle",
        "CheckpointExtractRequest",
        "CheckpointExtractResult",
        False,
        "skip",
        "write",
        hook=True,
        summary="Mid-session extraction of the transcript delta.",
    ),
    Endpoint(
        "pre_compaction",
        "POST",
        "/api/hooks/pre-compaction",
        "lifecycle",
        "PreCompactionRequest",
        "PreCompactionResult",
        False,
        "skip",
        "default",
        row="pre-compaction",
        hook=True,
        summary="Summary prompt before compaction.",
    ),
    Endpoint(
        "compaction_complete",
        "POST",
        "/api/hooks/compaction-complete",
        "lifecycle",
        "CompactionCompleteRequest",
        "CompactionCompleteResult",
        False,
        "skip",
        "write",
        row="compaction-complete",
        hook=True,
        summary="Store the compaction summary.",
    ),
    Endpoint(
        "remember",
        "POST",
        "/api/hooks/remember",
        "memory",
        "RememberRequest",
        "RememberResult",
        False,
        "409",
        "write",
        row="memory-store",
        hook=True,
        summary="Store a memory (proxied to memory/remember).",
    ),
    Endpoint(
        "recall",
        "POST",
        "/api/hooks/recall",
        "memory",
        "RecallRequest",
        "RecallResult",
        True,
        "409",
        "default",
        hook=True,
        summary="Hybrid recall for a harness.",
    ),
    # -- synthesis -------------------------------------------------------
    Endpoint(
        "synthesis_config",
        "GET",
        "/api/hooks/synthesis/config",
        "synthesis",
        None,
        "SynthesisConfig",
        True,
        "none",
        "default",
        hook=True,
    ),
    Endpoint(
        "synthesis_request",
        "POST",
        "/api/hooks/synthesis",
        "synthesis",
        "SynthesisRequest",
        "SynthesisResult",
        True,
        "none",
        "default",
        hook=True,
    ),
    Endpoint(
        "synthesis_complete",
        "POST",
        "/api/hooks/synthesis/complete",
        "synthesis",
        "SynthesisCompleteRequest",
        "SynthesisCompleteResult",
        False,
        "none",
        "write",
        hook=True,
    ),
    # -- sessions --------------------------------------------------------
    Endpoint(
        "list_sessions",
        "GET",
        "/api/sessions",
        "session",
        None,
        "SessionList",
        True,
        "none",
        "default",
    ),
    Endpoint(
        "get_session",
        "GET",
        "/api/sessions/{key}",
        "session",
        None,
        "SessionInfo",
        True,
        "none",
        "default",
    ),
    Endpoint(
        "get_session_transcript",
        "GET",
        "/api/sessions/{key}/transcript",
        "session",
        None,
        "SessionTranscript",
        True,
        "none",
        "default",
        since="0.145.8",
    ),
    Endpoint(
        "search_sessions",
        "POST",
        "/api/sessions/search",
        "session",
        "SessionSearchRequest",
        "SessionSearchResult",
        True,
        "none",
        "default",
        since="0.145.8",
    ),
    Endpoint(
        "list_session_summaries",
        "GET",
        "/api/sessions/summaries",
        "session",
        None,
        "SessionSummaryList",
        True,
        "none",
        "default",
    ),
    Endpoint(
        "expand_session_summary",
        "POST",
        "/api/sessions/summaries/expand",
        "session",
        "SummaryExpandRequest",
        "SummaryExpandResult",
        True,
        "none",
        "default",
    ),
    Endpoint(
        "set_session_bypass",
        "POST",
        "/api/sessions/{key}/bypass",
        "session",
        "SessionBypassRequest",
        "SessionBypassResult",
        True,
        "none",
        "default",
    ),
    Endpoint(
        "renew_session",
        "POST",
        "/api/sessions/{key}/renew",
        "session",
        None,
        "SessionRenewResult",
        True,
        "none",
        "default",
    ),
    # -- memory ----------------------------------------------------------
    Endpoint(
        "memory_recall",
        "POST",
        "/api/memory/recall",
        "memory",
        "MemoryRecallRequest",
        "MemoryRecallResult",
        True,
        "none",
        "default",
        row="memory-search",
    ),
    Endpoint(
        "memory_remember",
        "POST",
        "/api/memory/remember",
        "memory",
        "MemoryRememberRequest",
        "RememberResult",
        False,
        "none",
        "write",
    ),
    Endpoint(
        "get_memory",
        "GET",
        "/api/memory/{id}",
        "memory",
        None,
        "MemoryRecord",
        True,
        "none",
        "default",
        row="memory-get",
    ),
    Endpoint(
        "modify_memory",
        "PATCH",
        "/api/memory/{id}",
        "memory",
        "ModifyMemoryRequest",
        "ModifyMemoryResult",
        False,
        "none",
        "write",
        row="memory-modify",
    ),
    Endpoint(
        "modify_memories",
        "POST",
        "/api/memory/modify",
        "memory",
        "BatchModifyRequest",
        "BatchModifyResult",
        False,
        "none",
        "write",
    ),
    Endpoint(
        "forget_memory",
        "DELETE",
        "/api/memory/{id}",
        "memory",
        "ForgetMemoryRequest",
        "ForgetMemoryResult",
        False,
        "none",
        "write",
        row="memory-forget",
    ),
    Endpoint(
        "forget_memories",
        "POST",
        "/api/memory/forget",
        "memory",
        "BatchForgetRequest",
        "BatchForgetResult",
        False,
        "none",
        "write",
    ),
    # -- secrets, health, logs -------------------------------------------
    Endpoint(
        "secrets_exec",
        "POST",
        "/api/secrets/exec",
        "secrets",
        "SecretsExecRequest",
        "SecretsExecJob",
        False,
        "none",
        "write",
        row="secret-injection",
        summary="Run a command with secrets injected: 0.109 answers the result, 0.145 a job (202).",
    ),
    Endpoint(
        "secrets_exec_status",
        "GET",
        "/api/secrets/exec/{jobId}",
        "secrets",
        None,
        "SecretsExecJob",
        True,
        "none",
        "default",
        summary="Poll a secrets exec job until it is completed or failed.",
        since="0.145.8",
    ),
    Endpoint(
        "health",
        "GET",
        "/health",
        "ops",
        None,
        "HealthStatus",
        True,
        "none",
        "default",
        row="health",
    ),
    Endpoint("logs", "GET", "/api/logs", "ops", None, "LogList", True, "none", "default"),
    Endpoint(
        "logs_stream", "GET", "/api/logs/stream", "ops", None, "LogEntry", True, "none", "stream"
    ),
)

#: Routes only daemons newer than the newest tested release serve, typed from
#: upstream's own source files (no such daemon runs here). They are kept out of
#: ``ENDPOINTS``, the tested contract that the mock daemon serves and
#: ``contract/endpoints.json`` publishes; the clients reach them by name all the same.
NEWER_ENDPOINTS: tuple[Endpoint, ...] = (
    # NicholaiVogel/signetai platform/daemon/src/routes/hooks-routes.ts@0f06b2b9,
    # registerNotifications: {harness, hook, sessionKey?, agentId?, project?} ->
    # {inject, notifications?}; 400 for a hook the harness has no notification
    # point at, 403 off the caller's scope. It stores nothing (a presence touch).
    Endpoint(
        "hook_notifications",
        "POST",
        "/api/hooks/notifications",
        "lifecycle",
        "NotificationsRequest",
        "NotificationsResult",
        True,
        "none",
        "prompt_submit",
        hook=True,
        summary="Unread cross-agent messages to show at a harness hook.",
        since=AFTER_NEWEST_TESTED,
    ),
)

_BY_NAME = {e.name: e for e in (*ENDPOINTS, *NEWER_ENDPOINTS)}

#: The runtime spec's dependency map, in its order: the rows a harness adapter
#: covers for full parity.
DEPENDENCY_MAP_ROWS: tuple[str, ...] = (
    "session-start",
    "prompt-submit",
    "session-end",
    "pre-compaction",
    "compaction-complete",
    "memory-search",
    "memory-store",
    "memory-get",
    "memory-modify",
    "memory-forget",
    "secret-injection",
    "health",
)


def endpoint(name: str) -> Endpoint:
    """Look an endpoint up by name; an unknown name is a programming error."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown endpoint {name!r}; known: {', '.join(sorted(_BY_NAME))}") from None


def endpoint_for_row(row: str) -> Endpoint:
    """The endpoint that serves a dependency-map row."""
    for e in ENDPOINTS:
        if e.row == row:
            return e
    raise KeyError(f"no endpoint serves dependency-map row {row!r}")
