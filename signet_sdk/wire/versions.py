"""Daemon versions: which releases the SDK supports, and comparing two of them.

Signet numbers its releases ``MAJOR.MINOR.PATCH`` (``0.145.8``). A route or
field newer than the oldest supported release says from which one it exists
(``Endpoint.since``, :data:`FIELDS_SINCE`), so a 404 from an older daemon can
be told apart from "not found". Standard library only: ``doctor`` and the
hook path read it.
"""

from __future__ import annotations

__all__ = [
    "FIELDS_SINCE",
    "NEWEST_TESTED",
    "OLDEST_SUPPORTED",
    "TESTED_VERSIONS",
    "older_than",
    "parse_version",
    "support_of",
]

#: The releases the test suite runs against, oldest first.
TESTED_VERSIONS: tuple[str, ...] = ("0.109.15", "0.145.8")
OLDEST_SUPPORTED = TESTED_VERSIONS[0]
NEWEST_TESTED = TESTED_VERSIONS[-1]

#: Model -> wire field -> the oldest supported release that reads (request) or
#: sends (answer) it. An older daemon ignores such a request field and never
#: sends such an answer field; the models accept both.
FIELDS_SINCE: dict[str, dict[str, str]] = {
    "SessionStartRequest": {
        "source": "0.145.8",
        "harnessAgentId": "0.145.8",
        "parentSessionKey": "0.145.8",
    },
    "PreCompactionRequest": {"agentId": "0.145.8"},
    "RememberRequest": {"agentId": "0.145.8"},
    "RecallRequest": {
        "aggregate": "0.145.8",
        "aggregateBudget": "0.145.8",
        "saveAggregate": "0.145.8",
        "time": "0.145.8",
        "includeRecalled": "0.145.8",
        "agentId": "0.145.8",
    },
    "MemoryRememberRequest": {
        "occurredAt": "0.145.8",
        "observedAt": "0.145.8",
        "validFrom": "0.145.8",
        "validUntil": "0.145.8",
        "sourceCreatedAt": "0.145.8",
        "sourcePath": "0.145.8",
        "idempotencyKey": "0.145.8",
        "metadata": "0.145.8",
    },
    "MemoryRecallRequest": {
        "aggregate": "0.145.8",
        "aggregateBudget": "0.145.8",
        "saveAggregate": "0.145.8",
        "time": "0.145.8",
        "includeRecalled": "0.145.8",
        "sessionKey": "0.145.8",
    },
    "SecretsExecRequest": {"timeoutMs": "0.145.8"},
    "CompactionCompleteResult": {"contextEpoch": "0.145.8"},
    "UserPromptSubmitResult": {"engine": "0.145.8"},
    "RecallMeta": {"dedupe": "0.145.8", "temporal": "0.145.8", "timings": "0.145.8"},
    "RecallResult": {"aggregate": "0.145.8"},
    "MemoryRecallResult": {"aggregate": "0.145.8"},
    "RecallHit": {
        "source_path": "0.145.8",
        "already_recalled": "0.145.8",
        "visibility": "0.145.8",
        "scope": "0.145.8",
        "temporal_facet": "0.145.8",
        "temporal_start_at": "0.145.8",
        "temporal_end_at": "0.145.8",
        "subject_type": "0.145.8",
        "subject_id": "0.145.8",
    },
    "SecretsExecJob": {
        "id": "0.145.8",
        "status": "0.145.8",
        "createdAt": "0.145.8",
        "startedAt": "0.145.8",
        "completedAt": "0.145.8",
        "timeoutMs": "0.145.8",
        "result": "0.145.8",
        "error": "0.145.8",
    },
}


def parse_version(text: str) -> tuple[int, ...]:
    """``"0.145.8"`` -> ``(0, 145, 8)``; a suffix (``-beta.1``, ``+build``) is ignored.

    Raises ValueError for text with no leading number.
    """
    core = text.strip().lstrip("v").split("-", 1)[0].split("+", 1)[0]
    parts: list[int] = []
    for piece in core.split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        parts.append(int(digits))
    if not parts:
        raise ValueError(f"not a version: {text!r}")
    return tuple(parts)


def older_than(version: str, other: str) -> bool:
    """True when ``version`` is an older release than ``other`` (unparseable: False)."""
    try:
        return parse_version(version) < parse_version(other)
    except ValueError:
        return False


def support_of(version: str) -> tuple[bool, str]:
    """Whether this SDK supports a daemon ``version``, and a one-line reason."""
    try:
        seen = parse_version(version)
    except ValueError:
        return False, f"cannot read the daemon's version {version!r}"
    tested = ", ".join(TESTED_VERSIONS)
    oldest = parse_version(OLDEST_SUPPORTED)
    if seen[:2] < oldest[:2]:  # a release line is supported as a whole (0.109.x)
        return False, f"older than {OLDEST_SUPPORTED}, the oldest this SDK supports"
    if version in TESTED_VERSIONS:
        return True, f"supported (tested: {tested})"
    if seen > parse_version(NEWEST_TESTED):
        return True, f"newer than {NEWEST_TESTED}, the newest tested; routes may differ in details"
    return True, f"supported (between the tested releases {tested})"
