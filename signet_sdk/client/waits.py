"""How each client waits between attempts: the one line where the twins differ in kind.

``async_client.py`` is the source of both clients; ``sync_client.py`` is
generated from it by unasync, which renames ``async_wait`` to ``wait``.
"""

from __future__ import annotations

import time

__all__ = ["async_wait", "wait"]

wait = time.sleep


async def async_wait(seconds: float) -> None:
    """``anyio.sleep``: works under asyncio and trio; imported only when a retry waits."""
    import anyio

    await anyio.sleep(seconds)
