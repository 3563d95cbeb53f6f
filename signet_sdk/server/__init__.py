"""The server layer: ``RuntimeAdapterServer``, the adapter contract over HTTP (FastAPI)."""

from __future__ import annotations

from signet_sdk.server.app import RuntimeAdapterServer

__all__ = ["RuntimeAdapterServer"]
