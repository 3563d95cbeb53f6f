"""The deadlines an installer registers hooks with, read the same way by every installer."""

from __future__ import annotations

from signet_sdk.installing.command import event_deadlines, hook_timeouts
from signet_sdk.runtime.plugin import EventSpec


def _events() -> dict[str, EventSpec]:
    return {
        "Start": EventSpec("Start", "session_start"),
        "Prompt": EventSpec("Prompt", "prompt_submit"),
        "End": EventSpec("End", "default", detach=True),
    }


def test_each_event_gets_its_classes_deadline_in_the_plugins_order() -> None:
    defaults = hook_timeouts({})
    deadlines = event_deadlines(_events())
    assert list(deadlines) == ["Start", "Prompt", "End"]
    assert deadlines["Start"] == defaults.for_class("session_start")
    assert deadlines["Prompt"] == defaults.for_class("prompt_submit")
    assert all(isinstance(s, float) and s > 0 for s in deadlines.values())


def test_the_environment_moves_the_deadline() -> None:
    env = {"SIGNET_SESSION_START_TIMEOUT": "41500"}
    assert event_deadlines(_events(), env)["Start"] == 41.5
    assert event_deadlines(_events(), env)["Prompt"] == event_deadlines(_events())["Prompt"]
