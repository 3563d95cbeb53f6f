"""Remember of oversized content: split into sentence chunks, one memory each.

Content over 800 characters (and no ``structured`` part) becomes chunks of
about 600 characters, each overlapping the next by a quarter of that, stored
as memories of one group (``source_type`` ``chunk``, the group's id as
``source_id``). Both releases split alike; they differ in what a repeat is:

* 0.109 stores each chunk whose content is not already live in the scope
  and leaves the others out, silently: a repeat answers ``chunk_count`` 0.
* 0.145 takes the group whole or not at all. With an ``idempotencyKey``
  each chunk gets ``<key>:chunk:<n>``, so a repeat is the stored group
  again (``deduped``) and the same key for other content is a 409; without
  one, a chunk already stored is a 409.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any

from starlette.responses import Response

from ._context import Context
from ._rules import infer_type, normalize_content
from ._web import json_response, require

MAX_CONTENT_CHARS = 800
CHUNK_TARGET_CHARS = 600
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|(?=^[-*] |\n## )", re.MULTILINE)


def chunk_by_sentence(text: str, target: int = CHUNK_TARGET_CHARS) -> list[str]:
    """Sentences packed up to ``target`` characters (longer ones cut), each chunk but the
    last followed by the start of the next."""
    raw: list[str] = []
    current = ""
    for sentence in filter(None, _SENTENCE_BREAK.split(text)):
        if len(sentence) > target * 2:
            if current:
                raw.append(current.strip())
                current = ""
            raw += [sentence[i : i + target].strip() for i in range(0, len(sentence), target)]
            continue
        combined = f"{current} {sentence}" if current else sentence
        if len(combined) > target and current:
            raw.append(current.strip())
            current = sentence
        else:
            current = combined
    if current.strip():
        raw.append(current.strip())
    chunks = [c for c in raw if c]
    overlap = target // 4
    tails = [f" {after[:overlap]}" for after in chunks[1:]] + [""]
    return [f"{c}{tail}".strip() for c, tail in zip(chunks, tails, strict=True)]


def _group_id(key: str | None, agent_id: str, visibility: str, scope: str | None) -> str:
    if not key:
        return str(uuid.uuid4())
    seed = "\0".join([agent_id or "default", visibility, scope or "__NULL__", key])
    return "chunk-group:" + hashlib.sha256(seed.encode()).hexdigest()[:32]


def chunk_key_rows(ctx: Context, key: str) -> list[dict[str, Any]]:
    """The live chunks stored under ``key``, in chunk order."""
    rows = ctx.store.live_chunks(key)
    index = {r["id"]: int(str(r["idempotency_key"]).rsplit(":", 1)[1]) for r in rows}
    return sorted(rows, key=lambda r: index[r["id"]])


def remember_chunks_109(
    ctx: Context, raw: str, scope: str | None, fields: dict[str, Any]
) -> Response:
    """0.109: store ``raw``'s chunks not already live in ``scope`` as one group."""
    chunks = chunk_by_sentence(raw)
    require(chunks, "content produced no valid chunks")
    group = str(uuid.uuid4())
    ids = []
    for chunk in chunks:
        storage, _normalized, digest = normalize_content(chunk)
        if not storage or ctx.store.find_live(scope, content_hash=digest) is not None:
            continue
        row = {**fields, "type": infer_type(chunk), "source_type": "chunk", "source_id": group}
        ids.append(ctx.store.add_memory(storage, **row, scope=scope))
    ctx.logs.log(
        "info", "memory", "Chunked memory saved", {"groupId": group, "chunkCount": len(ids)}
    )
    answer = {"chunked": True, "chunk_count": len(ids), "ids": ids, "group_id": group}
    return json_response(answer)


def remember_chunks(
    ctx: Context, raw: str, key: str | None, scope: str | None, fields: dict[str, Any]
) -> Response:
    """0.145: store ``raw`` as a chunk group (``fields``: the columns every chunk shares)."""
    plans = []
    for index, chunk in enumerate(chunk_by_sentence(raw)):
        storage, _normalized, digest = normalize_content(chunk)
        if storage:
            plans.append((storage, digest, f"{key}:chunk:{index + 1}" if key else None))
    require(plans, "content produced no valid chunks")
    if key:
        require(
            ctx.store.find_live(scope, idempotency_key=key) is None,
            "idempotencyKey already used for non-chunk content",
            409,
        )
        existing = chunk_key_rows(ctx, key)
        if existing:
            groups = {r["source_id"] for r in existing if r["source_id"]}
            same = len(groups) == 1 and [
                (r["idempotency_key"], r["content_hash"]) for r in existing
            ] == [(p[2], p[1]) for p in plans]
            require(same, "idempotencyKey already used for different chunked content", 409)
            ids = [r["id"] for r in existing]
            found = {"chunked": True, "chunk_count": len(ids), "ids": ids}
            return json_response({**found, "group_id": groups.pop(), "deduped": True})
    digests = [p[1] for p in plans]
    require(len(set(digests)) == len(digests), "chunked content contains duplicate chunks", 409)
    clash = any(ctx.store.find_live(scope, content_hash=d) for d in digests)
    require(not clash, "chunk content already exists for this agent and scope", 409)
    group = _group_id(key, fields["agent_id"], fields["visibility"], scope)
    rows = [
        {**fields, "content": storage, "type": infer_type(storage), "idempotency_key": chunk_key}
        for storage, _digest, chunk_key in plans
    ]
    common = {"source_type": "chunk", "source_id": group, "scope": scope}
    ids = ctx.store.add_memories([{**row, **common} for row in rows])
    ctx.logs.log(
        "info", "memory", "Chunked memory saved", {"groupId": group, "chunkCount": len(ids)}
    )
    answer = {"chunked": True, "chunk_count": len(ids), "ids": ids, "group_id": group}
    return json_response(answer)
