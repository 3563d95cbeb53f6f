"""What a harness gets back when the daemon did not help (signet_sdk.runtime.dispatch).

``neutral(event)`` by default; a translator whose harness's next step
depends on the event having happened says so in ``fail_open(event,
payload)``, which every path that fails open uses: a daemon error, an
answer the translator could not render, the adapter server's deadline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from signet_sdk.runtime.dispatch import dispatch, fail_open_output
from signet_sdk.runtime.handlers import EventTranslator, on
from signet_sdk.runtime.native import NativeOutput
from signet_sdk.wire.errors import APITimeoutError, PayloadError
from signet_sdk.wire.lifecycle import LifecycleCall


class Counting(EventTranslator):
    """Carries how many messages a compaction is about, answered or not."""

    @on("compact")
    def _compact(self, payload: Mapping[str, Any], scope: Any) -> list[LifecycleCall]:
        return [LifecycleCall("pre_compaction", {"sessionKey": "s"})]

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        if results and results[0] == "unexpected":
            raise ValueError("an answer this translator cannot read")
        return NativeOutput({"guidance": "g", "carry": {"count": payload["count"]}})

    def fail_open(self, event: str, payload: Mapping[str, Any]) -> NativeOutput:
        if not isinstance(payload.get("count"), int):
            raise PayloadError("count", "is required")
        return NativeOutput({"carry": {"count": payload["count"]}})


def _down(call: LifecycleCall) -> Any:
    raise APITimeoutError("no answer", method="POST", url="http://127.0.0.1:9")


@pytest.mark.parametrize(
    ("send", "data"),
    [
        (lambda call: {"summaryPrompt": "p"}, {"guidance": "g", "carry": {"count": 3}}),
        (_down, {"carry": {"count": 3}}),  # the daemon failed: the carry survives
        (lambda call: "unexpected", {"carry": {"count": 3}}),  # so it does a render failure
    ],
)
def test_the_translator_says_what_failing_open_means(send: Any, data: Any) -> None:
    run = dispatch(Counting(), "compact", {"count": 3}, send)
    assert run.output.data == data


def test_a_failing_fail_open_falls_back_to_neutral() -> None:
    run = dispatch(Counting(), "compact", {"count": "three"}, _down)
    assert run.output.data is None and run.error is not None
    assert fail_open_output(Counting(), "compact", {}).data is None


def test_a_translator_without_fail_open_gets_neutral() -> None:
    class Plain:
        def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
            return [LifecycleCall("pre_compaction", {"sessionKey": "s"})]

        def render(self, event: str, payload: Any, results: Sequence[Any]) -> NativeOutput:
            return NativeOutput({"answered": True})

        def neutral(self, event: str) -> NativeOutput:
            return NativeOutput({"continue": True})

    assert dispatch(Plain(), "compact", {}, _down).output.data == {"continue": True}
