"""Helpers shared by the adapter server tests (a module name no other test folder uses)."""

from __future__ import annotations

import httpx

from signet_sdk.server import RuntimeAdapterServer


def make_client(server: RuntimeAdapterServer, **headers: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=server.asgi),
        base_url="http://127.0.0.1:3851",
        headers=headers,
        timeout=30,
    )
