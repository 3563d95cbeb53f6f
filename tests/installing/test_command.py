"""What an installer counts as its own hook command, and the deadlines it registers hooks with."""

from __future__ import annotations

import pytest

from signet_sdk.installing.command import event_deadlines, hook_timeouts, runs_sdk
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


_ARGS = ("hook", "qwen-code")


@pytest.mark.parametrize(
    "command",
    [
        "/home/u/.venv/bin/signet-sdk hook qwen-code Stop",
        "'/home/u/my env/bin/signet-sdk' hook qwen-code SessionStart",
        "/usr/bin/python3.12 -m signet_sdk hook qwen-code PreCompact",
        "signet-sdk hook qwen-code",
    ],
)
def test_ours_is_the_sdk_from_any_environment_with_our_arguments(command: str) -> None:
    assert runs_sdk({"command": command}, _ARGS)


@pytest.mark.parametrize(
    "command",
    [
        # The user's own commands that mention ours: never updated, never removed.
        "env SIGNET_DAEMON_URL=http://10.0.0.5:3850 signet-sdk hook qwen-code Stop",
        "timeout 30 signet-sdk hook qwen-code Stop",
        "echo signet-sdk hook qwen-code Stop >> /tmp/log",
        "notify-send done; signet-sdk hook qwen-code Stop",
        "signet-sdk hook qwen-code Stop; rm -rf ~/tmp",
        "signet-sdk hook qwen-code Stop && notify-send done",
        "signet-sdk hook qwen-code Stop --verbose",
        "/usr/bin/python3 -c 'import x' -m signet_sdk hook qwen-code Stop",
        # Someone else's command, or not a command at all.
        "signet-sdk hook codex Stop",
        "signet-sdk-wrapper hook qwen-code Stop",
        "echo 'unbalanced",
    ],
)
def test_a_command_that_only_mentions_ours_is_the_users(command: str) -> None:
    assert not runs_sdk({"command": command}, _ARGS)


def test_a_legacy_recogniser_sees_the_commands_words() -> None:
    seen: list[list[str]] = []

    def legacy(words: list[str]) -> bool:
        seen.append(words)
        return words[0] == "old-hook"

    assert runs_sdk({"command": "old-hook Stop"}, _ARGS, legacy)
    assert seen == [["old-hook", "Stop"]]
    assert not runs_sdk({"command": 42}, _ARGS, legacy)
