"""Recall: query sanitizing, FTS5 search and the daemon's response shapes.

``POST /api/memory/recall``, ``POST /api/hooks/recall`` and the prompt-submit
inject all go through :func:`recall`, as all three go through ``hybridRecall``
in the real daemon. The mock has no embeddings, so "hybrid" here is keyword
search with bm25 ranking; the response shape is the hybrid one.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import Any

from ._store import MemoryFilters, MemoryStore

#: Results show at most this many characters unless ``expand`` is set.
CONTENT_PREVIEW_CHARS = 2000

_STOP_WORD_TEXT = """a about above after again all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during each
    else few for from further get got had has have having he her here hers him his how i
    if in into is it its itself just let me more most my no nor not now of off on once only
    or other our ours out over own please same she should so some such than that the their
    theirs them then there these they this those through to too under until up us very was
    we were what when where which while who whom why will with would you your yours"""
STOP_WORDS = frozenset(_STOP_WORD_TEXT.split())

_STRIP = re.compile(r"[\":()^*?]")
_EDGE_PUNCTUATION = string.punctuation + "\u2018\u2019\u201c\u201d…"


def query_terms(raw: str) -> list[str]:
    """The content words of a query: lower-cased, stripped, stop words dropped."""
    terms: list[str] = []
    for token in raw.replace("'", " ").split():
        cleaned = _STRIP.sub("", token).strip(_EDGE_PUNCTUATION).lower()
        if len(cleaned) < 2 or cleaned in STOP_WORDS or not any(c.isalnum() for c in cleaned):
            continue
        if cleaned not in terms:
            terms.append(cleaned)
    return terms


def fts_query(raw: str, *, match_any: bool = False) -> str:
    """An FTS5 ``MATCH`` string that cannot be a syntax error.

    Every term is quoted as a literal. Up to three terms must all match (for
    precision); longer queries match any term and let bm25's IDF rank them,
    as the daemon's sanitizer does. ``match_any`` always ORs the terms.
    """
    terms = [f'"{t}"' for t in query_terms(raw)]
    if not terms:
        return ""
    return " ".join(terms) if len(terms) <= 3 and not match_any else " OR ".join(terms)


@dataclass(frozen=True, slots=True)
class RecallParams:
    """One recall request, after the route has read its fields."""

    query: str
    keyword_query: str | None = None
    limit: int = 10
    filters: MemoryFilters = field(default_factory=MemoryFilters)
    expand: bool = False
    exclude_ids: frozenset[str] = frozenset()
    match_any: bool = False


def _result(row: dict[str, Any], score: float, expand: bool) -> dict[str, Any]:
    content = str(row["content"])
    truncated = not expand and len(content) > CONTENT_PREVIEW_CHARS
    out: dict[str, Any] = {
        "id": row["id"],
        "content": content[:CONTENT_PREVIEW_CHARS] if truncated else content,
        "content_length": len(content),
        "truncated": truncated,
        "score": round(score, 4),
        "source": "hybrid",
    }
    if row.get("source_id"):
        out["source_id"] = row["source_id"]
    if row.get("session_id"):
        out["session_id"] = row["session_id"]
    out.update(
        type=row["type"],
        tags=row["tags"],
        pinned=bool(row["pinned"]),
        importance=row["importance"],
        who=row["who"],
        project=row["project"],
        created_at=row["created_at"],
    )
    return out


def recall(store: MemoryStore, params: RecallParams) -> dict[str, Any]:
    """Run a recall and shape the ``RecallResponse``.

    Scores are bm25 magnitudes min-max normalized within the batch (the best
    hit scores 1.0), as the daemon normalizes its keyword channel.
    """
    match = fts_query(params.keyword_query or params.query, match_any=params.match_any)
    rows: list[tuple[dict[str, Any], float]] = []
    if match and params.limit != 0:
        # Over-fetch a little when ids must be skipped (prompt-submit dedupe).
        fetch = params.limit + len(params.exclude_ids) if params.limit > 0 else params.limit
        rows = [
            (row, score)
            for row, score in store.search(match, params.filters, fetch)
            if row["id"] not in params.exclude_ids
        ]
        if params.limit > 0:
            rows = rows[: params.limit]
    top = max((abs(s) for _, s in rows), default=0.0) or 1.0
    results = [_result(row, abs(score) / top, params.expand) for row, score in rows]
    return {
        "results": results,
        "query": params.query,
        "method": "hybrid",
        "meta": {
            "totalReturned": len(results),
            "hasSupplementary": False,
            "noHits": not results,
        },
    }


def hook_recall_payload(result: dict[str, Any]) -> dict[str, Any]:
    """``withHookRecallCompat``: add ``memories``, ``count`` and ``message``."""
    results: list[dict[str, Any]] = result["results"]
    out = dict(result)
    out["memories"] = results
    out["count"] = len(results)
    if not results:
        out["message"] = "No matching memories found."
    else:
        first = " ".join(str(results[0]["content"]).split())
        snippet = first if len(first) <= 80 else first[:77] + "..."
        out["message"] = f"Found {len(results)} memories ({result['method']}). Top: {snippet}"
    return out


def empty_hook_recall(query: Any, **flag: bool) -> dict[str, Any]:
    """``emptyHookRecallResponse``: the no-op recall body plus ``internal``/``bypassed``."""
    body: dict[str, Any] = {
        "results": [],
        "memories": [],
        "count": 0,
        "query": query,
        "method": "hybrid",
        "meta": {"totalReturned": 0, "hasSupplementary": False, "noHits": True},
        "message": "No matching memories found.",
    }
    body.update(flag)
    return body
