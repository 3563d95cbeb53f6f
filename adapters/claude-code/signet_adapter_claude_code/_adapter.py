"""The library path: Claude Code events handled in-process through ``HarnessAdapter``.

Kept out of the package ``__init__`` because ``HarnessAdapter`` brings httpx
and pydantic with it, which a hook process must not pay for.
"""

from __future__ import annotations

from typing import ClassVar

from signet_sdk import HarnessAdapter
from signet_sdk._translator import HarnessTranslator

from ._translate import ClaudeCodeTranslator

__all__ = ["ClaudeCodeAdapter"]


class ClaudeCodeAdapter(HarnessAdapter):
    """``handle(event, payload)`` for Claude Code hook payloads, failing open."""

    translator: ClassVar[HarnessTranslator] = ClaudeCodeTranslator()
