"""The contract a harness package implements: ``HarnessTranslator``.

Kept apart from ``_lifecycle`` so that a hook process, which only runs a
translator, never imports ``typing.Protocol``; type checkers and the library
path (``HarnessAdapter``, the registry) use it from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ._lifecycle import LifecycleCall, NativeOutput

__all__ = ["HarnessTranslator"]


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
