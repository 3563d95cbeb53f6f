"""The same lifecycle from an event loop, with several sessions at once.

SIGNET_DAEMON_URL=http://127.0.0.1:3850 python examples/quickstart_async.py
"""

from __future__ import annotations

import asyncio

from signet_sdk import (
    AsyncAdapterClient,
    RememberParams,
    SessionStartParams,
    UserPromptSubmitParams,
    create_async_adapter,
)


async def one_session(adapter: AsyncAdapterClient, n: int) -> bool:
    key = f"example-async-{n}"
    await adapter.on_session_start(SessionStartParams(session_key=key, project="/srv/example"))
    turn = await adapter.on_user_prompt_submit(
        UserPromptSubmitParams(session_key=key, user_message="What is the gateway port?")
    )
    return "8443" in turn.inject


async def main() -> None:
    async with create_async_adapter("example-async", runtime_path="plugin") as adapter:
        await adapter.remember(RememberParams(content="The gateway listens on port 8443"))
        found = await asyncio.gather(*(one_session(adapter, n) for n in range(4)))
    print("sessions that got the gateway port injected:", sum(found), "of", len(found))


asyncio.run(main())
