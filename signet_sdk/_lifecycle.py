"""What a harness adapter is made of, in plain data.

An adapter is two pure functions around one daemon call: ``translate`` turns
a native event payload into the lifecycle calls it implies, and ``render``
turns the daemon's answers back into exactly what the harness reads. Both
deal in dicts with the daemon's wire names, so the same translation serves
the typed library path (``AdapterClient``, pydantic) and the hook path
(``LeanClient``, standard library only) without being written twice.
"""

from __future__ import annotations

from ._record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["LIFECYCLE_METHODS", "LifecycleCall", "NativeOutput"]

#: Endpoint name -> the RuntimeAdapter method that performs it.
LIFECYCLE_METHODS: dict[str, str] = {
    "session_start": "on_session_start",
    "user_prompt_submit": "on_user_prompt_submit",
    "session_end": "on_session_end",
    "session_checkpoint_extract": "on_session_checkpoint",
    "pre_compaction": "on_pre_compaction",
    "compaction_complete": "on_compaction_complete",
    "remember": "remember",
    "recall": "recall",
}


class LifecycleCall(Record):
    """One daemon call a native event implies: endpoint name and wire body.

    ``body`` uses the daemon's names (``sessionKey``, ``cwd`` ...) and leaves
    out ``harness`` and ``runtimePath``, which the client adds from its config.
    """

    __slots__ = ("action", "body")
    action: str
    body: Mapping[str, Any]

    def __init__(self, action: str, body: Mapping[str, Any]) -> None:
        self._init(action=action, body=body)

    @property
    def method(self) -> str:
        return LIFECYCLE_METHODS[self.action]


class NativeOutput(Record):
    """What the harness process gets back: stdout text and an exit code."""

    __slots__ = ("exit_code", "stdout")
    stdout: str
    exit_code: int

    def __init__(self, stdout: str = "", exit_code: int = 0) -> None:
        self._init(stdout=stdout, exit_code=exit_code)
