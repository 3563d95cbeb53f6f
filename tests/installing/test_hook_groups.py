"""The shared ``hooks`` block editor of the Claude Code and Codex installers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from signet_sdk.installing.hook_groups import (
    check_hook_groups,
    merge_hook_groups,
    unmerge_hook_groups,
)


def ours(handler: Any) -> bool:
    return isinstance(handler, dict) and str(handler.get("command", "")).startswith("sdk ")


def mine(event: str, timeout: int = 10) -> dict[str, Any]:
    return {"type": "command", "command": f"sdk {event}", "timeout": timeout}


USER = {"type": "command", "command": "lint", "timeout": 3}


def test_merge_adds_one_group_per_event_and_leaves_the_rest() -> None:
    data = {"model": "x", "hooks": {"Stop": [{"matcher": "", "hooks": [USER]}]}}
    merged = merge_hook_groups(data, {"Start": mine("Start"), "Stop": mine("Stop")}, ours)
    assert merged == {
        "model": "x",
        "hooks": {
            "Stop": [{"matcher": "", "hooks": [USER]}, {"hooks": [mine("Stop")]}],
            "Start": [{"hooks": [mine("Start")]}],
        },
    }
    assert data["hooks"]["Stop"] == [{"matcher": "", "hooks": [USER]}]  # not edited in place
    assert merge_hook_groups(merged, {"Start": mine("Start"), "Stop": mine("Stop")}, ours) == merged


def test_merge_updates_ours_where_it_stood_and_drops_duplicates() -> None:
    data = {
        "hooks": {
            "Stop": [
                {"hooks": [USER, mine("Stop", 1)]},
                {"matcher": "x", "hooks": [mine("Stop", 2)]},  # a duplicate from an old install
                {"hooks": []},  # the user's, empty: kept
            ]
        }
    }
    merged = merge_hook_groups(data, {"Stop": mine("Stop", 30)}, ours)
    assert merged["hooks"]["Stop"] == [{"hooks": [USER, mine("Stop", 30)]}, {"hooks": []}]


def test_unmerge_removes_ours_and_only_what_they_filled() -> None:
    data = {
        "hooks": {
            "Start": [{"hooks": [mine("Start")]}],
            "Stop": [{"hooks": [USER, mine("Stop")]}, {"hooks": []}],
        }
    }
    assert unmerge_hook_groups(data, ours) == {
        "hooks": {"Stop": [{"hooks": [USER]}, {"hooks": []}]}
    }
    assert unmerge_hook_groups({"hooks": {"Start": [{"hooks": [mine("Start")]}]}}, ours) == {}
    untouched = {"hooks": {}, "other": 1}
    assert unmerge_hook_groups(untouched, ours) == untouched


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ([], "expected a JSON object at the top level"),
        ({"hooks": []}, "'hooks' must be an object, got list"),
        ({"hooks": None}, "'hooks' must be an object, got null"),
        ({"hooks": {"Stop": {}}}, "hooks.Stop must be a list of matcher groups"),
        ({"hooks": {"Stop": ["x"]}}, "hooks.Stop[0] must be an object"),
        ({"hooks": {"Stop": [{"hooks": {}}]}}, "hooks.Stop[0].hooks must be a list"),
    ],
)
def test_check_names_the_file_and_the_key(data: Any, says: str) -> None:
    class Refused(Exception):
        pass

    with pytest.raises(Refused) as caught:
        check_hook_groups(data, Path("/home/u/settings.json"), Refused)
    assert str(caught.value) == f"/home/u/settings.json: {says}"


def test_check_returns_a_good_block_as_it_is() -> None:
    data = {"hooks": {"Stop": [{"matcher": "", "hooks": [USER]}]}}
    assert check_hook_groups(data, Path("s.json"), ValueError) is data
    assert check_hook_groups({}, Path("s.json"), ValueError) == {}
