"""The JSON5 text edits behind the installer: parsed right, spliced in, spliced back out."""

from __future__ import annotations

import pytest

from signet_sdk.installing import json5edit as j5

DOCS = [
    "{}\n",
    "{\n}\n",
    "// leading comment\n{ /* inside */ }\n",
    '{"a": 1}',
    "{a: 1, b: [1, 2,], c: {d: 'x'},}\n",
    "{\n  // c\n  gateway: { port: 0x4965, bind: 'loopback' }, /* tail */\n  n: -.5e3,\n}\n",
    "{\n  plugins: {\n    entries: { other: { enabled: false } }, // theirs\n  },\n}\n",
    "{ plugins: { allow: [], slots: { memory: 'memory-core' } } }",
    '{\n\t"s": "a\\"b\\\\c\\u00e9",\n\t"t": \'it\\\'s\',\n}\n',
]


def test_parse_reads_json5() -> None:
    root = j5.parse(DOCS[5])
    assert j5.plain(root) == {"gateway": {"port": "0x4965", "bind": "loopback"}, "n": "-.5e3"}
    assert j5.plain(j5.parse(DOCS[8])) == {"s": 'a"b\\cé', "t": "it's"}
    assert j5.plain(j5.parse(DOCS[4])) == {"a": "1", "b": ["1", "2"], "c": {"d": "x"}}


@pytest.mark.parametrize("bad", ["{a: 1", "{a 1}", "{a: 1} x", "{'a: 1}", "{/* x }", "[1,,]"])
def test_parse_errors_name_the_line(bad: str) -> None:
    with pytest.raises(j5.Json5Error, match="line 1"):
        j5.parse(bad)


@pytest.mark.parametrize("doc", DOCS)
def test_set_then_remove_gives_the_bytes_back(doc: str) -> None:
    if j5.parse(doc).kind != "object":
        pytest.skip("not an object")
    path = ["plugins", "entries", "signet-sdk", "enabled"]
    text, change = j5.set_member(doc, path, True)
    assert change is not None and change[0] == "created"
    assert j5.plain(j5.find(j5.parse(text), path) or j5.parse("0")) is True
    assert j5.remove_member(text, change[1]) == doc
    again, nothing = j5.set_member(text, path, True)
    assert (again, nothing) == (text, None)


def test_replaced_values_keep_their_old_text() -> None:
    doc = DOCS[7]
    text, change = j5.set_member(doc, ["plugins", "slots", "memory"], "signet-sdk")
    assert change == ["replaced", ["plugins", "slots", "memory"], "'memory-core'"]
    assert j5.replace_value(text, change[1], change[2]) == doc
    added = j5.append_item(text, ["plugins", "allow"], "signet-sdk")
    assert j5.plain(j5.find(j5.parse(added), ["plugins", "allow"]) or j5.parse("0")) == [
        "signet-sdk"
    ]
    assert j5.remove_item(added, ["plugins", "allow"], "signet-sdk") == text


def test_a_scalar_in_the_way_is_an_error() -> None:
    with pytest.raises(j5.Json5Error, match="plugins is not an object"):
        j5.set_member("{plugins: 3}", ["plugins", "entries", "x"], True)


def test_as_parsed_is_what_plain_reads_back_so_an_installed_member_compares_equal() -> None:
    wanted = {"command": "signet-sdk", "timeout": 5000, "trust": True, "args": ["mcp"]}
    assert wanted != j5.as_parsed(wanted)  # numbers come back as their text
    written, _ = j5.set_member('{\n  "a": 1\n}\n', ["mcpServers", "signet"], wanted)
    found = j5.find(j5.parse(written), ["mcpServers", "signet"])
    assert found is not None and j5.plain(found) == j5.as_parsed(wanted)
