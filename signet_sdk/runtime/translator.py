"""The pure half of an adapter: ``HarnessTranslator``.

Kept apart from the data types so that a hook process, which only runs a
translator, never imports ``typing.Protocol``; type checkers and the
library path use it from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from signet_sdk.runtime.native import NativeOutput
from signet_sdk.wire.lifecycle import LifecycleCall

__all__ = ["HarnessTranslator"]


@runtime_checkable
class HarnessTranslator(Protocol):
    """Native event payload in, lifecycle calls out; daemon answers in, native output out.

    No I/O and no third-party imports: the same translator serves a hook
    process (standard library only), the adapter server and the library.
    """

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        """Lifecycle calls for one native event; raises PayloadError naming a bad field."""
        ...

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        """Native output from the daemon's answers (wire dicts), one per call."""
        ...

    def neutral(self, event: str) -> NativeOutput:
        """The fail-open output: what the harness gets when the daemon did not help."""
        ...
