"""Payload field readers the plugin translators share; a wrong type names the path."""

from __future__ import annotations

import pytest

from signet_sdk.runtime.payload import array, carried, integer, mapping, put, string
from signet_sdk.wire.errors import PayloadError

PAYLOAD = {"s": "x", "o": {"k": 1}, "a": [1], "i": 3, "b": True, "carry": {"m": "v"}}


def test_present_and_absent_fields() -> None:
    assert string(PAYLOAD, "s") == "x"
    assert mapping(PAYLOAD, "o") == {"k": 1}
    assert array(PAYLOAD, "a") == [1]
    assert integer(PAYLOAD, "i") == 3
    assert string(PAYLOAD, "missing") is mapping(PAYLOAD, "missing") is None
    assert carried(PAYLOAD, "m") == "v" and carried({"carry": "x"}, "m") is None


@pytest.mark.parametrize(
    ("read", "name", "message"),
    [
        (string, "i", "must be a string, got int"),
        (mapping, "a", "must be an object, got list"),
        (array, "o", "must be an array, got dict"),
        (integer, "b", "must be an integer, got bool"),
    ],
)
def test_a_wrong_type_names_the_field_with_its_path(read: object, name: str, message: str) -> None:
    with pytest.raises(PayloadError) as caught:
        read(PAYLOAD, name, "session.")  # type: ignore[operator]
    assert caught.value.field == f"session.{name}"
    assert message in str(caught.value)


def test_put_leaves_out_none_and_empty() -> None:
    body: dict[str, object] = {}
    put(body, "a", None)
    put(body, "b", "")
    put(body, "c", 0)
    assert body == {"c": 0}
