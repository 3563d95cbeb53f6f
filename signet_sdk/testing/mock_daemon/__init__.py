"""A stateful, faithful mock of the Signet daemon's HTTP API (TS 0.145 by default).

Use it in-process (``httpx.ASGITransport(app=MockDaemon())``) or on a real
socket (``with daemon.serve() as server: server.url``, as ``signet-sdk
dev-daemon`` does). Claims, tombstones and bypass flags live in memory,
memories and transcripts in SQLite with FTS5; answers carry the daemon's exact
statuses and bodies. ``MockDaemon(version="0.109")`` answers as 0.109.15 does
(secrets exec within the request, no transcript or search routes, prompt
recall by shared words); ``"0.145"`` (the default) as 0.145.8 does (exec jobs,
entity-only prompt injection, recall dedupe and timings, temporal remember).
Importing this package needs only the standard library: Starlette loads when a
daemon is made, uvicorn when one is served.
"""

from __future__ import annotations

from ._app import MockDaemon, RecordedRequest
from ._serve import ServerHandle
from ._store import MemoryFilters, MemoryStore, RecallParams, recall

__all__ = [
    "MemoryFilters",
    "MemoryStore",
    "MockDaemon",
    "RecallParams",
    "RecordedRequest",
    "ServerHandle",
    "recall",
]
