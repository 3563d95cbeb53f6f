"""The fake Anthropic Messages API on the wire: what it answers, byte for byte, and what it refuses.

Read over a raw socket, so the framing is seen as a client sees it: one JSON
body with its length, or a chunked event stream (one event per chunk, and a
cut stream without its last chunk).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from signet_sdk.testing.fake_anthropic import FakeAnthropic

from . import wire_support

KEY = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
TOOLS = [{"name": "memory_search", "description": "Search.", "input_schema": {"type": "object"}}]
USER = [{"role": "user", "content": "how do we deploy?"}]
USAGE = {
    "input_tokens": 12,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
    "output_tokens": 5,
}


def body(**extra: Any) -> dict[str, Any]:
    return {"model": "claude-test", "max_tokens": 64, "messages": USER, **extra}


class Answer(wire_support.Answer):
    """An answer from the fake Anthropic server, whose stream names each event."""

    def events(self) -> list[dict[str, Any]]:
        """The stream's events, each named as its data's ``type`` says (checked)."""
        out = []
        for chunk in self.chunks:
            name, data = chunk.decode().removesuffix("\n\n").split("\n")
            event = json.loads(data.removeprefix("data: "))
            assert name == f"event: {event['type']}"
            out.append(event)
        return out


def exchange(
    fake: FakeAnthropic,
    payload: Any,
    headers: dict[str, str] | None = None,
    path: str = "/v1/messages",
    method: str = "POST",
) -> Answer:
    """One request on its own connection, read to the server's close."""
    sent = KEY if headers is None else headers
    return Answer(wire_support.exchange_raw(fake.port, method, path, sent, payload))


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


# -- answers -----------------------------------------------------------------


def test_a_plain_call_gets_one_message_and_the_base_url_has_no_path(fake: FakeAnthropic) -> None:
    assert fake.base_url == f"http://127.0.0.1:{fake.port}"
    got = exchange(fake, body())
    assert got.status == 200
    assert got.headers["content-type"] == "application/json"
    assert got.headers["request-id"] == "req_fake"
    assert got.json() == {
        "id": "msg_fake_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "A fake summary."}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": USAGE,
    }
    with_tools = exchange(fake, body(tools=TOOLS)).json()
    assert with_tools["content"] == [{"type": "text", "text": "Hello from the fake model."}]


def test_a_streamed_text_answer_is_the_apis_event_sequence() -> None:
    with FakeAnthropic(lambda _: "Hi there") as fake:
        got = exchange(fake, body(stream=True))
    assert got.status == 200
    assert got.headers["content-type"] == "text/event-stream"
    assert got.complete
    opening: dict[str, Any] = {
        "id": "msg_fake_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**USAGE, "output_tokens": 1},
    }
    assert got.events() == [
        {"type": "message_start", "message": opening},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "ping"},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "the"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "re"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": USAGE,
        },
        {"type": "message_stop"},
    ]


def test_a_scripted_tool_call_streams_its_input_in_several_pieces(fake: FakeAnthropic) -> None:
    fake.tool_script = [("memory_search", {"query": "deploys"})]
    events = exchange(fake, body(tools=TOOLS, stream=True)).events()
    start = events[1]
    assert start == {
        "type": "content_block_start",
        "index": 0,
        "content_block": {
            "type": "tool_use",
            "id": "toolu_fake_1",
            "name": "memory_search",
            "input": {},
        },
    }
    pieces = [e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta"]
    assert pieces == ["", '{"query', '": "dep', 'loys"}']
    assert json.loads("".join(pieces)) == {"query": "deploys"}
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    assert fake.tool_script == []


def test_the_tool_script_waits_for_a_request_that_offers_the_tool_after_a_user_turn(
    fake: FakeAnthropic,
) -> None:
    fake.tool_script = [("memory_search", {"query": "a"}), ("memory_search", {"query": "b"})]
    # No tools offered, and a conversation ending with the assistant: plain text, script kept.
    assert exchange(fake, body()).json()["stop_reason"] == "end_turn"
    after_assistant = [*USER, {"role": "assistant", "content": "ok"}]
    answered = exchange(fake, body(tools=TOOLS, messages=after_assistant)).json()
    assert answered["stop_reason"] == "end_turn"
    assert len(fake.tool_script) == 2
    first = exchange(fake, body(tools=TOOLS)).json()
    assert first["stop_reason"] == "tool_use"
    assert first["content"] == [
        {"type": "tool_use", "id": "toolu_fake_3", "name": "memory_search", "input": {"query": "a"}}
    ]
    # Tool results come back in a user message: the next call is answered too.
    results = [
        *USER,
        {"role": "assistant", "content": first["content"]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_fake_3", "content": "x"}],
        },
    ]
    second = exchange(fake, body(tools=TOOLS, messages=results)).json()
    assert second["content"][0]["input"] == {"query": "b"}
    assert fake.tool_script == []


def test_usage_is_settable_with_the_cache_fields_on_both_forms(fake: FakeAnthropic) -> None:
    usage = {
        "input_tokens": 3,
        "cache_creation_input_tokens": 40,
        "cache_read_input_tokens": 900,
        "output_tokens": 17,
    }
    fake.usage = usage
    assert exchange(fake, body()).json()["usage"] == usage
    events = exchange(fake, body(stream=True)).events()
    assert events[0]["message"]["usage"] == {**usage, "output_tokens": 1}
    assert events[-2]["usage"] == usage


def test_a_scripted_answer_with_several_calls_and_a_stop_sequence(fake: FakeAnthropic) -> None:
    fake.script_reply(
        "Two looks.",
        tool_calls=[("memory_search", {"q": 1}), ("memory_search", '{"q": 2}', "toolu_mine")],
    )
    fake.script_reply("Done", stop_reason="stop_sequence")
    got = exchange(fake, body()).json()
    assert got["content"] == [
        {"type": "text", "text": "Two looks."},
        {"type": "tool_use", "id": "toolu_fake_1", "name": "memory_search", "input": {"q": 1}},
        {"type": "tool_use", "id": "toolu_mine", "name": "memory_search", "input": {"q": 2}},
    ]
    assert got["stop_reason"] == "tool_use"
    stopped = exchange(fake, body(stop_sequences=["END", "STOP"])).json()
    assert (stopped["stop_reason"], stopped["stop_sequence"]) == ("stop_sequence", "END")
    # The queue is empty again: the default answer is back.
    assert exchange(fake, body()).json()["content"][0]["text"] == "A fake summary."


def test_a_refusal_and_a_max_tokens_stop(fake: FakeAnthropic) -> None:
    fake.script_reply(refusal="I can't help with that.")
    fake.script_reply("Partial answ", stop_reason="max_tokens")
    refused = exchange(fake, body()).json()
    assert refused["stop_reason"] == "refusal"
    assert refused["content"] == [{"type": "text", "text": "I can't help with that."}]
    cut_short = exchange(fake, body(stream=True)).events()
    assert cut_short[-2]["delta"]["stop_reason"] == "max_tokens"


def test_requests_and_message_bodies(fake: FakeAnthropic) -> None:
    exchange(fake, body())
    exchange(fake, {}, path="/v1/models", method="GET")
    exchange(fake, body(max_tokens=9), headers={})
    seen = fake.requests()
    assert [(r["method"], r["path"]) for r in seen] == [
        ("POST", "/v1/messages"),
        ("GET", "/v1/models"),
        ("POST", "/v1/messages"),
    ]
    assert seen[0]["headers"]["x-api-key"] == "k"
    # A refused call was still received: its body is there for the test to read.
    assert fake.message_bodies() == [body(), body(max_tokens=9)]


# -- what it refuses -----------------------------------------------------------


def error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"}


def test_no_key_is_a_401_and_a_bearer_token_is_a_key(fake: FakeAnthropic) -> None:
    got = exchange(fake, body(), headers={"anthropic-version": "2023-06-01"})
    assert got.status == 401
    assert got.json() == error("authentication_error", "x-api-key header is required")
    bearer = {"authorization": "Bearer k", "anthropic-version": "2023-06-01"}
    assert exchange(fake, body(), headers=bearer).status == 200


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"model": None}, "model: Field required"),
        ({"max_tokens": None}, "max_tokens: Field required"),
        ({"messages": None}, "messages: Field required"),
        ({"max_tokens": "64"}, "max_tokens: Input should be a valid integer"),
        ({"model": 7}, "model: Input should be a valid string"),
        ({"messages": {}}, "messages: Input should be a valid list"),
        ({"messages": []}, "messages: at least one message is required"),
        ({"stream": "yes"}, "stream: Input should be a valid boolean"),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field(
    fake: FakeAnthropic, change: dict[str, Any], message: str
) -> None:
    sent = {k: v for k, v in {**body(), **change}.items() if v is not None}
    got = exchange(fake, sent)
    assert got.status == 400
    assert got.json() == error("invalid_request_error", message)


def test_no_version_header_bad_json_and_unknown_paths(fake: FakeAnthropic) -> None:
    got = exchange(fake, body(), headers={"x-api-key": "k"})
    assert (got.status, got.json()) == (
        400,
        error("invalid_request_error", "anthropic-version: header is required"),
    )
    broken = exchange(fake, b'{"model": ')
    assert (broken.status, broken.json()["error"]["type"]) == (400, "invalid_request_error")
    lost = exchange(fake, body(), path="/v1/complete")
    assert (lost.status, lost.json()["error"]["type"]) == (404, "not_found_error")


def test_a_refused_request_leaves_the_queued_fault_and_answer(fake: FakeAnthropic) -> None:
    fake.fail_next(429, retry_after=2)
    fake.script_reply("after the fault")
    assert exchange(fake, body(), headers={"anthropic-version": "x"}).status == 401
    limited = exchange(fake, body())
    assert (limited.status, limited.headers["retry-after"]) == (429, "2")
    assert limited.json() == error(
        "rate_limit_error", "Number of requests has exceeded your rate limit."
    )
    assert exchange(fake, body()).json()["content"][0]["text"] == "after the fault"


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (413, "request_too_large"),
        (429, "rate_limit_error"),
        (500, "api_error"),
        (504, "timeout_error"),
        (529, "overloaded_error"),
        (418, "invalid_request_error"),
        (502, "api_error"),
    ],
)
def test_each_fault_has_the_apis_error_type(fake: FakeAnthropic, status: int, kind: str) -> None:
    fake.fail_next(status, "boom", times=2)
    for _ in range(2):
        got = exchange(fake, body())
        assert (got.status, got.json()) == (status, error(kind, "boom"))
        assert "retry-after" not in got.headers
    assert exchange(fake, body()).status == 200


# -- cut streams ---------------------------------------------------------------


def test_a_cut_stream_stops_inside_the_tool_arguments_and_drops_the_connection(
    fake: FakeAnthropic,
) -> None:
    fake.cut_next_stream()
    fake.script_reply("Looking.", tool_calls=[("memory_search", {"query": "deploys"})])
    exchange(fake, body())  # a non-streamed call is not cut, and takes the scripted answer
    fake.script_reply("Looking.", tool_calls=[("memory_search", {"query": "deploys"})])
    got = exchange(fake, body(stream=True))
    assert got.status == 200
    assert not got.complete
    events = got.events()
    assert events[-1]["delta"] == {"type": "input_json_delta", "partial_json": '{"query'}
    assert "message_stop" not in [e["type"] for e in events]
    # The next stream is whole again.
    assert exchange(fake, body(stream=True)).complete


def test_a_cut_stream_after_a_given_number_of_events_or_with_an_error_event(
    fake: FakeAnthropic,
) -> None:
    fake.cut_next_stream(2)
    fake.cut_next_stream(100, error_status=529)
    first = exchange(fake, body(stream=True))
    assert [e["type"] for e in first.events()] == ["message_start", "content_block_start"]
    assert not first.complete
    failed = exchange(fake, body(stream=True))
    assert failed.complete  # the error event ends the body as usual
    events = failed.events()
    assert events[-2]["type"] == "message_delta"  # every event but the end one, then the error
    assert events[-1] == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }


def test_a_delay_holds_the_answer_back(fake: FakeAnthropic) -> None:
    fake.delay = 30
    headers = {"x-api-key": "k", "anthropic-version": "1"}
    wire_support.assert_no_answer_yet(fake.port, "/v1/messages", headers, body())


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda f: f.script_reply(stop_reason="stop"), "stop_reason: 'stop' is not one of"),
        (lambda f: f.script_reply(tool_calls=[("", {})]), "tool_calls[0]: expected"),
        (
            lambda f: f.script_reply(tool_calls=[("t", "{bad")]),
            "tool_calls[0]: arguments must be a JSON object",
        ),
        (lambda f: f.script_reply(tool_calls=[("t", 3)]), "tool_calls[0]: arguments must be"),
        (lambda f: f.fail_next(302), "status: 302 is not an HTTP error status"),
        (lambda f: f.fail_next(500, times=0), "times: 0 must be at least 1"),
        (lambda f: f.fail_next(429, retry_after=-1), "retry_after: -1 must not be negative"),
        (lambda f: f.cut_next_stream(-1), "after_events: -1 must not be negative"),
        (lambda f: f.cut_next_stream(error_status=200), "error_status: 200 is not an HTTP"),
    ],
)
def test_bad_scripting_is_refused_naming_the_argument(
    fake: FakeAnthropic, call: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        call(fake)
