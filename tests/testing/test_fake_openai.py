"""The fake OpenAI server's scripted answers, faults, cut streams and delay, on the wire.

Its default answers are what the harnesses' end-to-end tests (OpenCode, pi,
OpenClaw, Hermes) were written against, so the first tests pin them byte for
byte: nothing queued, nothing changed. The rest read each new answer over a
raw socket, so the framing is seen as a client sees it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from signet_sdk.testing.fake_openai import FakeOpenAI

from . import wire_support

TOOLS = [{"type": "function", "function": {"name": "memory_search", "parameters": {}}}]
USER = [{"role": "user", "content": "how do we deploy?"}]
USAGE = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
HEAD = '{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, '


def body(**extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": USER, **extra}


class Answer(wire_support.Answer):
    """An answer from the fake OpenAI server, whose stream is data lines ending in ``[DONE]``."""

    def data(self) -> list[Any]:
        """Each event's data, parsed (``[DONE]`` kept as the string)."""
        out: list[Any] = []
        for event in self.body.decode().split("\n\n")[:-1]:
            payload = event.removeprefix("data: ")
            out.append(payload if payload == "[DONE]" else json.loads(payload))
        return out


def exchange(fake: FakeOpenAI, payload: dict[str, Any]) -> Answer:
    """One request to the chat completions route on its own connection."""
    return Answer(wire_support.exchange_raw(fake.port, "POST", "/v1/chat/completions", {}, payload))


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


# -- the default answers, unchanged ---------------------------------------------


def test_the_default_answers_are_the_bytes_the_harness_tests_rely_on(fake: FakeOpenAI) -> None:
    plain = exchange(fake, body())
    assert (plain.status, plain.headers["content-type"]) == (200, "application/json")
    assert plain.body == (
        b'{"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, '
        b'"model": "m", "choices": [{"index": 0, "message": {"role": "assistant", '
        b'"content": "A fake summary."}, "finish_reason": "stop"}], '
        b'"usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}}'
    )
    streamed = exchange(fake, body(stream=True, tools=TOOLS))
    assert streamed.headers["content-type"] == "text/event-stream"
    assert "transfer-encoding" not in streamed.headers  # one body with its length, as before
    assert streamed.body.decode() == (
        f'data: {HEAD}"model": "m", "choices": [{{"index": 0, "delta": {{"role": "assistant", '
        '"content": ""}, "finish_reason": null}]}\n\n'
        f'data: {HEAD}"model": "m", "choices": [{{"index": 0, "delta": {{"content": '
        '"Hello from the fake model."}, "finish_reason": null}]}\n\n'
        f'data: {HEAD}"model": "m", "choices": [{{"index": 0, "delta": {{}}, '
        '"finish_reason": "stop"}], "usage": {"prompt_tokens": 12, "completion_tokens": 5, '
        '"total_tokens": 17}}\n\n'
        "data: [DONE]\n\n"
    )


def test_the_default_tool_call_is_one_chunk_as_before(fake: FakeOpenAI) -> None:
    fake.tool_script = [("memory_search", {"query": "x"})]
    streamed = exchange(fake, body(stream=True, tools=TOOLS))
    assert streamed.body.decode() == (
        f'data: {HEAD}"model": "m", "choices": [{{"index": 0, "delta": {{"role": "assistant", '
        '"content": null, "tool_calls": [{"index": 0, "id": "call_memory_search", '
        '"type": "function", "function": {"name": "memory_search", '
        '"arguments": "{\\"query\\": \\"x\\"}"}}]}, "finish_reason": null}]}\n\n'
        f'data: {HEAD}"model": "m", "choices": [{{"index": 0, "delta": {{}}, '
        '"finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 12, '
        '"completion_tokens": 5, "total_tokens": 17}}\n\n'
        "data: [DONE]\n\n"
    )


def test_cached_tokens_in_the_usage_go_out_as_given(fake: FakeOpenAI) -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 5,
        "total_tokens": 105,
        "prompt_tokens_details": {"cached_tokens": 64},
    }
    fake.usage = usage
    assert exchange(fake, body()).json()["usage"] == usage
    assert exchange(fake, body(stream=True)).data()[-2]["usage"] == usage


# -- scripted answers ----------------------------------------------------------


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def test_a_scripted_stream_has_the_official_shape(fake: FakeOpenAI) -> None:
    fake.script_reply("Hi there", tool_calls=[("memory_search", {"q": "deploys"})])
    got = exchange(fake, body(stream=True, stream_options={"include_usage": True}))
    assert got.headers["transfer-encoding"] == "chunked"
    assert got.complete
    opening = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "memory_search", "arguments": ""},
    }

    def arguments(piece: str) -> dict[str, Any]:
        return {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}

    assert got.data() == [
        chunk({"role": "assistant", "content": "", "refusal": None}),
        chunk({"content": "Hi "}),
        chunk({"content": "the"}),
        chunk({"content": "re"}),
        chunk({"tool_calls": [opening]}),
        chunk(arguments('{"q": ')),
        chunk(arguments('"deplo')),
        chunk(arguments('ys"}')),
        chunk({}, "tool_calls"),
        {**chunk({}), "choices": [], "usage": USAGE},
        "[DONE]",
    ]
    # One event per chunk, as the API streams them.
    assert len(got.chunks) == 11


def test_a_scripted_stream_without_include_usage_has_no_usage_chunk(fake: FakeOpenAI) -> None:
    fake.script_reply("Hi")
    data = exchange(fake, body(stream=True)).data()
    assert data[-2] == chunk({}, "stop")
    assert all("usage" not in d for d in data[:-1])


def test_a_scripted_answer_with_several_calls_as_one_completion(fake: FakeOpenAI) -> None:
    usage = {**USAGE, "prompt_tokens_details": {"cached_tokens": 8}}
    fake.script_reply(
        tool_calls=[("memory_search", {"q": 1}), ("memory_store", "{not json", "call_x")],
        usage=usage,
    )
    assert exchange(fake, body()).json() == {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": None,
                    "annotations": [],
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "memory_search", "arguments": '{"q": 1}'},
                        },
                        {
                            "id": "call_x",
                            "type": "function",
                            "function": {"name": "memory_store", "arguments": "{not json"},
                        },
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": usage,
    }


def test_a_refusal_and_a_length_stop(fake: FakeOpenAI) -> None:
    fake.script_reply(refusal="I can't help with that.")
    fake.script_reply(refusal="No.")
    fake.script_reply("Partial answ", stop_reason="length")
    message = exchange(fake, body()).json()["choices"][0]
    assert message["finish_reason"] == "stop"
    assert (message["message"]["content"], message["message"]["refusal"]) == (
        None,
        "I can't help with that.",
    )
    streamed = exchange(fake, body(stream=True)).data()
    assert streamed[0]["choices"][0]["delta"] == {
        "role": "assistant",
        "content": None,
        "refusal": "",
    }
    pieces = [d["choices"][0]["delta"].get("refusal") for d in streamed[1:-2]]
    assert pieces == ["N", "o", "."]
    assert exchange(fake, body()).json()["choices"][0]["finish_reason"] == "length"


def test_a_scripted_answer_comes_before_the_tool_script(fake: FakeOpenAI) -> None:
    fake.tool_script = [("memory_search", {"q": "x"})]
    fake.script_reply("first")
    got = exchange(fake, body(tools=TOOLS)).json()["choices"][0]["message"]
    assert got["content"] == "first"
    assert fake.tool_script == [("memory_search", {"q": "x"})]
    after = exchange(fake, body(tools=TOOLS)).json()["choices"][0]["message"]
    assert after["tool_calls"][0]["id"] == "call_memory_search"


# -- faults ----------------------------------------------------------------------


def openai_error(message: str, kind: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


@pytest.mark.parametrize(
    ("status", "kind", "code"),
    [
        (400, "invalid_request_error", None),
        (401, "invalid_request_error", "invalid_api_key"),
        (404, "invalid_request_error", "model_not_found"),
        (429, "requests", "rate_limit_exceeded"),
        (500, "server_error", None),
        (503, "server_error", None),
        (409, "invalid_request_error", None),
        (502, "server_error", None),
    ],
)
def test_each_fault_has_openais_error_body(
    fake: FakeOpenAI, status: int, kind: str, code: str | None
) -> None:
    fake.fail_next(status, "boom")
    got = exchange(fake, body())
    assert (got.status, got.json()) == (status, openai_error("boom", kind, code))
    assert "retry-after" not in got.headers
    assert exchange(fake, body()).status == 200


def test_a_fault_repeats_carries_retry_after_and_leaves_the_scripts(fake: FakeOpenAI) -> None:
    fake.tool_script = [("memory_search", {"q": "x"})]
    fake.script_reply("after the faults")
    fake.fail_next(429, retry_after=1.5, times=2, error_type="tokens")
    for _ in range(2):
        got = exchange(fake, body(tools=TOOLS, stream=True))
        assert (got.status, got.headers["retry-after"]) == (429, "1.5")
        assert got.json() == openai_error(
            "Rate limit reached for requests.", "tokens", "rate_limit_exceeded"
        )
    answer = exchange(fake, body(tools=TOOLS)).json()["choices"][0]["message"]
    assert answer["content"] == "after the faults"
    assert fake.tool_script == [("memory_search", {"q": "x"})]
    fake.fail_next(503, retry_after="Wed, 21 Oct 2026 07:28:00 GMT")
    assert exchange(fake, body()).headers["retry-after"] == "Wed, 21 Oct 2026 07:28:00 GMT"


# -- cut streams and delay ---------------------------------------------------------


def test_a_cut_stream_stops_inside_the_arguments_without_done(fake: FakeOpenAI) -> None:
    fake.cut_next_stream()
    fake.script_reply("Hi", tool_calls=[("memory_search", {"q": "deploys"})])
    assert exchange(fake, body()).status == 200  # a non-streamed call is not cut
    fake.script_reply("Hi", tool_calls=[("memory_search", {"q": "deploys"})])
    got = exchange(fake, body(stream=True))
    assert not got.complete
    data = got.data()
    assert "[DONE]" not in data
    last = data[-1]["choices"][0]["delta"]
    assert last == {"tool_calls": [{"index": 0, "function": {"arguments": '{"q": '}}]}
    assert exchange(fake, body(stream=True)).body.endswith(b"data: [DONE]\n\n")


def test_a_cut_default_stream_stops_after_the_text_or_where_told(fake: FakeOpenAI) -> None:
    fake.cut_next_stream()
    fake.cut_next_stream(1)
    text = exchange(fake, body(stream=True))
    assert not text.complete
    assert [d["choices"][0]["delta"] for d in text.data()] == [
        {"role": "assistant", "content": ""},
        {"content": "A fake summary."},
    ]
    fake.tool_script = [("memory_search", {"q": "x"})]
    tool = exchange(fake, body(stream=True, tools=TOOLS))
    assert not tool.complete
    assert len(tool.data()) == 1
    assert tool.data()[0]["choices"][0]["delta"]["tool_calls"][0]["id"] == "call_memory_search"


def test_a_stream_can_end_with_an_error_event(fake: FakeOpenAI) -> None:
    fake.cut_next_stream(2, error_status=500)
    got = exchange(fake, body(stream=True))
    assert got.complete
    data = got.data()
    assert len(data) == 3
    assert data[-1] == openai_error(
        "The server had an error while processing your request.", "server_error", None
    )


def test_a_delay_holds_the_answer_back(fake: FakeOpenAI) -> None:
    fake.delay = 30
    wire_support.assert_no_answer_yet(fake.port, "/v1/chat/completions", {}, body())


def test_script_reply_takes_only_openais_stop_reasons(fake: FakeOpenAI) -> None:
    with pytest.raises(ValueError, match="stop_reason: 'end_turn' is not one of content_filter"):
        fake.script_reply("x", stop_reason="end_turn")
