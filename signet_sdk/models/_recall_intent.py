"""Upstream's recall-request contract: how a recall intent becomes the body sent.

Signet-AI/signetai platform/core/contracts/recall-request-v1.json@84ef5770
pins, as test vectors every first-party client passes, how a query plus
options turns into the ``POST /api/memory/recall`` body: a default ``limit``
of 10, a fractional limit truncated, the limit held to 1..100, false flags
left out (the daemon reads an absent flag as false), ``saveAggregate: false``
kept (absent means "save"), and the caller's context agent used only when no
``agentId`` was given. :meth:`MemoryRecallRequest.from_intent` applies it;
the model validates what comes out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "recall_request_body"]

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
#: Flags whose ``false`` says nothing the daemon would not assume: never sent.
_DROPPED_WHEN_FALSE = frozenset({"pinned", "expand", "includeRecalled", "sourceOnly", "aggregate"})
_CONTEXT_AGENT = ("contextAgentId", "context_agent_id")


def _wire_names(model: type[BaseModel]) -> dict[str, str]:
    """Python name or wire name -> wire name, for every field of ``model``."""
    names: dict[str, str] = {}
    for name, info in model.model_fields.items():
        wire = info.alias or name
        names[name] = names[wire] = wire
    return names


def _limit(value: Any) -> Any:
    """The contract's limit; a value that is no number is left for the model to refuse."""
    if value is None:
        return DEFAULT_LIMIT
    if isinstance(value, bool):
        # The model would read True as 1: a flag where a count belongs is a mistake to name.
        raise ValidationError.from_exception_data(
            "MemoryRecallRequest", [{"type": "int_type", "loc": ("limit",), "input": value}]
        )
    if not isinstance(value, int | float):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return DEFAULT_LIMIT
    return max(1, min(MAX_LIMIT, int(value)))  # int() truncates toward zero, as Math.trunc


def recall_request_body(
    model: type[BaseModel],
    query: str,
    options: Mapping[str, Any],
    context_agent_id: str | None,
) -> dict[str, Any]:
    """The wire body for ``query`` and ``options`` under the contract (not yet validated)."""
    names = _wire_names(model)
    body: dict[str, Any] = {"query": query}
    context_agent = context_agent_id
    for key, value in options.items():
        if key in _CONTEXT_AGENT:
            context_agent = value if value is not None else context_agent
            continue
        wire = names.get(key, key)  # an unknown name stays, for the model to name it
        if wire == "query":
            continue  # the intent's query is the one argument, never an option
        if value is None or (value is False and wire in _DROPPED_WHEN_FALSE):
            continue
        body[wire] = value
    body["limit"] = _limit(body.get("limit"))
    if "agentId" not in body and context_agent is not None:
        body["agentId"] = context_agent
    return body
