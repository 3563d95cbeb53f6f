# long module: the SQLite schema and every query over it, so the SQL reads as one store
"""SQLite persistence (memories with FTS5, transcripts, cursors, jobs, summaries) and recall.

What the real daemon keeps on disk the mock keeps in SQLite too, so the dev
daemon remembers across restarts while claims and bypass flags (memory-only
in TS 0.109) do not. Every recall (memory, hook and prompt-submit, as all go
through ``hybridRecall`` in the daemon) is FTS5 keyword search with bm25
ranking and a ``LIMIT``: it reads only the rows whose terms match.
"""

from __future__ import annotations

import os
import re
import sqlite3
import string
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ._rules import infer_type, iso, normalize_content

#: How many of the newest matches a recall ranks before it considers all of them.
SEARCH_CANDIDATE_CAP = 1000

#: The columns ``GET /api/memory/:id`` returns, in the daemon's order.
PUBLIC_MEMORY_COLUMNS = (
    "id, content, type, importance, tags, pinned, who, source_id, source_type, project, "
    "session_id, confidence, access_count, last_accessed, is_deleted, deleted_at, "
    "extraction_status, embedding_model, version, created_at, updated_at, updated_by"
)

#: 0.145's: the row's provenance after ``source_type``, then the same three camelCased.
PUBLIC_MEMORY_COLUMNS_145 = PUBLIC_MEMORY_COLUMNS.replace(
    "source_type, ", "source_type, source_path, runtime_path, idempotency_key, "
) + (", source_path AS sourcePath, runtime_path AS runtimePath, idempotency_key AS idempotencyKey")
#: Columns added to ``memories`` since the first release of the mock (a database file
#: from an older mock gains them when opened).
_ADDED_COLUMNS = ("source_path", "runtime_path", "idempotency_key")

#: The columns of a ``session_summaries`` row, in table order.
SUMMARY_COLUMNS = (
    "id, project, depth, kind, content, token_count, earliest_at, latest_at, session_key, "
    "harness, agent_id, source_type, source_ref, meta_json, created_at"
)


def _fts(table: str, trigger: str) -> str:
    """An external-content FTS5 index over ``table.content``, kept in step by triggers."""
    fts, drop = f"{table}_fts", f"INSERT INTO {table}_fts({table}_fts, rowid, content)"
    return f"""
CREATE VIRTUAL TABLE IF NOT EXISTS {fts} USING fts5(
    content, content='{table}', content_rowid='rid', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS {trigger}_fts_ai AFTER INSERT ON {table} BEGIN
    INSERT INTO {fts}(rowid, content) VALUES (new.rid, new.content);
END;
CREATE TRIGGER IF NOT EXISTS {trigger}_fts_ad AFTER DELETE ON {table} BEGIN
    {drop} VALUES ('delete', old.rid, old.content);
END;
CREATE TRIGGER IF NOT EXISTS {trigger}_fts_au AFTER UPDATE OF content ON {table} BEGIN
    {drop} VALUES ('delete', old.rid, old.content);
    INSERT INTO {fts}(rowid, content) VALUES (new.rid, new.content);
END;
"""


_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS memories (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    content TEXT NOT NULL,
    normalized_content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    type TEXT NOT NULL DEFAULT 'fact',
    importance REAL NOT NULL DEFAULT 0.8,
    tags TEXT,
    pinned INTEGER NOT NULL DEFAULT 0,
    who TEXT,
    why TEXT,
    source_id TEXT,
    source_type TEXT,
    project TEXT,
    session_id TEXT,
    confidence REAL NOT NULL DEFAULT 1.0,
    access_count INTEGER NOT NULL DEFAULT 0,
    last_accessed TEXT,
    is_deleted INTEGER NOT NULL DEFAULT 0,
    deleted_at TEXT,
    extraction_status TEXT NOT NULL DEFAULT 'none',
    embedding_model TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    updated_by TEXT,
    agent_id TEXT NOT NULL DEFAULT 'default',
    scope TEXT,
    visibility TEXT NOT NULL DEFAULT 'global',
    source_path TEXT,
    runtime_path TEXT,
    idempotency_key TEXT
);
CREATE INDEX IF NOT EXISTS idx_memories_hash ON memories(content_hash, scope);
CREATE INDEX IF NOT EXISTS idx_memories_source ON memories(source_type, source_id);
CREATE INDEX IF NOT EXISTS idx_memories_top
    ON memories(agent_id, is_deleted, pinned DESC, importance DESC, created_at DESC);
CREATE INDEX IF NOT EXISTS idx_memories_recent ON memories(agent_id, is_deleted, created_at DESC);

CREATE TABLE IF NOT EXISTS memory_history (
    id TEXT PRIMARY KEY,
    memory_id TEXT NOT NULL,
    event TEXT NOT NULL,
    old_content TEXT,
    new_content TEXT,
    changed_by TEXT NOT NULL,
    actor_type TEXT,
    reason TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_history_memory ON memory_history(memory_id, created_at);

CREATE TABLE IF NOT EXISTS session_transcripts (
    rid INTEGER PRIMARY KEY,
    session_key TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    content TEXT NOT NULL,
    harness TEXT,
    project TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE(session_key, agent_id)
);

CREATE TABLE IF NOT EXISTS session_extract_cursors (
    session_key TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    byte_offset INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (session_key, agent_id)
);

CREATE TABLE IF NOT EXISTS summary_jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    session_key TEXT,
    session_id TEXT,
    agent_id TEXT NOT NULL,
    harness TEXT,
    project TEXT,
    transcript TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS session_summaries (
    id TEXT PRIMARY KEY,
    project TEXT,
    depth INTEGER NOT NULL DEFAULT 0,
    kind TEXT NOT NULL,
    content TEXT NOT NULL,
    token_count INTEGER,
    earliest_at TEXT,
    latest_at TEXT,
    session_key TEXT,
    harness TEXT,
    agent_id TEXT NOT NULL,
    source_type TEXT,
    source_ref TEXT,
    meta_json TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_summaries_agent ON session_summaries(agent_id, latest_at DESC);
CREATE TABLE IF NOT EXISTS session_summary_memories (
    summary_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    PRIMARY KEY (summary_id, memory_id)
);

CREATE TABLE IF NOT EXISTS memory_md (
    agent_id TEXT PRIMARY KEY,
    content TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS temporal_edges (
    memory_id TEXT NOT NULL,
    facet TEXT NOT NULL,
    start_at TEXT NOT NULL,
    end_at TEXT,
    PRIMARY KEY (memory_id, facet)
);
"""
    + _fts("memories", "memories")
    + _fts("session_transcripts", "transcripts")
)

#: Columns a new memory takes as given, ``NULL`` when absent.
_OPTIONAL_COLUMNS = ("tags", "source_id", "project", "session_id", "scope", *_ADDED_COLUMNS)
_KEY = "session_key = ? AND agent_id = ?"
#: A table row (or a JSON object built from one), column names as keys.
Row = dict[str, Any]


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def where(base: Iterable[str], optional: Iterable[tuple[str, Any]]) -> tuple[str, list[Any]]:
    """``base`` clauses ANDed with each ``(clause, value)`` whose value is given (truthy)."""
    parts, args = list(base), []
    for clause, value in optional:
        if value:
            parts.append(clause)
            args.append(value)
    return " AND ".join(parts), args


@dataclass(frozen=True, slots=True)
class MemoryFilters:
    """Recall filters, validated; ``None`` is "not filtered", except that the daemon
    excludes scoped memories unless asked: ``scope_given=False`` is ``scope IS NULL``."""

    agent_id: str | None = None
    type: str | None = None
    tags: tuple[str, ...] = ()
    who: str | None = None
    pinned: bool = False
    importance_min: float | None = None
    since: str | None = None
    until: str | None = None
    project: str | None = None
    scope: str | None = None
    scope_given: bool = False

    def sql(self) -> tuple[str, list[Any]]:
        """The ``AND …`` clause and its arguments, over alias ``m``."""
        scoped = self.scope_given and self.scope is not None
        parts = ["m.is_deleted = 0", "m.scope = ?" if scoped else "m.scope IS NULL"]
        args: list[Any] = [self.scope] if scoped else []
        if self.agent_id is not None:
            parts.append("m.agent_id = ? AND m.visibility != 'archived'")
            args.append(self.agent_id)
        if self.tags:
            # Any listed tag matches (tags are stored as a comma list).
            ors = " OR ".join("(',' || m.tags || ',') LIKE ? ESCAPE '\\'" for _ in self.tags)
            parts.append(f"m.tags IS NOT NULL AND ({ors})")
            args.extend(f"%,{_escape_like(t)},%" for t in self.tags)
        if self.pinned:
            parts.append("m.pinned = 1")
        if self.importance_min is not None:
            parts.append("m.importance >= ?")
            args.append(self.importance_min)
        clause, more = where(
            parts,
            [
                ("m.type = ?", self.type),
                ("m.who = ?", self.who),
                ("m.created_at >= ?", self.since),
                ("m.created_at <= ?", self.until),
                ("m.project = ?", self.project),
            ],
        )
        return clause, args + more


def _private_file(path: str) -> None:
    """Create the database 0600 before SQLite opens it; its -wal and -shm files take its mode."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
    os.chmod(path, 0o600)  # also narrows a database an earlier version left readable


class MemoryStore:
    """The mock daemon's SQLite database (``path=None``: in memory), one connection behind
    a lock: the app runs on an event loop thread, tests seed and read from their own."""

    def __init__(self, path: str | os.PathLike[str] | None, clock: Callable[[], float]) -> None:
        self._now = clock
        self._lock = threading.RLock()
        target = ":memory:" if path is None else os.fspath(path)
        self.path: str | None = None if path is None else target
        if path is not None:
            _private_file(target)
        self._conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        if path is not None:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
        have = {r[1] for r in self._conn.execute("PRAGMA table_info(memories)").fetchall()}
        for column in _ADDED_COLUMNS if have else ():
            if column not in have:
                self._conn.execute(f"ALTER TABLE memories ADD COLUMN {column} TEXT")
        self._conn.executescript(_SCHEMA)

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        with self._lock:
            return [dict(r) for r in self._conn.execute(sql, args).fetchall()]

    def _one(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        rows = self._all(sql, args)
        return rows[0] if rows else None

    def _write(self, sql: str, args: Sequence[Any] = ()) -> None:
        with self._tx() as db:
            db.execute(sql, args)

    def _now_iso(self) -> str:
        return iso(self._now())

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def add_memory(self, content: str, **fields: Any) -> str:
        """Insert one memory as-is (no prefixes, no dedupe); ``fields`` are columns."""
        return self.add_memories([{**fields, "content": content}])[0]

    def add_memories(self, rows: Iterable[Mapping[str, Any]]) -> list[str]:
        """Insert many memories (``content`` plus columns) in one transaction: fast seeding."""
        now = self._now_iso()
        params: list[Row] = []
        for row in rows:
            storage, normalized, digest = normalize_content(str(row["content"]))
            who, pinned = row.get("who") or "daemon", 1 if row.get("pinned") else 0
            params.append(
                {
                    **{column: row.get(column) for column in _OPTIONAL_COLUMNS},
                    "id": str(row.get("id") or uuid.uuid4()),
                    "content": storage,
                    "normalized_content": normalized,
                    "content_hash": digest,
                    "type": row.get("type") or infer_type(storage),
                    "importance": float(row.get("importance", 0.8)),
                    "pinned": pinned,
                    "who": who,
                    "why": "explicit-critical" if pinned else "explicit",
                    "source_type": row.get("source_type", "manual"),
                    "extraction_status": row.get("extraction_status") or "none",
                    "created_at": row.get("created_at") or now,
                    "updated_by": row.get("updated_by") or who,
                    "agent_id": row.get("agent_id") or "default",
                    "visibility": row.get("visibility") or "global",
                }
            )
        if not params:
            return []
        columns = list(params[0])
        with self._tx() as db:
            db.executemany(
                f"INSERT INTO memories ({', '.join(columns)}, updated_at) "
                f"VALUES ({', '.join(':' + c for c in columns)}, :created_at)",
                params,
            )
        return [p["id"] for p in params]

    def find_live(self, scope: str | None, exclude: str | None = None, **equal: Any) -> Row | None:
        """A live memory in ``scope`` (other than ``exclude``) whose columns equal ``equal``
        (``content_hash``, or ``source_type`` and ``source_id``)."""
        same = "".join(f"{column} = ? AND " for column in equal)
        return self._one(
            f"SELECT * FROM memories WHERE {same}scope IS ? AND is_deleted = 0 AND id IS NOT ? "
            "LIMIT 1",
            [*equal.values(), scope, exclude],
        )

    def live_chunks(self, key: str) -> list[Row]:
        """Live memories whose idempotency key is ``<key>:chunk:<n>`` (a positive n)."""
        rows = self._all(
            "SELECT id, source_id, content_hash, idempotency_key FROM memories "
            "WHERE idempotency_key LIKE ? ESCAPE '\\' AND is_deleted = 0",
            (_escape_like(key) + ":chunk:%",),
        )
        tail = len(key) + len(":chunk:")
        return [r for r in rows if str(r["idempotency_key"])[tail:].isdigit()]

    def get_memory(
        self, memory_id: str, *, include_deleted: bool = False, columns: str = "*"
    ) -> Row | None:
        """One memory's row: every column (internal ones included), or the ones named."""
        extra = "" if include_deleted else " AND is_deleted = 0"
        return self._one(f"SELECT {columns} FROM memories WHERE id = ?{extra}", (memory_id,))

    def search(self, match: str, filters: MemoryFilters, limit: int) -> list[tuple[Row, float]]:
        """FTS5 search: ``(row, bm25)`` pairs, best first (bm25 is negative; lower wins).

        bm25 costs microseconds per matching row, so common words would score
        most of the table: first only the newest :data:`SEARCH_CANDIDATE_CAP`
        matches are ranked; every match only when that window is full and the
        filters leave fewer than ``limit`` rows (so small result sets rank exactly).
        """
        clause, args = filters.sql()
        # CROSS JOIN pins the join order: without statistics SQLite may
        # otherwise walk every memory of the agent and probe FTS per row.
        sql = (
            "SELECT m.*, c.score AS _score FROM ("
            "SELECT rowid AS rid, bm25(memories_fts) AS score FROM memories_fts "
            "WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?"
            f") c CROSS JOIN memories m ON m.rid = c.rid WHERE {clause} ORDER BY c.score LIMIT ?"
        )
        with self._lock:
            rows = self._conn.execute(sql, [match, SEARCH_CANDIDATE_CAP, *args, limit]).fetchall()
            if limit < 0 or len(rows) < limit:
                window = self._conn.execute(
                    "SELECT count(*) FROM (SELECT rowid FROM memories_fts "
                    "WHERE memories_fts MATCH ? LIMIT ?)",
                    (match, SEARCH_CANDIDATE_CAP + 1),
                ).fetchone()[0]
                if window > SEARCH_CANDIDATE_CAP:
                    rows = self._conn.execute(
                        "SELECT m.*, bm25(memories_fts) AS _score FROM memories_fts "
                        "CROSS JOIN memories m ON m.rid = memories_fts.rowid "
                        f"WHERE memories_fts MATCH ? AND {clause} ORDER BY _score LIMIT ?",
                        [match, *args, limit],
                    ).fetchall()
        return [(row, float(row.pop("_score"))) for row in map(dict, rows)]

    def top_memories(self, agent_id: str, limit: int, *, newest: bool = False) -> list[Row]:
        """What session-start injects: pinned first, then importance, then recency;
        ``newest``: recency alone, archived ones too (pre-compaction's prompt)."""
        order = "pinned DESC, importance DESC, created_at DESC"
        archived = "" if newest else "AND visibility != 'archived' "
        return self._all(
            "SELECT * FROM memories WHERE agent_id = ? AND is_deleted = 0 AND scope IS NULL "
            f"{archived}ORDER BY {'created_at DESC' if newest else order}, rid DESC LIMIT ?",
            (agent_id, limit),
        )

    def update_memory(self, memory_id: str, changes: Mapping[str, Any], *audit: str) -> int:
        """Apply a modify patch, or ``{"is_deleted": 1}`` (a soft delete, kept for recovery),
        with a bumped version and a history row (``audit``: changed by, actor type, reason)."""
        sets, by, now = dict(changes), audit[0], self._now_iso()
        event = "deleted" if sets.get("is_deleted") else "updated"
        if "content" in sets:
            storage, normalized, digest = normalize_content(str(sets["content"]))
            sets.update(content=storage, normalized_content=normalized, content_hash=digest)
        audit_row = (*audit[1:], now)
        with self._tx() as db:
            sql = "SELECT content, version FROM memories WHERE id = ?"
            old = db.execute(sql, (memory_id,)).fetchone()
            version = int(old["version"]) + 1
            sets.update(version=version, updated_at=now, updated_by=by)
            if event == "deleted":
                sets["deleted_at"] = now
            cols = ", ".join(f"{k} = ?" for k in sets)
            db.execute(f"UPDATE memories SET {cols} WHERE id = ?", [*sets.values(), memory_id])
            new_content = sets.get("content", old["content"]) if event == "updated" else None
            db.execute(
                "INSERT INTO memory_history VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (str(uuid.uuid4()), memory_id, event, old["content"], new_content, by, *audit_row),
            )
        return version

    def history(self, memory_id: str) -> list[Row]:
        return self._all(
            "SELECT * FROM memory_history WHERE memory_id = ? ORDER BY created_at, rowid",
            (memory_id,),
        )

    def forget_candidates(
        self, match: str | None, scope: str | None, limit: int, **fields: Any
    ) -> list[Row]:
        """Batch-forget selection, by FTS ``match`` or else importance, filtered by
        ``fields`` (``type who source_type since until``, ``tags`` as substrings)."""
        tags = [("m.tags LIKE ? ESCAPE '\\'", f"%{_escape_like(t)}%") for t in fields["tags"]]
        clause, args = where(
            ["m.is_deleted = 0", "m.scope IS ?"],
            [
                *tags,
                ("m.type = ?", fields["type"]),
                ("m.who = ?", fields["who"]),
                ("m.source_type = ?", fields["source_type"]),
                ("m.created_at >= ?", fields["since"]),
                ("m.created_at <= ?", fields["until"]),
            ],
        )
        if match is not None:
            return self._all(
                "SELECT m.id, m.pinned, m.version, bm25(memories_fts) AS raw_score "
                "FROM memories_fts CROSS JOIN memories m ON m.rid = memories_fts.rowid "
                f"WHERE memories_fts MATCH ? AND {clause} ORDER BY raw_score LIMIT ?",
                [match, scope, *args, limit],
            )
        return self._all(
            f"SELECT m.id, m.pinned, m.version, 0.0 AS raw_score FROM memories m WHERE {clause} "
            "ORDER BY m.pinned DESC, m.importance DESC, m.updated_at DESC, m.rid DESC LIMIT ?",
            [scope, *args, limit],
        )

    def live_rows_by_id(self, ids: Sequence[str]) -> dict[str, Row]:
        marks = ", ".join("?" for _ in ids)
        rows = self._all(
            f"SELECT id, pinned, version FROM memories WHERE is_deleted = 0 AND id IN ({marks})",
            list(ids),
        )
        return {r["id"]: r for r in rows}

    def count_memories(self, *, include_deleted: bool = False) -> int:
        extra = "" if include_deleted else " WHERE is_deleted = 0"
        return int(self._all(f"SELECT COUNT(*) AS n FROM memories{extra}")[0]["n"])

    def upsert_transcript(
        self, session_key: str, agent_id: str, content: str, harness: Any, project: str | None
    ) -> None:
        """Store a transcript unless a longer one is already stored."""
        now = self._now_iso()
        with self._tx() as db:
            old = db.execute(
                f"SELECT content FROM session_transcripts WHERE {_KEY}", (session_key, agent_id)
            ).fetchone()
            if old is None:
                db.execute(
                    "INSERT INTO session_transcripts "
                    "(session_key, agent_id, content, harness, project, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (session_key, agent_id, content, harness, project, now, now),
                )
            elif len(content) >= len(old["content"]):
                db.execute(
                    "UPDATE session_transcripts SET content = ?, harness = COALESCE(?, harness), "
                    f"project = COALESCE(?, project), updated_at = ? WHERE {_KEY}",
                    (content, harness, project, now, session_key, agent_id),
                )

    def get_transcript(self, session_key: str, agent_id: str) -> Row | None:
        return self._one(f"SELECT * FROM session_transcripts WHERE {_KEY}", (session_key, agent_id))

    def delete_transcript(self, session_key: str, agent_id: str) -> None:
        """Forget a stored transcript and its extraction cursor (compaction)."""
        with self._tx() as db:
            for table in ("session_transcripts", "session_extract_cursors"):
                db.execute(f"DELETE FROM {table} WHERE {_KEY}", (session_key, agent_id))

    def search_transcripts(
        self, match: str, agent_id: str, limit: int, **fields: str | None
    ) -> list[Row]:
        """FTS over stored transcripts, with an excerpt per hit; ``fields``:
        ``project`` and ``session_key`` narrow it, ``exclude_key`` leaves one out."""
        clause, args = where(
            ["t.agent_id = ?"],
            [
                ("t.project = ?", fields["project"]),
                ("t.session_key = ?", fields["session_key"]),
                ("t.session_key != ?", fields["exclude_key"]),
            ],
        )
        return self._all(
            "SELECT t.session_key, t.project, t.updated_at, "
            "snippet(session_transcripts_fts, 0, '', '', '…', 24) AS excerpt, "
            "bm25(session_transcripts_fts) AS rank "
            "FROM session_transcripts_fts CROSS JOIN session_transcripts t "
            "ON t.rid = session_transcripts_fts.rowid "
            f"WHERE session_transcripts_fts MATCH ? AND {clause} ORDER BY rank LIMIT ?",
            [match, agent_id, *args, limit],
        )

    def cursor(self, session_key: str, agent_id: str, move_to: int | None = None) -> int:
        """The checkpoint-extract byte cursor (0 when none), after moving it ``move_to``."""
        if move_to is not None:
            row = (session_key, agent_id, move_to, self._now_iso())
            self._write("INSERT OR REPLACE INTO session_extract_cursors VALUES (?, ?, ?, ?)", row)
        sql = f"SELECT byte_offset FROM session_extract_cursors WHERE {_KEY}"
        found = self._one(sql, (session_key, agent_id))
        return int(found["byte_offset"]) if found else 0

    def add_job(self, *job: str | None) -> str:
        """Record a queued summary job (never run); its id. ``job`` is ``kind, session_key,
        session_id, agent_id, harness, project, transcript``, in table order."""
        job_id = str(uuid.uuid4())
        row = (job_id, *job, self._now_iso())
        self._write("INSERT INTO summary_jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)", row)
        return job_id

    def jobs(self) -> list[Row]:
        return self._all("SELECT * FROM summary_jobs ORDER BY created_at, rowid")

    def add_summary_node(self, node: Mapping[str, Any], memory_ids: Sequence[str] = ()) -> None:
        """Insert (or replace) a temporal summary node and link memories to it."""
        columns = SUMMARY_COLUMNS.split(", ")
        marks, links = ", ".join("?" for _ in columns), [(node["id"], m) for m in memory_ids]
        with self._tx() as db:
            sql = f"INSERT OR REPLACE INTO session_summaries VALUES ({marks})"
            db.execute(sql, [node.get(c) for c in columns])
            db.executemany("INSERT OR IGNORE INTO session_summary_memories VALUES (?, ?)", links)

    def list_summaries(
        self, agent_id: str, project: str | None, depth: int | None, limit: int, offset: int
    ) -> tuple[list[Row], int]:
        """Summary rows (newest first) and the total (never condensed: ``childCount`` 0)."""
        where_sql, args = where(["agent_id = ?"], [("project = ?", project)])
        if depth is not None:
            where_sql += " AND depth = ?"
            args.append(depth)
        args.insert(0, agent_id)
        total = self._all(f"SELECT COUNT(*) AS n FROM session_summaries WHERE {where_sql}", args)
        rows = self._all(
            f"SELECT {SUMMARY_COLUMNS}, 0 AS childCount FROM session_summaries "
            f"WHERE {where_sql} ORDER BY latest_at DESC LIMIT ? OFFSET ?",
            [*args, limit, offset],
        )
        return rows, int(total[0]["n"])

    def get_summary_node(self, node_id: str, agent_id: str) -> Row | None:
        sql = "SELECT * FROM session_summaries WHERE id = ? AND agent_id = ?"
        return self._one(sql, (node_id, agent_id))

    def summary_memories(self, node_id: str, limit: int) -> list[Row]:
        """Memories linked to a node (deleted ones too, flagged)."""
        return self._all(
            "SELECT m.id, m.content, m.type, m.created_at, m.is_deleted "
            "FROM session_summary_memories l JOIN memories m ON m.id = l.memory_id "
            "WHERE l.summary_id = ? ORDER BY m.created_at DESC LIMIT ?",
            (node_id, limit),
        )

    def add_temporal(self, memory_id: str, edges: Sequence[tuple[str, str, str | None]]) -> None:
        """A memory's explicit times: ``(facet, start, end)`` (0.145's remember fields)."""
        with self._tx() as db:
            db.executemany(
                "INSERT OR REPLACE INTO temporal_edges VALUES (?, ?, ?, ?)",
                [(memory_id, *edge) for edge in edges],
            )

    def temporal_rows(
        self, agent_id: str, start: str, end: str, facets: Sequence[str]
    ) -> list[Row]:
        """What overlaps ``[start, end)`` on the ``facets``: a live memory's explicit
        times and its capture, and a summary's span (``facet``, ``start_at``, ``end_at``,
        ``subject_type``, ``rank`` plus the memory's or summary's columns)."""
        overlap = "{0} < ? AND COALESCE({1}, {0}) >= ?"
        live = "m.agent_id = ? AND m.is_deleted = 0 AND m.scope IS NULL"
        marks = ", ".join("?" for _ in facets)
        sql = [
            f"SELECT m.*, t.facet, t.start_at, t.end_at, 'memory' AS subject_type, 1.0 AS rank "
            f"FROM temporal_edges t JOIN memories m ON m.id = t.memory_id WHERE {live} "
            f"AND t.facet IN ({marks}) AND {overlap.format('t.start_at', 't.end_at')}",
        ]
        args: list[Any] = [agent_id, *facets, end, start]
        if "captured" in facets:
            sql.append(
                "SELECT m.*, 'captured' AS facet, m.created_at AS start_at, "
                "m.created_at AS end_at, 'memory' AS subject_type, 0.7 AS rank "
                f"FROM memories m WHERE {live} "
                "AND m.created_at >= ? AND m.created_at < ?"
            )
            args += [agent_id, start, end]
        rows = self._all(" UNION ALL ".join(sql), args)
        if "session" in facets:
            rows += self._all(
                "SELECT *, 'session' AS facet, earliest_at AS start_at, latest_at AS end_at, "
                "'session_summary' AS subject_type, 1.0 AS rank FROM session_summaries "
                f"WHERE agent_id = ? AND {overlap.format('earliest_at', 'latest_at')}",
                (agent_id, end, start),
            )
        return rows

    def memory_md(self, agent_id: str, content: str | None = None) -> str | None:
        """An agent's synthesized MEMORY.md (after storing ``content``), if one was saved."""
        if content is not None:
            row = (agent_id, content, self._now_iso())
            self._write("INSERT OR REPLACE INTO memory_md VALUES (?, ?, ?)", row)
        found = self._one("SELECT content FROM memory_md WHERE agent_id = ?", (agent_id,))
        return str(found["content"]) if found else None


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

#: FTS5 syntax, and control characters (a NUL inside a quoted term is an FTS5 error,
#: where the daemon answers no hits).
_STRIP = re.compile(r"[\":()^*?\x00-\x1f\x7f]")
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
    """An FTS5 ``MATCH`` of quoted terms (never a syntax error): up to three must all match,
    longer queries (or ``match_any``) match any and let bm25 rank, as the daemon does."""
    terms = [f'"{t}"' for t in query_terms(raw)]
    return " ".join(terms) if len(terms) <= 3 and not match_any else " OR ".join(terms)


@dataclass(frozen=True, slots=True)
class RecallParams:
    query: str
    keyword_query: str | None = None
    limit: int = 10
    filters: MemoryFilters = field(default_factory=MemoryFilters)
    expand: bool = False
    exclude_ids: frozenset[str] = frozenset()
    match_any: bool = False
    #: Columns a hit carries after ``created_at`` (0.145: ``visibility``, ``scope``).
    extra_columns: tuple[str, ...] = ()


def _result(row: Row, score: float, expand: bool, extra: tuple[str, ...] = ()) -> Row:
    content = str(row["content"])
    truncated = not expand and len(content) > CONTENT_PREVIEW_CHARS
    out: Row = {
        "id": row["id"],
        "content": content[:CONTENT_PREVIEW_CHARS] if truncated else content,
        "content_length": len(content),
        "truncated": truncated,
        "score": round(score, 4),
        "source": "hybrid",
    }
    out.update({k: row[k] for k in ("source_id", "session_id") if row.get(k)})
    out.update({k: row[k] for k in _RESULT_COLUMNS}, pinned=bool(row["pinned"]))
    out.update({k: row.get(k) for k in extra})
    return out


_RESULT_COLUMNS = ("type", "tags", "pinned", "importance", "who", "project", "created_at")


def recall(store: MemoryStore, params: RecallParams) -> Row:
    """Run a recall and shape the ``RecallResponse``; scores are bm25 magnitudes scaled
    so the best hit is 1.0, as the daemon normalizes its keyword channel."""
    match = fts_query(params.keyword_query or params.query, match_any=params.match_any)
    limit = params.limit if params.limit > 0 else None  # a negative limit: every match
    # Over-fetch a little when ids must be skipped (prompt-submit dedupe).
    fetch = params.limit + len(params.exclude_ids) if limit else params.limit
    found = store.search(match, params.filters, fetch) if match and params.limit != 0 else []
    rows = [(row, score) for row, score in found if row["id"] not in params.exclude_ids][:limit]
    top = max((abs(s) for _, s in rows), default=0.0) or 1.0
    extra = params.extra_columns
    results = [_result(row, abs(score) / top, params.expand, extra) for row, score in rows]
    meta = {"totalReturned": len(results), "hasSupplementary": False, "noHits": not results}
    return {"results": results, "query": params.query, "method": "hybrid", "meta": meta}


def hook_recall_payload(result: Row) -> Row:
    """``withHookRecallCompat``: add ``memories``, ``count`` and ``message``."""
    results: list[Row] = result["results"]
    message = "No matching memories found."
    if results:
        first = " ".join(str(results[0]["content"]).split())
        snippet = first if len(first) <= 80 else first[:77] + "..."
        message = f"Found {len(results)} memories ({result['method']}). Top: {snippet}"
    return {**result, "memories": results, "count": len(results), "message": message}


def empty_hook_recall(query: Any, **flag: bool) -> Row:
    """``emptyHookRecallResponse``: the no-op recall body plus ``internal``/``bypassed``."""
    return {
        "results": [],
        "memories": [],
        "count": 0,
        "query": query,
        "method": "hybrid",
        "meta": {"totalReturned": 0, "hasSupplementary": False, "noHits": True},
        "message": "No matching memories found.",
        **flag,
    }
