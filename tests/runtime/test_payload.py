"""Payload field readers the plugin translators share; a wrong type names the path."""

from __future__ import annotations

import pytest

from signet_sdk.runtime.payload import (
    array,
    carried,
    integer,
    mapping,
    messages_jsonl,
    put,
    string,
    without_image_data,
)
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


IMAGE = {"type": "image", "mimeType": "image/png", "data": "aGVsbG8="}


def test_image_data_is_left_out_and_the_rest_kept() -> None:
    message = {"role": "user", "content": [{"type": "text", "text": "see"}, IMAGE]}
    assert without_image_data(message) == {
        "role": "user",
        "content": [{"type": "text", "text": "see"}, {"type": "image", "mimeType": "image/png"}],
    }
    assert message["content"][1] is IMAGE and "data" in IMAGE  # the payload is not changed
    plain = {"role": "user", "content": "hi"}
    assert without_image_data(plain) is plain
    assert without_image_data("x") == "x"


def test_messages_become_message_entry_lines() -> None:
    lines = messages_jsonl([{"role": "user", "content": [IMAGE]}, "skipped", {"role": "x"}])
    assert lines == (
        '{"type":"message","message":{"role":"user","content":[{"type":"image","mimeType":"image/png"}]}}\n'
        '{"type":"message","message":{"role":"x"}}\n'
    )
    assert messages_jsonl([]) == messages_jsonl([1, None]) == ""


def test_messages_nested_too_deeply_name_the_field() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(PayloadError) as raised:
        messages_jsonl([{"content": deep}], "held.messages")
    assert raised.value.field == "held.messages"
