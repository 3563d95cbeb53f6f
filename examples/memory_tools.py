"""Memory tools beyond the lifecycle: search, get, modify and forget one memory.

SIGNET_DAEMON_URL=http://127.0.0.1:3850 python examples/memory_tools.py
"""

from __future__ import annotations

from signet_sdk import AdapterClient, NotFoundError
from signet_sdk.models import (
    ForgetMemoryRequest,
    MemoryRecallRequest,
    MemoryRememberRequest,
    ModifyMemoryRequest,
)

with AdapterClient("example-tools") as client:
    created = client.memory_remember(MemoryRememberRequest(content="Backups run nightly at 02:00"))
    assert created.id is not None
    found = client.memory_recall(MemoryRecallRequest(query="backups nightly", limit=5))
    print("search found it:", any(hit.id == created.id for hit in found.results))

    record = client.get_memory(created.id)
    changed = client.modify_memory(
        created.id,
        ModifyMemoryRequest(reason="schedule moved", content="Backups run nightly at 03:00"),
    )
    print("modified:", changed.status, "version", record.version, "->", changed.new_version)

    gone = client.forget_memory(created.id, ForgetMemoryRequest(reason="example cleanup"))
    print("forgot:", gone.status)
    try:
        client.get_memory(created.id)
    except NotFoundError:
        print("get after forget: not found, as expected")
