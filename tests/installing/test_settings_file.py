"""Our hook groups and ``signet`` server in one settings file: what goes in, what comes out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from signet_sdk.installing import json5edit as j5
from signet_sdk.installing.files import InstallError
from signet_sdk.installing.mcp import sdk_mcp_entry
from signet_sdk.installing.settings_file import merge_settings, unmerge_settings

PATH = Path("/home/u/.qwen/settings.json")
ENTRY = sdk_mcp_entry("qwen-code", "/venv/bin/python")
GROUPS = {
    event: {"hooks": [{"type": "command", "command": f"ours {event}", "timeout": 5000}]}
    for event in ("SessionStart", "Stop")
}
USERS_SERVER = """{
  "mcpServers": {
    "signet": {"command": "my-signet", "args": ["serve"]}
  }
}
"""


def _ours(handler: Any) -> bool:
    return isinstance(handler, dict) and str(handler.get("command", "")).startswith("ours ")


def _plain(text: str) -> Any:
    return j5.plain(j5.parse(text))


def test_a_users_own_signet_server_is_refused_naming_the_file() -> None:
    with pytest.raises(InstallError, match=r"settings\.json: mcpServers\.signet is another server"):
        merge_settings(PATH, USERS_SERVER, GROUPS, _ours, ENTRY)
    text, created = merge_settings(PATH, USERS_SERVER, GROUPS, _ours, None)  # --no-mcp
    assert _plain(text)["mcpServers"]["signet"]["command"] == "my-signet"
    assert ["hooks"] in created and ["mcpServers"] not in created
    back, notes = unmerge_settings(PATH, text, _ours, created)
    assert back == USERS_SERVER and notes == []


def test_what_the_install_created_goes_once_empty_though_the_file_was_edited() -> None:
    user = '{\n  "ui": {"theme": "dark"}\n}\n'
    text, created = merge_settings(PATH, user, GROUPS, _ours, ENTRY)
    assert ["hooks"] in created and ["mcpServers"] in created
    edited = text.replace('"dark"', '"light"')
    back, notes = unmerge_settings(PATH, edited, _ours, created)
    # Not one emptied event list, "hooks" or "mcpServers" is left behind.
    assert back == user.replace('"dark"', '"light"') and notes == []


def test_without_a_record_only_what_our_removal_emptied_goes() -> None:
    user = '{"hooks": {"enabled": true, "Stop": []}, "mcpServers": {"docs": {"command": "d"}}}\n'
    text, _ = merge_settings(PATH, user, GROUPS, _ours, ENTRY)
    back, _ = unmerge_settings(PATH, text, _ours, None, settings_keys=("enabled",))
    # The user's own empty Stop list went with ours (our removal emptied it); their settings stay.
    assert _plain(back) == {"hooks": {"enabled": True}, "mcpServers": {"docs": {"command": "d"}}}


@pytest.mark.parametrize(
    "user", ['{"hooks": {}}\n', '{"mcpServers": {}}\n', '{"hooks": {}, "a": 1}\n']
)
def test_without_a_record_a_users_own_empty_members_are_not_ours_to_remove(user: str) -> None:
    # Nothing of ours in the file: nothing goes (install records this as the file's "before").
    assert unmerge_settings(PATH, user, _ours, None) == (user, [])


def test_a_server_renamed_signet_by_the_user_after_install_is_kept_with_a_note() -> None:
    text, created = merge_settings(PATH, None, GROUPS, _ours, ENTRY)
    theirs = text.replace('"args": [\n', '"args": [\n        "--theirs",\n').replace(
        ENTRY["command"], "their-own"
    )
    back, notes = unmerge_settings(PATH, theirs, _ours, created)
    kept = {**ENTRY, "command": "their-own", "args": ["--theirs", *ENTRY["args"]]}
    assert _plain(back) == {"mcpServers": {"signet": kept}}
    assert notes == [f"{PATH}: mcpServers.signet does not run signet-sdk; kept"]
