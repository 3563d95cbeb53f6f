"""What a harness adapter is made of, in plain data.

An adapter is two pure functions around one daemon call: ``translate`` turns
a native event payload into the lifecycle calls it implies, and ``render``
turns the daemon's answers back into exactly what the harness reads. Both
deal in dicts with the daemon's wire names, so the same translation serves
the typed library path (``AdapterClient``, pydantic) and the hook path
(``LeanClient``, standard library only) without being written twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

__all__ = [
    "LIFECYCLE_METHODS",
    "HarnessTranslator",
    "LifecycleCall",
    "NativeOutput",
]

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


class LifecycleCall(NamedTuple):
    """One daemon call a native event implies: endpoint name and wire body.

    ``body`` uses the daemon's names (``sessionKey``, ``cwd`` ...) and leaves
    out ``harness`` and ``runtimePath``, which the client adds from its config.
    """

    action: str
    body: Mapping[str, Any]

    @property
    def method(self) -> str:
        return LIFECYCLE_METHODS[self.action]


class NativeOutput(NamedTuple):
    """What the harness process gets back: stdout text and an exit code."""

    stdout: str = ""
    exit_code: int = 0


@runtime_checkable
class HarnessTranslator(Protocol):
    """The pure half of an adapter; no I/O, no third-party imports required."""

    # Read-only members, so a plain class attribute (``harness = "x"``) satisfies them.
    @property
    def harness(self) -> str:
        """The harness id the daemon records (``claude-code``, ``pi`` ...)."""
        ...

    @property
    def runtime_path(self) -> str | None:
        """``legacy`` for per-event hook commands, ``plugin`` for in-process plugins,
        None to claim nothing."""
        ...

    @property
    def events(self) -> Sequence[str]:
        """Native event names this translator understands."""
        ...

    @property
    def not_applicable(self) -> Mapping[str, str]:
        """Dependency-map rows (or native events) it does not cover, each with the reason."""
        ...

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        """Lifecycle calls for one native event; raises PayloadError on bad input."""
        ...

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        """Native output from the decoded daemon answers, one per call."""
        ...

    def neutral(self, event: str) -> NativeOutput:
        """The fail-open output: what the harness gets when the daemon did not help."""
        ...
