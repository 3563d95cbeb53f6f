"""Bodies of the MEMORY.md synthesis routes (``/api/hooks/synthesis*``).

These sit under ``/api/hooks`` but are not session hooks: the daemon reads
no ``harness`` or ``runtimePath`` and never answers them with a bypass or
skip no-op, so their results carry no "did nothing" flags.
"""

from __future__ import annotations

from typing import Any, Literal

from ._base import RequestModel, ResponseModel
from .field_types import NonEmptyStr

__all__ = [
    "SynthesisCompleteRequest",
    "SynthesisCompleteResult",
    "SynthesisConfig",
    "SynthesisRequest",
    "SynthesisResult",
]


class SynthesisConfig(ResponseModel):
    """The daemon's resolved ``memory.pipelineV2.synthesis`` block.

    ``provider`` is a closed set today, typed ``str`` so a new provider does
    not break an older client.
    """

    enabled: bool
    provider: str | None = None
    model: str | None = None
    endpoint: str | None = None
    timeout: int | None = None
    max_tokens: int | None = None
    idle_gap_minutes: int | None = None
    structured_output: bool | None = None
    rate_limit: dict[str, Any] | None = None


class SynthesisRequest(RequestModel):
    """Send at least ``{}``: an empty body is a 500. ``trigger`` is only logged."""

    trigger: Literal["scheduled", "manual"] | None = None
    agent_id: str | None = None
    session_key: str | None = None


class SynthesisResult(ResponseModel):
    """The rendered MEMORY.md as ``prompt``; the daemon writes nothing to disk here."""

    prompt: str
    harness: str | None = None
    model: str | None = None
    file_count: int | None = None
    index_block: str | None = None


class SynthesisCompleteRequest(RequestModel):
    """The MEMORY.md text to store for the agent (retired, 410, in later daemons)."""

    content: NonEmptyStr
    agent_id: str | None = None
    session_key: str | None = None


class SynthesisCompleteResult(ResponseModel):
    """``{success: true}`` once MEMORY.md is written."""

    success: bool
