"""The lifecycle table's call: an unknown action is refused where the handler makes it."""

from __future__ import annotations

import pytest

from signet_sdk.plugin import EventTranslator, LifecycleCall, PayloadError, dispatch, on

KNOWN = (
    "session_start, user_prompt_submit, session_end, session_checkpoint_extract, "
    "pre_compaction, compaction_complete, remember, recall"
)


@pytest.mark.parametrize(
    "make",
    [lambda: LifecycleCall("precompact", {}), lambda: LifecycleCall(action="precompact", body={})],
    ids=["positional", "keyword"],
)
def test_an_unknown_action_is_refused_naming_the_known_ones(make: object) -> None:
    with pytest.raises(PayloadError) as caught:
        make()  # type: ignore[operator]
    assert caught.value.field == "action"
    assert str(caught.value) == f"action: unknown lifecycle action 'precompact'; known: {KNOWN}"


class _Typo(EventTranslator):
    harness = "acme"

    @on("squash")
    def _squash(self, payload: object, session: str | None) -> list[LifecycleCall]:
        return [LifecycleCall("precompact", {"sessionKey": "s"})]


def test_a_handler_with_an_unknown_action_fails_open_naming_it() -> None:
    sent: list[LifecycleCall] = []
    run = dispatch(_Typo(), "squash", {}, sent.append)
    assert sent == [] and run.calls == []
    assert run.degraded == (
        f"PayloadError: action: unknown lifecycle action 'precompact'; known: {KNOWN}"
    )
    assert run.output.to_wire() == {"data": None, "stdout": "", "exitCode": 0}
