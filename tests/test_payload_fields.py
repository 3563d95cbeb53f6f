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


def test_command_hook_handler_checks_the_payload_against_its_event() -> None:
    from signet_sdk.plugin import PayloadError, command_hook_handler

    handlers = {"Start": "start", "Stop": "stop"}
    assert command_hook_handler("Stop", {"hook_event_name": "Stop"}, handlers) == "stop"
    assert command_hook_handler("Start", {}, handlers) == "start"
    cases = [
        ("Start", [], "payload", "must be a JSON object"),
        ("Start", {"hook_event_name": "Stop"}, "hook_event_name", "registered for 'Start'"),
        ("Start", {"hook_event_name": 3}, "hook_event_name", "must be a string"),
        ("Other", {}, "hook_event_name", "unsupported event 'Other'; known: Start, Stop"),
    ]
    for event, payload, field, says in cases:
        with pytest.raises(PayloadError) as caught:
            command_hook_handler(event, payload, handlers)
        assert caught.value.field == field and says in str(caught.value)
