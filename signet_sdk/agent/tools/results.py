"""Tool results as a model reads them: the content text, and what research left out.

A result's text goes into the conversation and stays there, part of every
later request's prompt: it is rendered once, compactly (no spaces after
separators) and the same way every time, so equal results are equal bytes.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel

from signet_sdk.agent.types import ToolCall, ToolResult

__all__ = ["ResearchResults", "SkippedTool", "render_content"]


def _json_default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, PurePath | uuid.UUID):
        return str(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)  # a set has no order of its own: give it one
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def render_content(value: Any) -> str:
    """A ``str`` as is; anything else compact JSON, keys in the order the tool gave them.

    Pydantic models, dataclasses, dates, enums, paths, UUIDs and sets are
    turned into their JSON form; another type raises ``TypeError``.
    ``ensure_ascii=False`` keeps non-ASCII text readable and short.
    """
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_json_default)


@dataclass(frozen=True, slots=True)
class SkippedTool:
    """A research tool whose result was left out of the turn, and why (one short line)."""

    name: str
    reason: str


class ResearchResults(list[ToolResult]):
    """The results of the research tools that answered in time, in registry order.

    A list of :class:`~signet_sdk.agent.types.ToolResult`, plus ``calls``
    (the :class:`~signet_sdk.agent.types.ToolCall` each result answers,
    in the same order, for a loop that shows research as tool calls) and
    ``skipped``: the tools that failed, ran past the deadline or could not
    build their input, so a loop can tell the user without failing the turn.
    """

    __slots__ = ("calls", "skipped")

    def __init__(
        self,
        results: Iterable[ToolResult] = (),
        calls: Iterable[ToolCall] = (),
        skipped: Iterable[SkippedTool] = (),
    ) -> None:
        super().__init__(results)
        self.calls: tuple[ToolCall, ...] = tuple(calls)
        self.skipped: tuple[SkippedTool, ...] = tuple(skipped)

    def __repr__(self) -> str:
        return f"ResearchResults({list(self)!r}, skipped={list(self.skipped)!r})"
