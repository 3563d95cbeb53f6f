"""Hook groups spliced into and out of a settings file the user edits, as text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from signet_sdk.installing import json5edit as j5
from signet_sdk.installing.files import InstallError
from signet_sdk.installing.group_lists import (
    check_group_lists,
    event_lists,
    merge_groups,
    mixes_ours,
    only_ours,
    remove_groups,
)

USER = """{
  // the user's
  "hooks": {
    "enabled": true,
    "BeforeTool": [{"matcher": "x", "hooks": [{"type": "command", "command": "mine"}]}]
  }
}
"""


def _ours(handler: Any) -> bool:
    return isinstance(handler, dict) and str(handler.get("command", "")).startswith("ours ")


def _group(event: str, timeout: int = 5) -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": f"ours {event}", "timeout": timeout}]}


def test_a_group_is_ours_only_when_every_handler_is() -> None:
    mixed = {"hooks": [{"command": "ours A"}, {"command": "mine"}]}
    assert only_ours(_group("A"), _ours) and mixes_ours(_group("A"), _ours)
    assert not only_ours(mixed, _ours) and mixes_ours(mixed, _ours)
    assert not only_ours({"hooks": []}, _ours) and not only_ours("x", _ours)


def test_merged_and_removed_the_users_bytes_come_back(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    groups = {"BeforeTool": _group("BeforeTool"), "SessionStart": _group("SessionStart")}
    merged, root, created = merge_groups(USER, groups, _ours)
    assert created == [["hooks", "SessionStart"]]
    assert merged.startswith('{\n  // the user\'s\n  "hooks": {\n    "enabled": true,')
    assert j5.plain(root) == j5.plain(j5.parse(merged))
    assert merge_groups(merged, groups, _ours)[0] == merged  # up to date: unchanged
    newer, _, _ = merge_groups(merged, {"BeforeTool": _group("BeforeTool", 9)}, _ours)
    assert j5.plain(j5.find(j5.parse(newer), ["hooks", "BeforeTool"]))[-1] == j5.as_parsed(
        _group("BeforeTool", 9)
    )
    events = event_lists(j5.parse(newer), skip={"enabled"})
    assert events == ["BeforeTool", "SessionStart"]
    left, emptied, notes = remove_groups(path, newer, events, _ours)
    assert emptied == [["hooks", "BeforeTool"], ["hooks", "SessionStart"]] and notes == []
    assert j5.remove_member(left, ["hooks", "SessionStart"]) == USER


def test_a_mixed_group_stays_and_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    text = '{"hooks": {"Stop": [{"hooks": [{"command": "ours Stop"}, {"command": "mine"}]}]}}'
    left, emptied, notes = remove_groups(path, text, ["Stop"], _ours)
    assert left == text and emptied == []
    assert notes == [f"{path}: hooks.Stop has a group mixing ours with yours; kept"]


def test_a_list_not_of_group_shape_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    bad = j5.parse('{"hooks": {"enabled": true, "Stop": [{"hooks": 3}]}}')
    with pytest.raises(InstallError, match=r"settings\.json: hooks\.enabled is not a list"):
        check_group_lists(path, bad)
    with pytest.raises(InstallError, match=r"hooks\.Stop\[0\] is not a hook group"):
        check_group_lists(path, bad, ["Stop"])
    check_group_lists(path, bad, ["SessionStart"])  # only the events named are looked at
