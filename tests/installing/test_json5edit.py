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


def test_a_document_nested_past_the_recursion_limit_is_an_error_not_a_crash() -> None:
    deep = '{"a": ' + "[" * 5000 + "]" * 5000 + "}"
    with pytest.raises(j5.Json5Error) as caught:
        j5.parse(deep)
    assert str(caught.value) == "line 1: nested too deeply to edit"


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


# -- what is added follows the file's own layout ------------------------------------


@pytest.mark.parametrize("unit", ["    ", "\t"])
def test_a_new_member_is_indented_with_the_files_own_unit(unit: str) -> None:
    doc = "{\n" + unit + '"a": 1\n}\n'
    text, change = j5.set_member(doc, ["b", "c"], {"d": [1]})
    lines = ['"a": 1,', '"b": {', '"c": {', '"d": [', "1", "]", "}", "}"]
    depths = [1, 1, 2, 3, 4, 3, 2, 1]
    laid_out = (unit * d + line + "\n" for d, line in zip(depths, lines, strict=True))
    assert text == "{\n" + "".join(laid_out) + "}\n"
    assert change == ["created", ["b"]]
    assert j5.remove_member(text, ["b"]) == doc


def test_the_unit_is_read_past_a_comment_header() -> None:
    doc = '/*\n * my settings\n */\n{\n    "a": 1\n}\n'
    text, _ = j5.set_member(doc, ["b"], {"c": True})
    assert text.endswith('    "a": 1,\n    "b": {\n        "c": true\n    }\n}\n')
    assert j5.remove_member(text, ["b"]) == doc


def test_an_empty_object_in_a_spread_file_gets_its_member_on_a_line_of_its_own() -> None:
    doc = '{\n\t"hooks": {}\n}\n'
    text, change = j5.set_member(doc, ["hooks", "Stop"], [{"x": 1}])
    stop = '"Stop": [\n\t\t\t{\n\t\t\t\t"x": 1\n\t\t\t}\n\t\t]'
    assert text == '{\n\t"hooks": {\n\t\t' + stop + "\n\t}\n}\n"
    assert change == ["created", ["hooks", "Stop"]]
    assert j5.remove_member(text, ["hooks", "Stop"]) == doc


def test_an_empty_document_is_laid_out_over_lines_and_given_back_empty() -> None:
    text, _ = j5.set_member("{}\n", ["plugins", "enabled"], True)
    assert text == '{\n  "plugins": {\n    "enabled": true\n  }\n}\n'
    assert j5.remove_member(text, ["plugins"]) == "{}\n"


def test_a_compact_container_stays_on_one_line() -> None:
    doc = '{\n    "plugins": {"allow": ["a"]}\n}\n'
    text, change = j5.set_member(doc, ["plugins", "entries", "signet-sdk"], {"enabled": True})
    assert text == (
        '{\n    "plugins": {"allow": ["a"], "entries": {"signet-sdk": {"enabled": true}}}\n}\n'
    )
    assert change is not None and j5.remove_member(text, change[1]) == doc
    added = j5.append_item(doc, ["plugins", "allow"], {"b": [2]})
    assert added == '{\n    "plugins": {"allow": ["a", {"b": [2]}]}\n}\n'
    assert j5.remove_item(added, ["plugins", "allow"], j5.as_parsed({"b": [2]})) == doc


def test_an_item_appended_to_a_spread_list_goes_on_a_line_of_its_own() -> None:
    doc = '{\n    "allow": [\n        "a"\n    ],\n    "deny": []\n}\n'
    added = j5.append_item(doc, ["allow"], {"k": [1]})
    assert added.startswith(
        '{\n    "allow": [\n        "a",\n        {\n            "k": [\n'
        "                1\n            ]\n        }\n    ],\n"
    )
    assert j5.remove_item(added, ["allow"], j5.as_parsed({"k": [1]})) == doc
    into_empty = j5.append_item(doc, ["deny"], "x")
    assert into_empty.endswith('    "deny": [\n        "x"\n    ]\n}\n')
    assert j5.remove_item(into_empty, ["deny"], "x") == doc


def test_a_replaced_value_is_laid_out_from_its_own_line() -> None:
    doc = '{\n\t"a": {\n\t\t"b": 1\n\t}\n}\n'
    text, change = j5.set_member(doc, ["a", "b"], {"c": 1})
    assert text == '{\n\t"a": {\n\t\t"b": {\n\t\t\t"c": 1\n\t\t}\n\t}\n}\n'
    assert change == ["replaced", ["a", "b"], "1"]
    assert j5.replace_value(text, change[1], change[2]) == doc
