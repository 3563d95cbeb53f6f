"""The context text every adapter shows its model, for each shape of answer."""

from __future__ import annotations

from typing import Any

import pytest

from signet_sdk.runtime.context import after_fence, context_text

FENCED = "<signet-memory-context>\n# Signet\n[memory active]\n</signet-memory-context>"
NOTES = "## Cross-agent notifications\n### question from reviewer\n> Is the migration done?"


@pytest.mark.parametrize(
    ("answer", "prompt", "shown"),
    [
        ({"inject": "older daemon text"}, False, "older daemon text"),
        ({"inject": "older daemon text"}, True, "older daemon text"),
        ({"inject": "x", "skipped": True}, False, ""),
        ({"inject": "x", "bypassed": True}, True, ""),
        ({"inject": "   "}, False, ""),
        ("not an answer", False, ""),
        (
            {"stableSystemPrompt": "S", "dynamicContext": "D", "inject": FENCED},
            False,
            "S\n\nD",
        ),
        ({"dynamicContext": "D", "inject": FENCED}, True, "D"),
        # A prompt answer shows only the dynamic part; the stable one came at the start.
        ({"stableSystemPrompt": "S", "dynamicContext": "D"}, True, "D"),
        # Notifications appended after the fence follow the split fields, verbatim.
        (
            {"stableSystemPrompt": "S", "dynamicContext": "D", "inject": f"{FENCED}\n\n{NOTES}"},
            False,
            f"S\n\nD\n\n{NOTES}",
        ),
        ({"dynamicContext": "D", "inject": f"{FENCED}\n\n{NOTES}"}, True, f"D\n\n{NOTES}"),
        # Empty split fields: the whole inject, notifications included.
        ({"dynamicContext": " ", "inject": f"{FENCED}\n\n{NOTES}"}, True, f"{FENCED}\n\n{NOTES}"),
    ],
)
def test_context_text(answer: Any, prompt: bool, shown: str) -> None:
    assert context_text(answer, prompt=prompt) == shown


@pytest.mark.parametrize(
    ("inject", "tail"),
    [
        (f"{FENCED}\n\n{NOTES}", NOTES),
        (f"  {FENCED}\n\n{NOTES}\n", NOTES),
        (FENCED, ""),
        (f"{NOTES}\n\n{FENCED}", ""),  # no fence first: nothing is taken for a tail
        ("<signet-memory-context>\ncut short by the size cap", ""),
        (None, ""),
    ],
)
def test_after_fence(inject: Any, tail: str) -> None:
    assert after_fence(inject) == tail
