"""The hook path's JSON: byte-for-byte what the json package gives, without its imports."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from signet_sdk.wire.jsonfast import dumps, loads, loads_payload

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=30,
)


@given(values)
def test_dumps_matches_json(value: Any) -> None:
    compact = (",", ":")
    assert dumps(value) == json.dumps(value, separators=compact, ensure_ascii=False)
    assert dumps(value, ascii_only=True) == json.dumps(value, separators=compact)
    assert dumps(value, sort_keys=True) == json.dumps(
        value, separators=compact, ensure_ascii=False, sort_keys=True
    )


@given(values)
def test_loads_round_trips(value: Any) -> None:
    text = json.dumps(value, indent=1)
    assert loads(text) == json.loads(text)
    assert loads(text.encode("utf-8")) == json.loads(text)
    assert loads(f" \n\t{text}\r\n ") == json.loads(text)


@pytest.mark.parametrize("bad", ["", "  ", "{", "[1,]", "{} x", "nul", '{"a" 1}', "[1] [2]"])
def test_invalid_documents_are_value_errors(bad: str) -> None:
    with pytest.raises(ValueError):
        loads(bad)
    with pytest.raises(ValueError):
        json.loads(bad)  # the same inputs json refuses


def test_unserialisable_values_are_type_errors() -> None:
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        dumps({"a": object()})


def test_importing_it_loads_neither_json_nor_re() -> None:
    code = "import sys, signet_sdk.wire.jsonfast; print('json' in sys.modules, 're' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_a_bad_document_is_a_value_error_saying_why_before_json_is_imported() -> None:
    # The accelerator reports most syntax errors through json.decoder, which
    # the hook path has not imported: it must still be a ValueError with a
    # message a user can act on, not a SystemError.
    code = (
        "from signet_sdk.wire.jsonfast import loads\n"
        "for bad in ('{', '{\"a\"', '{\"a\" 1}'):\n"
        "    try:\n"
        "        loads(bad)\n"
        "    except ValueError as exc:\n"
        "        print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [
        "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        "Expecting ':' delimiter: line 1 column 5 (char 4)",
        "Expecting ':' delimiter: line 1 column 6 (char 5)",
    ]


@pytest.mark.parametrize(
    "document",
    [b'\xef\xbb\xbf{"a": 1}', bytearray(b'\xef\xbb\xbf{"a": 1}'), '\ufeff{"a": 1}'],
)
def test_a_leading_byte_order_mark_is_no_content(document: str | bytes) -> None:
    assert loads_payload(document) == {"a": 1}


def test_a_byte_order_mark_anywhere_else_is_still_refused() -> None:
    with pytest.raises(ValueError):
        loads_payload(b'{"a": 1}\xef\xbb\xbf')
