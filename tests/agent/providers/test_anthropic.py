"""The Anthropic Messages codec, sans I/O: the exact request bytes, and every answer read back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from signet_sdk.agent.providers import IncompleteStreamError, anthropic_tool
from signet_sdk.agent.providers.anthropic import AnthropicCodec
from signet_sdk.agent.types import (
    Chunk,
    CompletionOptions,
    CompletionResult,
    Message,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
)
from signet_sdk.tools import anthropic_tools, enabled_tools
from signet_sdk.wire import errors

from . import codec_support

CODEC = AnthropicCodec("https://api.anthropic.com", "sk-ant-test")
URL = "https://api.anthropic.com/v1/messages"
STORE = ToolSpec(
    "memory_store",
    "Save a fact.",
    {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
)
SEARCH = ToolSpec(
    "memory_search", "Find facts.", {"type": "object", "properties": {"query": {"type": "string"}}}
)
OPTIONS = CompletionOptions(system="You remember.", tools=(SEARCH, STORE), max_tokens=512)
EPHEMERAL = {"type": "ephemeral"}


def wire(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def body_bytes(messages: list[Message], options: CompletionOptions = OPTIONS, **kw: Any) -> bytes:
    request = CODEC.request("claude-sonnet-4-6", messages, options, kw.get("stream", False))
    assert request.content is not None
    return request.content


# -- requests ------------------------------------------------------------------


def test_a_text_turn_is_exactly_these_bytes() -> None:
    got = body_bytes(
        [Message("user", "where do we déploy?")], CompletionOptions(system="Be brief.")
    )
    assert (
        got
        == (
            '{"model":"claude-sonnet-4-6","max_tokens":4096,"cache_control":{"type":"ephemeral"},'
            '"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],'
            '"messages":[{"role":"user","content":[{"type":"text","text":"where do we déploy?"}]}]}'
        ).encode()
    )


def test_tools_system_and_options_in_their_fixed_order() -> None:
    options = CompletionOptions(
        system="You remember.",
        tools=(SEARCH, STORE),
        max_tokens=512,
        temperature=0.2,
        stop_sequences=("END",),
    )
    got = body_bytes([Message("user", "hi")], options, stream=True)
    assert got == wire(
        {
            "model": "claude-sonnet-4-6",
            "max_tokens": 512,
            "temperature": 0.2,
            "stop_sequences": ["END"],
            "stream": True,
            "cache_control": EPHEMERAL,
            "system": [{"type": "text", "text": "You remember.", "cache_control": EPHEMERAL}],
            "tools": [
                {
                    "name": "memory_search",
                    "description": "Find facts.",
                    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}},
                },
                {
                    "name": "memory_store",
                    "description": "Save a fact.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"content": {"type": "string"}},
                        "required": ["content"],
                    },
                    "cache_control": EPHEMERAL,
                },
            ],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        }
    )


def test_empty_system_and_tools_are_left_out() -> None:
    got = json.loads(body_bytes([Message("user", "hi")], CompletionOptions()))
    assert list(got) == ["model", "max_tokens", "cache_control", "messages"]


CALLS = (
    ToolCall("toolu_1", "memory_search", {"query": "deploys"}),
    ToolCall("toolu_2", "memory_store", {"content": "blue-green", "tags": ["ops"]}),
)
CONVERSATION = [
    Message("user", "how do we deploy?"),
    Message("assistant", "Let me look.", CALLS),
    Message(
        "user",
        "",
        tool_results=(
            ToolResult("toolu_1", "memory_search", '{"results":[]}'),
            ToolResult("toolu_2", "memory_store", "daemon unreachable", is_error=True),
        ),
    ),
    Message("assistant", "Nothing stored yet."),
    Message(
        "user", "try again", tool_results=(ToolResult("toolu_3", "memory_store", '{"ok":true}'),)
    ),
]


EXPECTED_MESSAGES = [
    {"role": "user", "content": [{"type": "text", "text": "how do we deploy?"}]},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "memory_search",
                "input": {"query": "deploys"},
            },
            {
                "type": "tool_use",
                "id": "toolu_2",
                "name": "memory_store",
                "input": {"content": "blue-green", "tags": ["ops"]},
            },
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"results":[]}'},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": "daemon unreachable",
                "is_error": True,
            },
        ],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "Nothing stored yet."}]},
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_3", "content": '{"ok":true}'},
            {"type": "text", "text": "try again"},
        ],
    },
]


def test_tool_use_and_tool_results_ok_and_error() -> None:
    got = body_bytes(CONVERSATION)
    assert got.endswith(b',"messages":' + wire(EXPECTED_MESSAGES) + b"}")


def test_each_request_extends_the_last_byte_for_byte() -> None:
    """The cached prefix holds: request N, less its closing ``]}``, begins request N+1."""
    bodies = codec_support.bodies_each_extending_the_last(body_bytes, CONVERSATION)
    assert bodies == [body_bytes(CONVERSATION[: n + 1]) for n in range(len(CONVERSATION))]


def test_only_the_last_tool_and_the_system_carry_breakpoints() -> None:
    got = json.loads(body_bytes(CONVERSATION))
    marked = [tool["name"] for tool in got["tools"] if "cache_control" in tool]
    assert marked == ["memory_store"]
    assert "cache_control" not in json.dumps(got["messages"])


def test_tools_render_as_the_memory_tools_do() -> None:
    specs = [ToolSpec(t.name, t.description, t.input_schema()) for t in enabled_tools()]
    assert [anthropic_tool(spec) for spec in specs] == anthropic_tools()


def test_an_empty_user_message_is_refused_by_name() -> None:
    with pytest.raises(errors.ConfigError) as caught:
        body_bytes([Message("user", "hi"), Message("assistant", "yes"), Message("user", "")])
    assert caught.value.field == "messages[2]"


def test_an_empty_assistant_message_is_left_out() -> None:
    with_empty = [Message("user", "a"), Message("assistant", ""), Message("user", "b")]
    assert json.loads(body_bytes(with_empty))["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
        {"role": "user", "content": [{"type": "text", "text": "b"}]},
    ]


def test_headers() -> None:
    request = CODEC.request("m", [Message("user", "hi")], OPTIONS, True)
    assert request.method == "POST" and request.url == URL
    assert request.headers["x-api-key"] == "sk-ant-test"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["accept"] == "text/event-stream"
    assert "sk-ant-test" not in repr(request)


# -- whole answers ---------------------------------------------------------------


def message(content: list[dict[str, Any]], stop: str | None, **usage: int) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 3, **usage},
    }


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("end_turn", "end_turn"),
        ("tool_use", "tool_use"),
        ("max_tokens", "max_tokens"),
        ("stop_sequence", "stop_sequence"),
        ("refusal", "refusal"),
        ("pause_turn", "pause_turn"),
        ("model_context_window_exceeded", "max_tokens"),
    ],
)
def test_every_stop_reason(raw: str, normal: str) -> None:
    got = CODEC.parse(message([{"type": "text", "text": "x"}], raw))
    assert (got.stop_reason, got.raw_stop_reason) == (normal, raw)


def test_a_whole_answer_with_usage_thinking_and_tool_calls() -> None:
    content: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        {"type": "text", "text": "Saving "},
        {"type": "text", "text": "it."},
        {"type": "tool_use", "id": "toolu_9", "name": "memory_store", "input": {"content": "x"}},
        {"type": "tool_use", "id": "toolu_10", "name": "memory_search", "input": "[1]"},
    ]
    got = CODEC.parse(
        message(content, "tool_use", cache_read_input_tokens=7, cache_creation_input_tokens=5)
    )
    assert got == CompletionResult(
        content="Saving it.",
        tool_calls=(
            ToolCall("toolu_9", "memory_store", {"content": "x"}),
            ToolCall(
                "toolu_10",
                "memory_search",
                {},
                raw_arguments="[1]",
                error="the arguments must be a JSON object, not an array",
            ),
        ),
        stop_reason="tool_use",
        usage=Usage(input=10, output=3, cache_read=7, cache_write=5),
        raw_stop_reason="tool_use",
        model="claude-sonnet-4-6",
    )


def test_an_answer_that_is_no_message() -> None:
    with pytest.raises(errors.APIResponseValidationError, match="no message"):
        CODEC.parse({"type": "error"})


# -- streams ---------------------------------------------------------------------


def sse(*events: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for data in events:
        lines += [f"event: {data['type']}", f"data: {json.dumps(data)}", ""]
    return lines


def start(**usage: int) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": message([], None, **{"input_tokens": 12, "output_tokens": 1, **usage}),
    }


def block(index: int, content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": content}


def delta(index: int, **fields: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": fields}


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def ending(reason: str, **usage: int) -> list[dict[str, Any]]:
    return [
        {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": usage},
        {"type": "message_stop"},
    ]


PARALLEL = sse(
    start(cache_read_input_tokens=40, cache_creation_input_tokens=0),
    {"type": "ping"},
    block(0, {"type": "thinking", "thinking": "", "signature": ""}),
    delta(0, type="thinking_delta", thinking="let me"),
    stop(0),
    block(1, {"type": "text", "text": ""}),
    delta(1, type="text_delta", text="Storing "),
    delta(1, type="text_delta", text="two ✓"),
    stop(1),
    block(2, {"type": "tool_use", "id": "toolu_a", "name": "memory_store", "input": {}}),
    block(3, {"type": "tool_use", "id": "toolu_b", "name": "memory_search", "input": {}}),
    delta(2, type="input_json_delta", partial_json=""),
    delta(3, type="input_json_delta", partial_json='{"query"'),
    delta(2, type="input_json_delta", partial_json='{"content": "a'),
    delta(3, type="input_json_delta", partial_json=': "b"}'),
    delta(2, type="input_json_delta", partial_json='"}'),
    stop(2),
    stop(3),
    *ending("tool_use", output_tokens=30),
)


def decode(lines: list[str]) -> list[Chunk]:
    return codec_support.decode(CODEC, lines)


def test_a_stream_with_parallel_tool_calls() -> None:
    calls = (
        ToolCall("toolu_a", "memory_store", {"content": "a"}),
        ToolCall("toolu_b", "memory_search", {"query": "b"}),
    )
    usage = Usage(input=12, output=30, cache_read=40, cache_write=0)
    codec_support.assert_storing_two(
        decode(PARALLEL), calls, usage, raw_stop="tool_use", model="claude-sonnet-4-6"
    )


def test_a_stream_gives_what_the_whole_answer_gives() -> None:
    content: list[dict[str, Any]] = [
        {"type": "text", "text": "Storing two ✓"},
        {"type": "tool_use", "id": "toolu_a", "name": "memory_store", "input": {"content": "a"}},
        {"type": "tool_use", "id": "toolu_b", "name": "memory_search", "input": {"query": "b"}},
    ]
    whole = message(content, "tool_use", cache_read_input_tokens=40, cache_creation_input_tokens=0)
    whole["usage"]["input_tokens"], whole["usage"]["output_tokens"] = 12, 30
    assert decode(PARALLEL)[-1].result == CODEC.parse(whole)


def test_message_delta_usage_replaces_the_start_counts() -> None:
    lines = sse(start(), block(0, {"type": "text", "text": ""}), stop(0))
    lines += sse(*ending("end_turn", output_tokens=9, input_tokens=15, cache_read_input_tokens=4))
    result = decode(lines)[-1].result
    assert result is not None and result.usage == Usage(15, 9, 4, 0)


def test_bad_streamed_arguments_are_the_calls_error() -> None:
    lines = sse(
        start(),
        block(0, {"type": "tool_use", "id": "toolu_x", "name": "memory_store", "input": {}}),
        delta(0, type="input_json_delta", partial_json='{"content": '),
        stop(0),
        *ending("tool_use"),
    )
    result = decode(lines)[-1].result
    assert result is not None
    (call,) = result.tool_calls
    assert call.raw_arguments == '{"content": ' and call.arguments == {}
    assert call.error is not None and call.error.startswith("the arguments are not valid JSON")


def test_a_stream_cut_during_a_tool_call() -> None:
    cut = PARALLEL[: PARALLEL.index('data: {"type": "content_block_stop", "index": 2}')]
    with pytest.raises(IncompleteStreamError) as caught:
        decode(cut)
    assert str(caught.value) == (
        f"anthropic: POST {URL}: stream cut during tool call memory_search (no message_stop)"
    )
    assert caught.value.progress == "during tool call memory_search"
    assert isinstance(caught.value, errors.APIConnectionError)


def after(text: str) -> int:
    """How many lines of PARALLEL reach the end of the event whose data holds ``text``."""
    return next(n for n, line in enumerate(PARALLEL) if text in line) + 2


@pytest.mark.parametrize(
    ("upto", "progress"),
    [
        (0, "before the answer began"),
        (after("ping"), "between content blocks"),
        (after("Storing"), "during the text"),
        (after('"thinking_delta"'), "during a thinking block"),
        (after("message_delta"), "after the answer (tool_use)"),
    ],
)
def test_how_far_a_cut_stream_got(upto: int, progress: str) -> None:
    assert codec_support.cut_progress(CODEC, PARALLEL[:upto]) == progress


def test_a_data_line_cut_mid_way_counts_as_missing() -> None:
    cut = [PARALLEL[0], PARALLEL[1][:30]]
    assert codec_support.cut_progress(CODEC, cut) == "before the answer began"


def test_the_last_event_without_its_blank_line_still_counts() -> None:
    assert decode(PARALLEL[:-1])[-1].type == "done"


@pytest.mark.parametrize(
    ("kind", "error_class", "status"),
    [
        ("overloaded_error", errors.InternalServerError, 529),
        ("api_error", errors.InternalServerError, 500),
        ("rate_limit_error", errors.RateLimitError, 429),
        ("invalid_request_error", errors.BadRequestError, 400),
    ],
)
def test_an_error_event_mid_stream(
    kind: str, error_class: type[errors.APIStatusError], status: int
) -> None:
    decoder = CODEC.decoder()
    for line in sse(start(), block(0, {"type": "text", "text": ""})):
        decoder.feed(line)
    event = {"type": "error", "error": {"type": kind, "message": "Overloaded"}}
    with pytest.raises(error_class) as caught:
        for line in sse(event):
            decoder.feed(line)
    assert caught.value.status_code == status
    assert str(caught.value) == (
        f"anthropic: POST {URL} -> {status}: Overloaded ({kind} mid-stream)"
    )


def test_a_stream_event_that_is_not_json() -> None:
    decoder = CODEC.decoder()
    decoder.feed("event: message_start")
    decoder.feed("data: {nope")
    with pytest.raises(errors.APIResponseValidationError, match="not JSON"):
        decoder.feed("")
