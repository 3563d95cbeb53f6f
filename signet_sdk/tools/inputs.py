"""What a model passes to each memory tool, as pydantic models.

Each model's JSON Schema is the tool's input schema in every rendering
(MCP, OpenAI, Anthropic), so the field descriptions here are written for a
model to read. Arguments are snake_case, as tools conventionally are; the
executors translate to the daemon's wire names.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

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


class ToolInput(BaseModel):
    """Strict: an unknown argument is an error naming it, never silently dropped."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class MemorySearchInput(ToolInput):
    query: str = Field(
        min_length=1, max_length=2_000, description="What to look for, in plain words."
    )
    limit: int = Field(10, ge=1, le=50, description="How many memories to return at most.")
    tags: list[str] | None = Field(None, description="Only memories with any of these tags.")
    type: str | None = Field(None, description="Only memories of this type, e.g. 'decision'.")
    since: str | None = Field(None, description="Only memories created after this ISO date.")


class MemoryStoreInput(ToolInput):
    content: str = Field(
        min_length=1,
        max_length=MAX_CONTENT_CHARS,
        description="The fact, decision or preference to remember, as one self-contained text.",
    )
    tags: list[str] | None = Field(None, description="Short labels to find it by later.")
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
    tags: list[str] | None = Field(None, description="The new tags (replaces the old ones).")
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
