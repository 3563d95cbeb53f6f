"""The fake model servers held to the vendors' own clients: every kind of answer they give parses.

The official ``anthropic`` and ``openai`` packages (test-only) are pointed
at the fakes and read each answer as they read the real API's: text, one
and several tool calls, streams (raw events and the clients' own stream
helpers), usage with the cache fields, refusals and length stops, each
injected error as the client's own error class, and a cut stream as an
error raised while iterating (not a hang, not a clean end). Last, the
streamed and non-streamed forms of the same scripted answer are read back
and must agree.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from signet_sdk.testing.fake_anthropic import FakeAnthropic
from signet_sdk.testing.fake_openai import FakeOpenAI

USER: Any = [{"role": "user", "content": "how do we deploy?"}]
A_TOOLS: Any = [
    {"name": "memory_search", "description": "Search.", "input_schema": {"type": "object"}}
]
O_TOOLS: Any = [
    {
        "type": "function",
        "function": {"name": "memory_search", "parameters": {"type": "object"}},
    }
]
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory_search", {"query": "deploys", "limit": 3}),
    ("memory_store", {"text": "ship"}),
]


@pytest.fixture
def claude() -> Iterator[tuple[FakeAnthropic, anthropic.Anthropic]]:
    with (
        FakeAnthropic() as fake,
        anthropic.Anthropic(base_url=fake.base_url, api_key="k", max_retries=0) as client,
    ):
        yield fake, client


@pytest.fixture
def gpt() -> Iterator[tuple[FakeOpenAI, openai.OpenAI]]:
    with (
        FakeOpenAI() as fake,
        openai.OpenAI(base_url=fake.base_url, api_key="k", max_retries=0) as client,
    ):
        yield fake, client


def ask(client: anthropic.Anthropic, **extra: Any) -> Any:
    return client.messages.create(model="claude-test", max_tokens=64, messages=USER, **extra)


def chat(client: openai.OpenAI, **extra: Any) -> Any:
    return client.chat.completions.create(model="fake-model", messages=USER, **extra)


def fault(
    fake: FakeAnthropic | FakeOpenAI, status: int, error_class: type[Exception], call: Any
) -> Any:
    """What ``call`` raises once the fake fails its next answer with ``status`` ("boom").

    It must be exactly ``error_class`` (not a parent), with the status, and with the
    Retry-After header only where the fake sent one (a 429's seven seconds).
    """
    fake.fail_next(status, "boom", retry_after=7 if status == 429 else None)
    with pytest.raises(error_class) as caught:
        call()
    error: Any = caught.value
    assert type(error) is error_class
    assert error.status_code == status
    assert error.response.headers.get("retry-after") == ("7" if status == 429 else None)
    return error


# -- Anthropic ---------------------------------------------------------------------


def test_anthropic_text_with_usage_and_cache_fields(
    claude: tuple[FakeAnthropic, anthropic.Anthropic],
) -> None:
    fake, client = claude
    fake.usage = {
        "input_tokens": 7,
        "cache_creation_input_tokens": 30,
        "cache_read_input_tokens": 800,
        "output_tokens": 5,
    }
    message = ask(client)
    assert [(b.type, getattr(b, "text", None)) for b in message.content] == [
        ("text", "A fake summary.")
    ]
    assert (message.stop_reason, message.model, message.role) == (
        "end_turn",
        "claude-test",
        "assistant",
    )
    usage = message.usage
    assert (usage.input_tokens, usage.output_tokens) == (7, 5)
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (800, 30)
    sent = fake.message_bodies()[0]
    assert (sent["model"], sent["max_tokens"], sent["messages"]) == ("claude-test", 64, USER)
    assert fake.requests()[0]["path"] == "/v1/messages"


def test_anthropic_one_tool_call_plain_and_streamed(
    claude: tuple[FakeAnthropic, anthropic.Anthropic],
) -> None:
    fake, client = claude
    fake.tool_script = [CALLS[0], CALLS[0]]
    message = ask(client, tools=A_TOOLS)
    (block,) = message.content
    assert block.type == "tool_use"
    assert (block.name, block.input, message.stop_reason) == (
        "memory_search",
        CALLS[0][1],
        "tool_use",
    )
    with client.messages.stream(
        model="claude-test", max_tokens=64, messages=USER, tools=A_TOOLS
    ) as stream:
        final = stream.get_final_message()
    (streamed,) = final.content
    assert streamed.type == "tool_use"
    assert (streamed.name, streamed.input) == ("memory_search", CALLS[0][1])
    assert streamed.id != block.id


def test_anthropic_raw_stream_events_with_several_tool_calls(
    claude: tuple[FakeAnthropic, anthropic.Anthropic],
) -> None:
    fake, client = claude
    fake.script_reply("Two looks.", tool_calls=CALLS)
    events = list(ask(client, stream=True))
    kinds = [e.type for e in events]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert kinds.count("content_block_start") == kinds.count("content_block_stop") == 3
    text = "".join(
        e.delta.text
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "text_delta"
    )
    assert text == "Two looks."
    for index, (_, arguments) in enumerate(CALLS, start=1):
        pieces = [
            e.delta.partial_json
            for e in events
            if e.type == "content_block_delta"
            and e.index == index
            and e.delta.type == "input_json_delta"
        ]
        assert len(pieces) > 2
        assert json.loads("".join(pieces)) == arguments
    delta = events[-2]
    assert delta.type == "message_delta"
    assert (delta.delta.stop_reason, delta.usage.output_tokens) == ("tool_use", 5)


def test_anthropic_stream_helper_sums_several_tool_calls_and_usage(
    claude: tuple[FakeAnthropic, anthropic.Anthropic],
) -> None:
    fake, client = claude
    usage = {
        "input_tokens": 3,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 500,
        "output_tokens": 42,
    }
    fake.script_reply("Two looks.", tool_calls=CALLS, usage=usage)
    with client.messages.stream(model="claude-test", max_tokens=64, messages=USER) as stream:
        texts = list(stream.text_stream)
        final = stream.get_final_message()
    assert "".join(texts) == "Two looks."
    assert [b.type for b in final.content] == ["text", "tool_use", "tool_use"]
    assert [(b.name, b.input) for b in final.content if b.type == "tool_use"] == CALLS
    assert final.stop_reason == "tool_use"
    assert final.usage.model_dump(include=set(usage)) == usage


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_refusal_and_max_tokens(
    claude: tuple[FakeAnthropic, anthropic.Anthropic], stream: bool
) -> None:
    fake, client = claude
    fake.script_reply(refusal="I can't help with that.")
    fake.script_reply("Partial answ", stop_reason="max_tokens")
    for stop, text in [("refusal", "I can't help with that."), ("max_tokens", "Partial answ")]:
        if stream:
            with client.messages.stream(model="claude-test", max_tokens=8, messages=USER) as s:
                message: Any = s.get_final_message()
        else:
            message = ask(client)
        assert (message.stop_reason, message.content[0].text) == (stop, text)


@pytest.mark.parametrize(
    ("status", "error_class", "kind"),
    [
        (401, anthropic.AuthenticationError, "authentication_error"),
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (500, anthropic.InternalServerError, "api_error"),
        (529, anthropic.OverloadedError, "overloaded_error"),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_faults_raise_the_clients_own_errors(
    claude: tuple[FakeAnthropic, anthropic.Anthropic],
    status: int,
    error_class: type[anthropic.APIStatusError],
    kind: str,
    stream: bool,
) -> None:
    fake, client = claude
    error = fault(fake, status, error_class, lambda: ask(client, stream=stream))
    assert error.body == {
        "type": "error",
        "error": {"type": kind, "message": "boom"},
        "request_id": "req_fake",
    }
    if status >= 500:
        assert isinstance(error, anthropic.InternalServerError)
    assert ask(client).stop_reason == "end_turn"


def test_anthropic_bad_request_names_the_field(
    claude: tuple[FakeAnthropic, anthropic.Anthropic],
) -> None:
    _, client = claude
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model="claude-test", max_tokens=64, messages=[])
    assert caught.value.body == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "messages: at least one message is required",
        },
        "request_id": "req_fake",
    }


def test_anthropic_cut_stream_raises_while_iterating(
    claude: tuple[FakeAnthropic, anthropic.Anthropic],
) -> None:
    fake, client = claude
    fake.cut_next_stream(times=2)
    fake.script_reply("Looking.", tool_calls=CALLS[:1])
    fake.script_reply("Looking.", tool_calls=CALLS[:1])
    seen: list[str] = []
    # The body ended mid-chunk: the client raises while iterating, the transport's own
    # error or (anthropic 2.17 and later) that error wrapped as a connection error.
    cut = (httpx2.RemoteProtocolError, anthropic.APIConnectionError)
    with pytest.raises(cut, match="incomplete chunked read"):
        seen.extend(event.type for event in ask(client, stream=True))
    assert "message_stop" not in seen and seen[-1] == "content_block_delta"
    with (
        pytest.raises(cut, match="incomplete chunked read"),
        client.messages.stream(model="claude-test", max_tokens=64, messages=USER) as stream,
    ):
        stream.get_final_message()


def test_anthropic_error_event_mid_stream(
    claude: tuple[FakeAnthropic, anthropic.Anthropic],
) -> None:
    fake, client = claude
    fake.cut_next_stream(3, error_status=529)
    with pytest.raises(anthropic.APIStatusError) as caught:
        list(ask(client, stream=True))
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }


def test_anthropic_slow_provider_times_out(
    claude: tuple[FakeAnthropic, anthropic.Anthropic],
) -> None:
    fake, client = claude
    fake.delay = 30
    with pytest.raises(anthropic.APITimeoutError):
        ask(client, timeout=0.2)


# -- OpenAI ------------------------------------------------------------------------


def test_openai_default_text_and_tool_call_plain_and_streamed(
    gpt: tuple[FakeOpenAI, openai.OpenAI],
) -> None:
    fake, client = gpt
    done = chat(client)
    assert (done.choices[0].message.content, done.choices[0].finish_reason) == (
        "A fake summary.",
        "stop",
    )
    assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (12, 5)
    chunks = list(chat(client, stream=True, tools=O_TOOLS))
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Hello from the fake model."
    assert chunks[-1].usage.total_tokens == 17
    fake.tool_script = [("memory_search", {"q": "x"}), ("memory_search", {"q": "y"})]
    called = chat(client, tools=O_TOOLS).choices[0]
    assert called.finish_reason == "tool_calls"
    (call,) = called.message.tool_calls
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == (
        "call_memory_search",
        "memory_search",
        {"q": "x"},
    )
    streamed = list(chat(client, stream=True, tools=O_TOOLS))
    (piece,) = streamed[0].choices[0].delta.tool_calls
    assert json.loads(piece.function.arguments) == {"q": "y"}
    assert streamed[-1].choices[0].finish_reason == "tool_calls"


def test_openai_several_tool_calls_streamed_with_cached_tokens(
    gpt: tuple[FakeOpenAI, openai.OpenAI],
) -> None:
    fake, client = gpt
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 9,
        "total_tokens": 109,
        "prompt_tokens_details": {"cached_tokens": 64},
    }
    fake.script_reply("Two looks.", tool_calls=CALLS, usage=usage)
    chunks = list(chat(client, stream=True, stream_options={"include_usage": True}))
    arguments: dict[int, str] = {}
    names: dict[int, str] = {}
    for c in chunks:
        for call in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            arguments[call.index] = arguments.get(call.index, "") + (call.function.arguments or "")
            if call.function.name:
                names[call.index] = call.function.name
    assert [(names[i], json.loads(arguments[i])) for i in sorted(names)] == CALLS
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Two looks."
    assert chunks[-1].choices == []
    assert chunks[-1].usage.prompt_tokens_details.cached_tokens == 64
    fake.script_reply("Two looks.", tool_calls=CALLS, usage=usage)
    done = chat(client)
    assert done.usage.prompt_tokens_details.cached_tokens == 64
    assert [json.loads(c.function.arguments) for c in done.choices[0].message.tool_calls] == [
        a for _, a in CALLS
    ]


def assemble(chunks: list[Any]) -> tuple[Any, Any, list[tuple[str, Any]], Any, Any]:
    """A streamed chat completion summed the way the client's stream helper sums it.

    (content, refusal, calls as (name, parsed arguments), finish reason,
    usage); a text field stays None when no chunk carried it. The helper
    itself refuses to sum a ``length`` or ``content_filter`` stop.
    """
    content: str | None = None
    refusal: str | None = None
    names: dict[int, str] = {}
    arguments: dict[int, str] = {}
    finish = usage = None
    for c in chunks:
        usage = c.usage or usage
        if not c.choices:
            continue
        delta = c.choices[0].delta
        finish = c.choices[0].finish_reason or finish
        if delta.content is not None:
            content = (content or "") + delta.content
        if delta.refusal is not None:
            refusal = (refusal or "") + delta.refusal
        for call in delta.tool_calls or []:
            if call.function.name:
                names[call.index] = call.function.name
            arguments[call.index] = arguments.get(call.index, "") + (call.function.arguments or "")
    calls = [(names[i], json.loads(arguments[i])) for i in sorted(names)]
    return content, refusal, calls, finish, usage


def completion_view(completion: Any) -> tuple[Any, Any, list[tuple[str, Any]], Any, Any]:
    """A chat completion as :func:`assemble` gives a stream."""
    choice = completion.choices[0]
    message = choice.message
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
    return message.content, message.refusal, calls, choice.finish_reason, completion.usage


def test_openai_refusal_and_length(gpt: tuple[FakeOpenAI, openai.OpenAI]) -> None:
    fake, client = gpt
    refusal, short = "I can't help with that.", "Partial answ"
    fake.script_reply(refusal=refusal)
    fake.script_reply(short, stop_reason="length")
    assert completion_view(chat(client))[:4] == (None, refusal, [], "stop")
    assert completion_view(chat(client))[:4] == (short, None, [], "length")
    fake.script_reply(refusal=refusal)
    fake.script_reply(short, stop_reason="length")
    with client.chat.completions.stream(model="fake-model", messages=USER) as stream:
        helped = stream.get_final_completion().choices[0]
    assert (helped.message.refusal, helped.message.content, helped.finish_reason) == (
        refusal,
        None,
        "stop",
    )
    assert assemble(list(chat(client, stream=True)))[:4] == (short, None, [], "length")


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (401, openai.AuthenticationError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_openai_faults_raise_the_clients_own_errors(
    gpt: tuple[FakeOpenAI, openai.OpenAI],
    status: int,
    error_class: type[openai.APIStatusError],
    stream: bool,
) -> None:
    fake, client = gpt
    error = fault(fake, status, error_class, lambda: chat(client, stream=stream))
    assert isinstance(error.body, dict) and error.body["message"] == "boom"
    assert chat(client).choices[0].finish_reason == "stop"


def test_openai_cut_stream_and_error_event_raise_while_iterating(
    gpt: tuple[FakeOpenAI, openai.OpenAI],
) -> None:
    fake, client = gpt
    fake.cut_next_stream()
    fake.script_reply("Looking.", tool_calls=CALLS[:1])
    seen = []
    with pytest.raises(openai.APIConnectionError):
        seen.extend(chat(client, stream=True))
    assert seen and all(c.choices[0].finish_reason is None for c in seen)
    fake.cut_next_stream(1, error_status=500)
    with pytest.raises(openai.APIError) as caught:
        list(chat(client, stream=True))
    assert caught.value.body == {
        "message": "The server had an error while processing your request.",
        "type": "server_error",
        "param": None,
        "code": None,
    }


def test_openai_slow_provider_times_out(gpt: tuple[FakeOpenAI, openai.OpenAI]) -> None:
    fake, client = gpt
    fake.delay = 30
    with pytest.raises(openai.APITimeoutError):
        chat(client, timeout=0.2)


# -- the two forms of one answer agree ----------------------------------------------

_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)
_ARGS = st.dictionaries(
    st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=6),
    st.one_of(st.integers(-(10**6), 10**6), _TEXT, st.booleans(), st.none()),
    max_size=3,
)
_CALLS = st.lists(st.tuples(st.sampled_from(["memory_search", "memory_store"]), _ARGS), max_size=3)
_COUNT = st.integers(0, 10**6)


def message_view(message: Any) -> Any:
    blocks = [
        ("text", b.text) if b.type == "text" else ("tool_use", b.name, b.input)
        for b in message.content
    ]
    return blocks, message.stop_reason, message.usage.model_dump()


def answers(
    fake: type[FakeAnthropic | FakeOpenAI], refusal: Any, usage: Any
) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments for ``script_reply``: text, tool calls, one of the fake's stop reasons or
    none, a refusal (drawn from ``refusal``) or none, and usage (drawn from ``usage``)."""
    return st.fixed_dictionaries(
        {
            "text": _TEXT,
            "tool_calls": _CALLS,
            "stop_reason": st.none() | st.sampled_from(sorted(fake.stop_reasons)),
            "refusal": st.none() | refusal,
            "usage": usage,
        }
    )


_ANTHROPIC_USAGE = st.fixed_dictionaries(
    {
        "input_tokens": _COUNT,
        "cache_creation_input_tokens": _COUNT,
        "cache_read_input_tokens": _COUNT,
        "output_tokens": _COUNT,
    }
)
_OPENAI_USAGE = st.fixed_dictionaries(
    {"prompt_tokens": _COUNT, "completion_tokens": _COUNT, "total_tokens": _COUNT},
    optional={"prompt_tokens_details": st.fixed_dictionaries({"cached_tokens": _COUNT})},
)


@settings(max_examples=30, deadline=None)
@given(answer=answers(FakeAnthropic, _TEXT, _ANTHROPIC_USAGE))
def test_anthropic_streamed_and_plain_answers_agree(answer: dict[str, Any]) -> None:
    # A server of its own per example: a failed one leaves nothing queued for the next.
    with (
        FakeAnthropic() as fake,
        anthropic.Anthropic(base_url=fake.base_url, api_key="k", max_retries=0) as client,
    ):
        fake.script_reply(**answer)
        fake.script_reply(**answer)
        plain = message_view(ask(client))
        with client.messages.stream(model="claude-test", max_tokens=64, messages=USER) as stream:
            streamed = message_view(stream.get_final_message())
    assert streamed == plain
    blocks, got_stop, got_usage = plain
    calls, refusal = answer["tool_calls"], answer["refusal"]
    said = answer["text"] if refusal is None else refusal
    assert blocks == [("text", said)] * bool(said) + [("tool_use", *call) for call in calls]
    fitting = "tool_use" if calls else "end_turn" if refusal is None else "refusal"
    assert got_stop == (answer["stop_reason"] or fitting)
    assert got_usage == {**got_usage, **answer["usage"]}


@settings(max_examples=30, deadline=None)
@given(answer=answers(FakeOpenAI, _TEXT.filter(bool), _OPENAI_USAGE))
def test_openai_streamed_and_plain_answers_agree(answer: dict[str, Any]) -> None:
    stop, calls = answer["stop_reason"], answer["tool_calls"]
    # The client's stream helper refuses to sum a length or content-filter stop.
    helped = stop not in ("length", "content_filter")
    with (
        FakeOpenAI() as fake,
        openai.OpenAI(base_url=fake.base_url, api_key="k", max_retries=0) as client,
    ):
        for _ in range(3 if helped else 2):
            fake.script_reply(**answer)
        plain = completion_view(chat(client))
        with_usage: Any = {"include_usage": True}
        streamed = assemble(list(chat(client, stream=True, stream_options=with_usage)))
        if helped:
            with client.chat.completions.stream(
                model="fake-model", messages=USER, stream_options=with_usage
            ) as stream:
                assert completion_view(stream.get_final_completion()) == plain
    assert streamed == plain
    content, got_refusal, got_calls, finish, got_usage = plain
    assert (got_refusal, got_calls) == (answer["refusal"], calls)
    assert (content or "") == answer["text"]
    assert finish == (stop or ("tool_calls" if calls else "stop"))
    assert got_usage.model_dump(exclude_none=True) == answer["usage"]
