"""A JSON file reshaped to hold a wanted value: the fewest spans change, in the file's layout."""

from __future__ import annotations

import json
from typing import Any

import pytest

from signet_sdk.installing.json_layout import indent_unit, line_lead
from signet_sdk.installing.json_reshape import reshape

HANDLER = {"type": "command", "command": "signet-sdk hook claude-code Stop", "timeout": 12}


def test_the_files_unit_and_a_lines_lead_are_read_from_its_text() -> None:
    assert indent_unit('{\n    "a": 1\n}\n') == "    "
    assert indent_unit('{\n\t"a": 1\n}\n') == "\t"
    assert indent_unit('{"a": 1}') == "  "  # none shown: two spaces
    assert indent_unit('/*\n * header\n */\n{\n\t"a": 1\n}\n') == "\t"
    text = '{\n    "a": {"b": 1}\n}\n'
    assert line_lead(text, text.index('"b"')) == "    "


@pytest.mark.parametrize("unit", ["    ", "\t"])
def test_members_added_in_the_files_unit_and_removed_back_to_its_bytes(unit: str) -> None:
    doc = "{\n" + unit + '"model": "opus",\n' + unit + '"hooks": {}\n}\n'
    data: dict[str, Any] = json.loads(doc)
    want = {**data, "hooks": {"Stop": [{"hooks": [HANDLER]}]}}
    text = reshape(doc, want)
    nested = json.dumps(want["hooks"], indent=unit).replace("\n", "\n" + unit)
    assert text == "{\n" + unit + '"model": "opus",\n' + unit + '"hooks": ' + nested + "\n}\n"
    assert reshape(text, want) == text  # nothing to change: the same text
    assert reshape(text, data) == doc


def test_a_compact_list_stays_on_one_line_and_an_item_goes_where_wanted() -> None:
    doc = '{\n    "allow": ["a", "c"],\n    "n": 1\n}\n'
    text = reshape(doc, {"allow": ["a", "b", "c"], "n": 2})
    assert text == '{\n    "allow": ["a", "b", "c"],\n    "n": 2\n}\n'
    assert reshape(text, json.loads(doc)) == doc


def test_an_only_member_taken_out_leaves_an_empty_object() -> None:
    doc = '{\n  "mcpServers": {\n    "signet": {"command": "x"}\n  },\n  "a": [1]\n}\n'
    assert reshape(doc, {"mcpServers": {}, "a": [1]}) == '{\n  "mcpServers": {},\n  "a": [1]\n}\n'
    assert reshape(doc, {"a": [1]}) == '{\n  "a": [1]\n}\n'
