"""Session records as memories: one readable text that searches well and reads back whole.

A record is stored as a single memory whose content is the record rendered
as labelled sections, so the daemon's keyword and semantic search find it by
the words of any field, and a human reading the memory sees the record.
The rendering is exact to parse back (each list item on its own ``- `` line,
line breaks inside an item folded to spaces), so ``memory_get`` returns the
record's fields intact. ``sourceType`` marks such memories; ``sourceId`` is
a hash of the project and the record, so saving the same record twice is
recognised by the daemon's de-duplication instead of stored twice.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from signet_sdk.tools.inputs import SessionRecord

__all__ = [
    "RECORD_SOURCE_TYPE",
    "learning_source_id",
    "parse_record",
    "record_source_id",
    "render_record",
]

RECORD_SOURCE_TYPE = "session-record"
_HEADER = "Session record"
_SECTIONS = (
    ("actions_taken", "Actions taken"),
    ("decisions_made", "Decisions made"),
    ("open_items", "Open items"),
    ("next_actions", "Next actions"),
)


def _line(text: str) -> str:
    return " ".join(text.split())


def render_record(record: SessionRecord, project_id: str) -> str:
    """The memory content for a record (parse_record inverts it)."""
    lines = [
        f"{_HEADER} ({record.save_scope}) for {_line(project_id)}",
        f"Objective: {_line(record.objective)}",
    ]
    for field, label in _SECTIONS:
        items: list[str] = getattr(record, field)
        lines.append(f"{label}:" if items else f"{label}: none")
        lines.extend(f"- {_line(item)}" for item in items)
    return "\n".join(lines)


def parse_record(content: str) -> dict[str, Any] | None:
    """The record's fields (and ``project_id``) from a memory's content, or None."""
    lines = content.split("\n")
    if not lines or not lines[0].startswith(f"{_HEADER} ("):
        return None
    head = lines[0][len(_HEADER) + 2 :]
    scope, sep, project = head.partition(") for ")
    if not sep or len(lines) < 2 or not lines[1].startswith("Objective: "):
        return None
    out: dict[str, Any] = {"objective": lines[1][len("Objective: ") :]}
    labels = {f"{label}:": field for field, label in _SECTIONS}
    current: str | None = None
    for line in lines[2:]:
        if line in labels:
            current = labels[line]
            out[current] = []
        elif line.endswith(": none") and f"{line[: -len(' none')]}" in labels:
            out[labels[line[: -len(" none")]]] = []
            current = None
        elif line.startswith("- ") and current is not None:
            out[current].append(line[2:])
        else:
            return None
    out["save_scope"] = scope
    record = SessionRecord.model_validate({k: out.get(k, []) for k, _ in _SECTIONS} | out)
    return {"session": record.model_dump(), "project_id": project}


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:24]


def record_source_id(record: SessionRecord, project_id: str) -> str:
    """A stable id for the record: the same record in the same project gives the same id."""
    canonical = json.dumps(record.model_dump(), sort_keys=True, ensure_ascii=False)
    return f"session:{_digest(project_id, canonical)}"


def learning_source_id(record_id: str, kind: str, text: str) -> str:
    """A stable id for a decision or pattern saved with a record."""
    return f"{record_id}/{kind}:{_digest(_line(text))}"
