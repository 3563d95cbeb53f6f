"""A stateful, faithful mock of the Signet daemon's HTTP API (TS 0.109 by default).

Use it in-process as an ASGI application::

    daemon = MockDaemon()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=daemon),
                                 base_url="http://daemon") as client:
        await client.post("/api/hooks/session-start", json={"harness": "demo"})

or on a real socket (``with daemon.serve() as server: server.url``), which is
also what ``signet-sdk dev-daemon`` runs. It keeps runtime-path claims,
tombstones and bypass flags in memory, memories and transcripts in SQLite
with FTS5, and answers with the daemon's exact statuses and error bodies.

``MockDaemon(version="0.110")`` imitates a later release (it adds the
session search and transcript routes). Importing this package needs only
the standard library: Starlette is loaded when a daemon is made, uvicorn
when a server is started.
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
