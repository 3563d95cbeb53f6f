"""Daemon answers whose text no UTF-8 encoder takes (signet_sdk.runtime.dispatch.mend_answer).

The daemon (JavaScript) may cut a context in the middle of a surrogate pair
and write the half as ``"\\ud83d"``; decoded, the half is a lone surrogate. The
harness's answer must still be written, with U+FFFD where the half was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from signet_sdk.runtime.dispatch import dispatch, mend_answer
from signet_sdk.runtime.handlers import EventTranslator, on
from signet_sdk.wire.lifecycle import LifecycleCall


class Prompting(EventTranslator):
    """Puts the daemon's ``inject`` in front of the model, as every context event does."""

    context_events = frozenset({"prompt"})

    @on("prompt")
    def _prompt(self, payload: Mapping[str, Any], scope: Any) -> list[LifecycleCall]:
        return [LifecycleCall("user_prompt_submit", {"sessionKey": "s", "prompt": "p"})]


def test_half_a_pair_in_the_answer_becomes_one_replacement_character() -> None:
    sent: list[LifecycleCall] = []

    def send(call: LifecycleCall) -> Any:
        sent.append(call)
        return {"inject": "make ship \ud83d", "memories": [{"content": "\udc00x"}]}

    run = dispatch(Prompting(), "prompt", {}, send)
    assert [(c.action, c.body) for c in sent] == [
        ("user_prompt_submit", {"sessionKey": "s", "prompt": "p"})
    ]
    assert run.error is None
    assert run.output.text == '{"context":"make ship \ufffd"}'
    assert run.output.text.encode("utf-8") == b'{"context":"make ship \xef\xbf\xbd"}'
    assert run.results == [{"inject": "make ship \ufffd", "memories": [{"content": "\ufffdx"}]}]


def test_a_whole_pair_split_in_two_is_joined_and_clean_text_is_kept() -> None:
    assert mend_answer({"inject": "\ud83d\ude00", "k\ud800": ["ok", 1, None]}) == {
        "inject": "\U0001f600",
        "k\ufffd": ["ok", 1, None],
    }
    text = "plain context é"
    assert mend_answer(text) is text
