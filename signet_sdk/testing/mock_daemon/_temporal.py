"""0.145's time-scoped recall: ``time: {start, end?, facets?, mode?}`` on either recall route.

A memory is on the timeline through its explicit times (remember's
``occurredAt``, ``observedAt``, ``sourceCreatedAt``, ``validFrom``/``validUntil``)
and its capture time; a session summary through its span. ``filter`` (the mode
when there is a query) keeps the query's hits that are on the timeline in the
window; ``timeline`` lists what is there. The answer's ``meta.temporal`` says
how the window was read. Windows written in the query itself are not parsed.
"""

from __future__ import annotations

from typing import Any

from ._rules import iso, parse_iso

FACETS = ("session", "source", "occurred", "observed", "valid", "captured")
#: remember's fields -> (facet, the field ending the span, if any).
EDGE_FIELDS = {
    "sourceCreatedAt": "source",
    "observedAt": "observed",
    "occurredAt": "occurred",
    "validFrom": "valid",
}

Json = dict[str, Any]


def edges(body: Json) -> list[tuple[str, str, str | None]]:
    """The ``(facet, start, end)`` spans a remember body gives (already validated)."""
    out: list[tuple[str, str, str | None]] = []
    for name, facet in EDGE_FIELDS.items():
        start = parse_iso(body[name]) if name in body else None
        if start is None:
            continue
        until = parse_iso(body.get("validUntil")) if facet == "valid" else start
        out.append((facet, iso(start), None if until is None else iso(until)))
    return out


def intent(time: Json, query: str) -> Json:
    """``meta.temporal`` for a (validated) ``time``: a day from ``start`` unless ``end``."""
    start = parse_iso(time["start"]) or 0.0
    end = parse_iso(time["end"]) if time.get("end") else start + 86_400
    given = [f for f in dict.fromkeys(time.get("facets") or []) if f in FACETS]
    mode = time.get("mode") if time.get("mode") in ("timeline", "filter") else None
    content = query.strip()
    return {
        "mode": mode or ("filter" if content else "timeline"),
        "source": "request",
        "originalQuery": query,
        "contentQuery": content,
        "start": iso(start),
        "end": iso(end or start),
        "facets": given or list(FACETS),
    }


def _one_line(text: str, limit: int = 900) -> tuple[str, bool, int]:
    line = " ".join(text.split())
    cut = len(line) > limit
    return (f"{line[: limit - 12].strip()} [truncated]" if cut else line), cut, len(line)


def as_hit(row: Json) -> Json:
    """A timeline row as a recall hit (``temporal:<subject>:<id>:<facet>``)."""
    content, cut, length = _one_line(str(row["content"]))
    memory = row["subject_type"] == "memory"
    hit: Json = {
        "id": f"temporal:{row['subject_type']}:{row['id']}:{row['facet']}",
        "content": content,
        "content_length": length,
        "truncated": cut,
        "score": row["rank"],
        "source": f"temporal_{row['facet']}",
    }
    hit.update({k: row[k] for k in ("source_id", "session_id") if row.get(k)})
    hit.update(
        type=row["type"] if memory else row["subject_type"],
        tags=row.get("tags"),
        pinned=bool(row.get("pinned")),
        importance=row.get("importance", 0.5),
        who=row.get("who"),
        project=row.get("project"),
        created_at=row["created_at"],
        visibility=row.get("visibility", "global"),
        scope=row.get("scope"),
        temporal_facet=row["facet"],
        temporal_start_at=row["start_at"],
        temporal_end_at=row["end_at"],
        subject_type=row["subject_type"],
        subject_id=row["id"],
    )
    return hit


def timeline(rows: list[Json], window: Json, limit: int) -> list[Json]:
    """The rows a response lists: best rank, then newest; one per subject and facet; in
    ``filter`` mode only those whose text has every query word."""
    words = window["contentQuery"].lower().split()
    if window["mode"] == "filter":
        rows = [r for r in rows if all(w in str(r["content"]).lower() for w in words)]
    rows.sort(key=lambda r: str(r["subject_type"]))
    rows.sort(key=lambda r: (r["rank"], str(r["start_at"])), reverse=True)
    hits, seen = [], set()
    for row in rows:
        if (key := (row["subject_type"], row["id"], row["facet"])) not in seen:
            seen.add(key)
            hits.append(as_hit(row))
    return hits if limit < 0 else hits[:limit]
