"""The OpenAI chat-completions codec, sans I/O: the exact request bytes, every answer read back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from signet_sdk.agent.providers import IncompleteStreamError, openai_tool
from signet_sdk.agent.providers.openai import OpenAICodec
from signet_sdk.agent.types import (
    Chunk,
    CompletionOptions,
    Message,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
)
from signet_sdk.tools import enabled_tools, openai_tools
from signet_sdk.wire import errors

from . import codec_support

CODEC = OpenAICodec("https://api.openai.com/v1", "sk-test")
LOCAL = OpenAICodec("http://127.0.0.1:11434/v1")
URL = "https://api.openai.com/v1/chat/completions"
STORE = ToolSpec(
    "memory_store",
    "Save a fact.",
    {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
)
OPTIONS = CompletionOptions(system="You remember.", tools=(STORE,), max_tokens=512)


def wire(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def body_bytes(
    messages: list[Message],
    options: CompletionOptions = OPTIONS,
    stream: bool = False,
    codec: OpenAICodec = CODEC,
) -> bytes:
    request = codec.request("gpt-5.4-mini", messages, options, stream)
    assert request.content is not None
    return request.content


# -- requests ------------------------------------------------------------------


def test_a_text_turn_is_exactly_these_bytes() -> None:
    got = body_bytes([Message("user", "où déployer ?")], CompletionOptions(system="Be brief."))
    assert (
        got
        == (
            '{"model":"gpt-5.4-mini","max_completion_tokens":4096,"messages":['
            '{"role":"system","content":"Be brief."},{"role":"user","content":"où déployer ?"}]}'
        ).encode()
    )


def test_streaming_options_and_the_cache_key_in_their_fixed_order() -> None:
    options = CompletionOptions(
        system="You remember.",
        tools=(STORE,),
        max_tokens=512,
        temperature=0.5,
        stop_sequences=("END", "STOP"),
        cache_key="session-7",
    )
    assert body_bytes([Message("user", "hi")], options, stream=True) == wire(
        {
            "model": "gpt-5.4-mini",
            "max_completion_tokens": 512,
            "temperature": 0.5,
            "stop": ["END", "STOP"],
            "stream": True,
            "stream_options": {"include_usage": True},
            "prompt_cache_key": "session-7",
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "memory_store",
                        "description": "Save a fact.",
                        "parameters": {
                            "type": "object",
                            "properties": {"content": {"type": "string"}},
                            "required": ["content"],
                        },
                    },
                }
            ],
            "messages": [
                {"role": "system", "content": "You remember."},
                {"role": "user", "content": "hi"},
            ],
        }
    )


def test_other_servers_get_max_tokens_and_no_empty_parts() -> None:
    got = json.loads(body_bytes([Message("user", "hi")], CompletionOptions(), codec=LOCAL))
    assert got == {
        "model": "gpt-5.4-mini",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "hi"}],
    }


CONVERSATION = [
    Message("user", "how do we deploy?"),
    Message(
        "assistant",
        "",
        (
            ToolCall("call_1", "memory_search", {"query": "deploys"}),
            # Sent back exactly as the model wrote it, spaces and all.
            ToolCall("call_2", "memory_store", {"content": "x"}, raw_arguments='{"content": "x"}'),
        ),
    ),
    Message(
        "user",
        "and then?",
        tool_results=(
            ToolResult("call_1", "memory_search", '{"results":[]}'),
            ToolResult("call_2", "memory_store", "daemon unreachable", is_error=True),
        ),
    ),
    Message("assistant", "Blue-green."),
    Message("user", "", tool_results=(ToolResult("call_3", "memory_store", "ok"),)),
]


EXPECTED_MESSAGES = [
    {"role": "system", "content": "You remember."},
    {"role": "user", "content": "how do we deploy?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "memory_search", "arguments": '{"query":"deploys"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "memory_store", "arguments": '{"content": "x"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"results":[]}'},
    {"role": "tool", "tool_call_id": "call_2", "content": "daemon unreachable"},
    {"role": "user", "content": "and then?"},
    {"role": "assistant", "content": "Blue-green."},
    {"role": "tool", "tool_call_id": "call_3", "content": "ok"},
]


def test_tool_calls_then_tool_messages_before_the_users_text() -> None:
    got = body_bytes(CONVERSATION)
    assert got.endswith(b',"messages":' + wire(EXPECTED_MESSAGES) + b"}")


def test_each_request_extends_the_last_byte_for_byte() -> None:
    codec_support.bodies_each_extending_the_last(body_bytes, CONVERSATION)


def test_tools_render_as_the_memory_tools_do() -> None:
    specs = [ToolSpec(t.name, t.description, t.input_schema()) for t in enabled_tools()]
    assert [openai_tool(spec) for spec in specs] == openai_tools()


def test_headers_with_and_without_a_key() -> None:
    request = CODEC.request("m", [Message("user", "hi")], OPTIONS, False)
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.headers["accept"] == "application/json"
    local = LOCAL.request("m", [Message("user", "hi")], OPTIONS, True)
    assert "authorization" not in local.headers
    assert local.url == "http://127.0.0.1:11434/v1/chat/completions"


# -- whole answers ---------------------------------------------------------------


def completion(message: dict[str, Any], finish: str | None, **usage: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-5.4-mini-2026-03-17",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage or None,
    }


def text(content: str | None, **more: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "refusal": None, **more}


CALL = {"id": "call_1", "type": "function", "function": {"name": "memory_store", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("message", "finish", "normal"),
    [
        (text("ok"), "stop", "end_turn"),
        (text(None, tool_calls=[CALL]), "tool_calls", "tool_use"),
        (text(None, tool_calls=[CALL]), "function_call", "tool_use"),
        (text("cut"), "length", "max_tokens"),
        (text(""), "content_filter", "refusal"),
        (text(None, refusal="I can't help with that."), "stop", "refusal"),
        # Ollama's way: the calls arrive under "stop".
        (text("", tool_calls=[CALL]), "stop", "tool_use"),
        (text("odd"), "something_new", "end_turn"),
    ],
)
def test_every_finish_reason(message: dict[str, Any], finish: str, normal: str) -> None:
    got = CODEC.parse(completion(message, finish))
    assert (got.stop_reason, got.raw_stop_reason) == (normal, finish)


def test_a_refusal_is_the_answers_text() -> None:
    got = CODEC.parse(completion(text(None, refusal="I can't help with that."), "stop"))
    assert got.content == "I can't help with that."


def test_usage_takes_cached_tokens_out_of_input() -> None:
    got = CODEC.parse(
        completion(
            text("ok"),
            "stop",
            prompt_tokens=1200,
            completion_tokens=40,
            total_tokens=1240,
            prompt_tokens_details={"cached_tokens": 1024, "audio_tokens": 0},
        )
    )
    assert got.usage == Usage(input=176, output=40, cache_read=1024, cache_write=0)
    assert got.model == "gpt-5.4-mini-2026-03-17"


def test_tool_calls_keep_their_raw_arguments_and_bad_ones_their_error() -> None:
    calls = [
        {"id": "c1", "type": "function", "function": {"name": "a", "arguments": '{"x": 1}'}},
        {"id": "c2", "type": "function", "function": {"name": "b", "arguments": '"text"'}},
        {"id": "c3", "type": "function", "function": {"name": "c", "arguments": "{oops"}},
        {"id": "c4", "type": "function", "function": {"name": "d", "arguments": ""}},
    ]
    got = CODEC.parse(completion(text(None, tool_calls=calls), "tool_calls"))
    assert got.tool_calls[0] == ToolCall("c1", "a", {"x": 1}, raw_arguments='{"x": 1}')
    assert got.tool_calls[1] == ToolCall(
        "c2",
        "b",
        {},
        raw_arguments='"text"',
        error="the arguments must be a JSON object, not a string",
    )
    assert got.tool_calls[2].error is not None and got.tool_calls[2].arguments == {}
    assert got.tool_calls[3] == ToolCall("c4", "d", {}, raw_arguments="")


def test_an_answer_without_a_choice() -> None:
    with pytest.raises(errors.APIResponseValidationError, match="no message"):
        CODEC.parse({"choices": []})


# -- streams ---------------------------------------------------------------------


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **more: Any) -> str:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    data = {"id": "c", "object": "chat.completion.chunk", "model": "gpt-5.4-mini", **more}
    return "data: " + json.dumps({**data, "choices": choices})


def piece(index: int, arguments: str, **first: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if first:
        call["id"] = first["id"]
        call["type"] = "function"
        call["function"]["name"] = first["name"]
    return {"tool_calls": [call]}


USAGE = {
    "prompt_tokens": 50,
    "completion_tokens": 20,
    "prompt_tokens_details": {"cached_tokens": 8},
}
PARALLEL = [
    chunk({"role": "assistant", "content": ""}),
    "",
    chunk({"content": "Storing "}),
    "",
    chunk({"content": "two ✓"}),
    "",
    chunk(piece(0, "", id="call_a", name="memory_store")),
    "",
    chunk(piece(1, '{"query"', id="call_b", name="memory_search")),
    "",
    chunk(piece(0, '{"content": "a')),
    "",
    chunk(piece(1, ': "b"}')),
    "",
    chunk(piece(0, '"}')),
    "",
    chunk({}, "tool_calls"),
    "",
    chunk(None, usage=USAGE),
    "",
    "data: [DONE]",
    "",
]


def decode(lines: list[str], codec: OpenAICodec = CODEC) -> list[Chunk]:
    return codec_support.decode(codec, lines)


def test_a_stream_with_parallel_tool_calls() -> None:
    calls = (
        ToolCall("call_a", "memory_store", {"content": "a"}, '{"content": "a"}'),
        ToolCall("call_b", "memory_search", {"query": "b"}, '{"query": "b"}'),
    )
    usage = Usage(input=42, output=20, cache_read=8)
    codec_support.assert_storing_two(
        decode(PARALLEL), calls, usage, raw_stop="tool_calls", model="gpt-5.4-mini"
    )


def test_a_stream_gives_what_the_whole_answer_gives() -> None:
    calls = [
        {"id": "call_a", "function": {"name": "memory_store", "arguments": '{"content": "a"}'}},
        {"id": "call_b", "function": {"name": "memory_search", "arguments": '{"query": "b"}'}},
    ]
    whole = completion(text("Storing two ✓", tool_calls=calls), "tool_calls", **USAGE)
    whole["model"] = "gpt-5.4-mini"
    assert decode(PARALLEL)[-1].result == CODEC.parse(whole)


def test_calls_without_ids_under_stop() -> None:
    """Some local servers send a whole call in one piece, with no id, and finish with "stop"."""
    whole_call = {"index": 0, "function": {"name": "memory_store", "arguments": '{"content":"x"}'}}
    lines = [chunk({"tool_calls": [whole_call]}), "", chunk({}, "stop"), "", "data: [DONE]", ""]
    result = decode(lines, LOCAL)[-1].result
    assert result is not None and result.stop_reason == "tool_use"
    assert result.tool_calls == (
        ToolCall("call_0", "memory_store", {"content": "x"}, '{"content":"x"}'),
    )


def test_a_streamed_refusal() -> None:
    lines = [chunk({"refusal": "No."}), "", chunk({}, "stop"), "", "data: [DONE]", ""]
    chunks = decode(lines)
    assert chunks[0] == Chunk("text", "No.")
    assert chunks[-1].result is not None and chunks[-1].result.stop_reason == "refusal"


def test_a_stream_cut_during_a_tool_call() -> None:
    with pytest.raises(IncompleteStreamError) as caught:
        decode(PARALLEL[:12])
    assert (
        str(caught.value)
        == f"openai: POST {URL}: stream cut during tool call memory_store (no [DONE])"
    )
    assert caught.value.progress == "during tool call memory_store"


@pytest.mark.parametrize(
    ("upto", "progress"),
    [
        (0, "before the answer began"),
        (4, "during the text"),
        (len(PARALLEL) - 2, "after the answer (tool_calls)"),
    ],
)
def test_how_far_a_cut_stream_got(upto: int, progress: str) -> None:
    assert codec_support.cut_progress(CODEC, PARALLEL[:upto]) == progress


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (
            ['{"error": {"message": "model not found", "type": "invalid_request_error"}}'],
            "the server answered with an error instead of a stream: model not found",
        ),
        (
            ["{", '  "id": "c1", "object": "chat.completion",', '  "choices": []', "}"],
            "the server answered with one JSON document, not a stream: it may not stream "
            "(ask without streaming: stream=False, or --no-stream)",
        ),
        (["<html>Bad Gateway</html>"], "the answer is not a stream: '<html>Bad Gateway</html>'"),
    ],
    ids=["error", "completion", "html"],
)
def test_a_server_that_answers_a_stream_request_with_a_document_says_so(
    body: list[str], said: str
) -> None:
    # An OpenAI-compatible server that ignores "stream": true answers 200 with
    # one document: the error names what it said, not only "no [DONE]".
    with pytest.raises(IncompleteStreamError) as caught:
        decode(body)
    assert str(caught.value) == f"openai: POST {URL}: stream cut before the answer began: {said}"


def test_done_without_its_blank_line_still_counts() -> None:
    assert decode(PARALLEL[:-1])[-1].type == "done"


def test_an_error_event_mid_stream() -> None:
    decoder = CODEC.decoder()
    decoder.feed(chunk({"content": "par"}))
    decoder.feed("")
    decoder.feed('data: {"error": {"message": "The server had an error", "type": "server_error"}}')
    with pytest.raises(errors.InternalServerError) as caught:
        decoder.feed("")
    assert str(caught.value) == (
        f"openai: POST {URL} -> 500: The server had an error (error event mid-stream)"
    )
