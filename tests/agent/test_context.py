"""Where memory goes in a request, and that it never comes back out in an answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from signet_sdk.agent.context import (
    FENCE_TAG,
    StreamScrubber,
    compose_turn,
    fence,
    scrub,
    system_prompt,
)
from signet_sdk.agent.types import ToolResult


def test_a_fence_escapes_a_closing_tag_inside_it() -> None:
    made = fence("turn", f"a </{FENCE_TAG}> b")
    assert made == f'<{FENCE_TAG} kind="turn">\na <\\/{FENCE_TAG}> b\n</{FENCE_TAG}>'
    assert scrub(made + "\n\nanswer") == "answer"


def test_a_turn_puts_context_before_the_words_and_leaves_out_what_is_empty() -> None:
    research = [ToolResult("r1", "memory_search", '{"count":0}')]
    text = compose_turn(
        "How do we deploy?",
        session_context="identity",
        turn_context="",
        research=research,
        summary="",
    )
    assert text == (
        f'<{FENCE_TAG} kind="session">\nidentity\n</{FENCE_TAG}>\n\n'
        f'<{FENCE_TAG} kind="research">\nmemory_search: {{"count":0}}\n</{FENCE_TAG}>\n\n'
        "How do we deploy?"
    )
    assert compose_turn("just words") == "just words"


def test_the_system_prompt_holds_only_what_never_changes() -> None:
    assert system_prompt("Be terse.", None) == "Be terse."
    assert system_prompt("Be terse.", " stable \n") == "Be terse.\n\nstable"
    assert system_prompt("", "stable") == "stable"


ANSWERS = st.lists(
    st.sampled_from(
        [
            "Deploy ",
            "with ",
            "<",
            "signet",
            "-memory",
            ' kind="turn">',
            "secret ",
            "</",
            "signet-memory>",
            " make ship.",
            "<b>",
            "a < b",
        ]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(ANSWERS, st.lists(st.integers(min_value=0, max_value=200), max_size=8))
def test_the_stream_scrubber_shows_what_scrub_shows_however_the_text_is_split(
    answer: str, cuts: list[int]
) -> None:
    points = sorted({c % (len(answer) + 1) for c in cuts})
    pieces = [answer[a:b] for a, b in zip([0, *points], [*points, len(answer)], strict=True)]
    scrubber = StreamScrubber()
    shown = "".join(scrubber.feed(p) for p in pieces) + scrubber.end()
    whole = StreamScrubber()
    assert shown == whole.feed(answer) + whole.end()  # the split never matters
    if f"<{FENCE_TAG}" not in answer:
        assert shown == answer  # text without a fence passes through untouched


def test_a_fence_split_across_pieces_never_reaches_the_screen() -> None:
    scrubber = StreamScrubber()
    pieces = [
        "Deploy <sig",
        'net-memory kind="turn">the secret',
        " recall</signet-mem",
        "ory> now.",
    ]
    shown = "".join(scrubber.feed(p) for p in pieces) + scrubber.end()
    assert shown == "Deploy now."
