"""What a model passes to each memory tool, as pydantic models.

Each model's JSON Schema is the tool's input schema in every rendering
(MCP, OpenAI, Anthropic), so the field descriptions here are written for a
model to read. Arguments are snake_case, as tools conventionally are; the
executors translate to the daemon's wire names.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "MAX_CONTENT_CHARS",
    "MemoryForgetInput",
    "MemoryGetInput",
    "MemoryModifyInput",
    "MemorySearchInput",
    "MemoryStoreInput",
    "SecretsExecInput",
    "SessionRecord",
    "SessionSaveInput",
    "SessionSaveWithLearningsInput",
    "ToolInput",
]

#: Longest memory a tool stores; longer content is refused before the daemon is called.
MAX_CONTENT_CHARS = 20_000
#: One list entry: a short, non-empty line of text.
Item = Annotated[str, Field(min_length=1, max_length=2_000)]
#: An ISO 8601 calendar date, optionally with a time and an offset (what ``created_at`` holds).
_ISO_DATE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?"
)


def _tag_list(tags: list[str] | None) -> list[str] | None:
    # The daemon receives tags comma-joined: a comma would split one tag in two
    # and a blank tag would vanish, so both are refused here, naming ``tags``.
    for tag in tags or ():
        if not tag:
            raise ValueError("a tag cannot be blank")
        if "," in tag:
            raise ValueError(f"a tag cannot hold a comma: {tag!r}")
    return tags


def _iso_date(value: str | None) -> str | None:
    # The daemon filters ``created_at`` by ``since`` and silently matches nothing
    # on a string that is no date, so anything but an ISO 8601 date is refused.
    if value is None:
        return None
    try:
        if not _ISO_DATE.fullmatch(value):
            raise ValueError(value)
        dt.datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"not an ISO 8601 date or datetime: {value!r} "
            "(e.g. '2025-01-31' or '2025-01-31T09:00:00Z')"
        ) from None
    return value


#: Tags as a model passes them: each non-blank and without a comma.
Tags = Annotated[list[str] | None, AfterValidator(_tag_list)]


class ToolInput(BaseModel):
    """Strict: an unknown argument is an error naming it, never silently dropped."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class MemorySearchInput(ToolInput):
    query: str = Field(
        min_length=1, max_length=2_000, description="What to look for, in plain words."
    )
    limit: int = Field(10, ge=1, le=50, description="How many memories to return at most.")
    tags: Tags = Field(None, description="Only memories with any of these tags.")
    type: str | None = Field(None, description="Only memories of this type, e.g. 'decision'.")
    since: Annotated[str | None, AfterValidator(_iso_date)] = Field(
        None, description="Only memories created after this ISO 8601 date, e.g. '2025-01-31'."
    )


class MemoryStoreInput(ToolInput):
    content: str = Field(
        min_length=1,
        max_length=MAX_CONTENT_CHARS,
        description="The fact, decision or preference to remember, as one self-contained text.",
    )
    tags: Tags = Field(None, description="Short labels to find it by later (no commas).")
    importance: float | None = Field(
        None, ge=0, le=1, description="0 to 1; how much it matters (default 0.8)."
    )
    pinned: bool | None = Field(None, description="Pinned memories are always injected.")


class MemoryGetInput(ToolInput):
    id: str = Field(min_length=1, max_length=200, description="The memory id from a search.")


class MemoryModifyInput(ToolInput):
    id: str = Field(min_length=1, max_length=200, description="The memory to change.")
    reason: str = Field(min_length=1, max_length=500, description="Why it changes (audited).")
    content: str | None = Field(
        None, min_length=1, max_length=MAX_CONTENT_CHARS, description="The new text."
    )
    tags: Tags = Field(None, description="The new tags (replaces the old ones; no commas).")
    importance: float | None = Field(None, ge=0, le=1, description="The new importance, 0 to 1.")
    pinned: bool | None = Field(None, description="Pin or unpin it.")

    @model_validator(mode="after")
    def _changes_something(self) -> MemoryModifyInput:
        # Refused here, naming the arguments, rather than by the daemon request built from them.
        if all(getattr(self, name) is None for name in ("content", "tags", "importance", "pinned")):
            raise ValueError("at least one of content, tags, importance, pinned is required")
        return self


class MemoryForgetInput(ToolInput):
    id: str = Field(min_length=1, max_length=200, description="The memory to forget.")
    reason: str = Field(min_length=1, max_length=500, description="Why it is forgotten (audited).")


class SecretsExecInput(ToolInput):
    command: str = Field(
        min_length=1,
        max_length=4_000,
        description="The command to run, without shell syntax ($, |, ;, redirections).",
    )
    secrets: dict[str, str] = Field(
        min_length=1,
        description="Environment variable name -> stored secret name, injected into the command.",
    )


class SessionRecord(ToolInput):
    """The end-of-session record: what was set out, done, decided and left."""

    objective: str = Field(
        min_length=1, max_length=2_000, description="What the session set out to do."
    )
    actions_taken: list[Item] = Field(
        default=[], max_length=100, description="What was actually done."
    )
    decisions_made: list[Item] = Field(
        default=[], max_length=100, description="Key decisions, briefly."
    )
    open_items: list[Item] = Field(
        default=[], max_length=100, description="Unresolved questions and blockers."
    )
    next_actions: list[Item] = Field(default=[], max_length=100, description="Concrete next steps.")
    save_scope: Literal["global", "project", "focus"] = Field(
        "project", description="Where the record belongs: everywhere, this project, or the focus."
    )


class SessionSaveInput(ToolInput):
    session: SessionRecord
    project_id: str = Field(min_length=1, max_length=500, description="The project it belongs to.")


class SessionSaveWithLearningsInput(ToolInput):
    session: SessionRecord
    decisions: list[Item] = Field(
        default=[], max_length=100, description="Decisions, each saved on its own."
    )
    patterns: list[Item] = Field(
        default=[], max_length=100, description="Reusable patterns learned."
    )
    project_id: str = Field(min_length=1, max_length=500, description="The project it belongs to.")
