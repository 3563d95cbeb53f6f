"""What a harness gets back from one native event: structured data first.

A plugin harness (OpenCode, pi, OpenClaw, a Python agent loop) receives
``data``, a JSON-able value its plugin applies. A command-hook harness
(Claude Code, Codex) reads bytes from a process, so the same output also
says how a command hook writes it: ``stdout`` text (by default ``data`` as
compact JSON, or nothing when there is no data) and an exit code.
"""

from __future__ import annotations

from signet_sdk.wire.jsonfast import dumps
from signet_sdk.wire.record import KW_ONLY, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["NativeOutput"]


class NativeOutput(Record):
    """A translator's answer to one native event."""

    data: Any = None
    _: KW_ONLY
    stdout: str | None = None
    exit_code: int = 0

    @property
    def text(self) -> str:
        """What a command hook prints: ``stdout`` if set, else ``data`` as JSON, else nothing."""
        if self.stdout is not None:
            return self.stdout
        if self.data is None:
            return ""
        return dumps(self.data)

    def to_wire(self) -> dict[str, Any]:
        """The JSON form vectors and the adapter server use."""
        return {"data": self.data, "stdout": self.text, "exitCode": self.exit_code}
