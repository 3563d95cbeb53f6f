"""Every body the built-in codecs build is one the vendors' own request types accept.

The official ``anthropic`` and ``openai`` packages describe their request
bodies as TypedDicts (``MessageCreateParams...``, ``CompletionCreateParams...``).
pydantic validates against them loosely by default: unknown keys are
dropped and nested ``Iterable`` fields are only checked when read. So each
body is validated, every lazy list read out, and the result must equal the
body exactly: a key the vendor does not know, or a value it would coerce,
fails the test. A few wrong bodies show the check can fail.

One known gap: the installed ``anthropic`` package's request type no longer
has ``temperature`` (its API version 2026-10-21 dropped the sampling
parameters, and Claude's newest models reject them). The providers speak
``anthropic-version: 2023-06-01``, where it is still a field, and send it
only when a caller sets ``CompletionOptions.temperature``; that one key is
checked apart.
"""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
from anthropic.types.message_create_params import (
    MessageCreateParamsNonStreaming,
    MessageCreateParamsStreaming,
)
from openai.types.chat.completion_create_params import (
    CompletionCreateParamsNonStreaming,
    CompletionCreateParamsStreaming,
)
from pydantic_core import ValidationError

from signet_sdk.agent.providers import AnthropicCodec, OpenAICodec
from signet_sdk.agent.types import CompletionOptions, Message, ToolCall, ToolSpec
from signet_sdk.tools import enabled_tools

from .test_anthropic import CONVERSATION as ANTHROPIC_CONVERSATION
from .test_openai import CONVERSATION as OPENAI_CONVERSATION

MEMORY_TOOLS = tuple(ToolSpec(t.name, t.description, t.input_schema()) for t in enabled_tools())
OPTION_SETS = {
    "bare": CompletionOptions(),
    "full": CompletionOptions(
        system="You remember.",
        tools=MEMORY_TOOLS,
        max_tokens=1024,
        stop_sequences=("END",),
        cache_key="conv-9",
    ),
    "sampled": CompletionOptions(system="You remember.", temperature=0.3),
}
BAD_ARGUMENTS = Message(
    "assistant", "", (ToolCall("call_x", "memory_store", {}, raw_arguments="{oops", error="bad"),)
)
CONVERSATIONS = {
    "one turn": [Message("user", "hi")],
    "anthropic tools": ANTHROPIC_CONVERSATION,
    "openai tools": OPENAI_CONVERSATION,
    "bad arguments": [Message("user", "store it"), BAD_ARGUMENTS],
}
ADAPTERS: dict[tuple[str, bool], pydantic.TypeAdapter[Any]] = {
    ("anthropic", False): pydantic.TypeAdapter(MessageCreateParamsNonStreaming),
    ("anthropic", True): pydantic.TypeAdapter(MessageCreateParamsStreaming),
    ("openai", False): pydantic.TypeAdapter(CompletionCreateParamsNonStreaming),
    ("openai", True): pydantic.TypeAdapter(CompletionCreateParamsStreaming),
}
CODECS: dict[str, AnthropicCodec | OpenAICodec] = {
    "anthropic": AnthropicCodec(),
    "openai": OpenAICodec(),
    "openai-compatible": OpenAICodec("http://127.0.0.1:11434/v1"),
}


def read_out(value: Any) -> Any:
    """``value`` with every lazily validated iterable read (which validates its items)."""
    if isinstance(value, dict):
        return {key: read_out(item) for key, item in value.items()}
    if isinstance(value, list | tuple) or type(value).__name__ == "ValidatorIterator":
        return [read_out(item) for item in value]
    return value


def check(api: str, stream: bool, body: dict[str, Any]) -> None:
    validated = read_out(ADAPTERS[(api, stream)].validate_python(body))
    if api == "anthropic" and "temperature" in body:
        assert "temperature" not in validated  # no field of the current type (see above)
        body = {key: value for key, value in body.items() if key != "temperature"}
    assert validated == body


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize("options", sorted(OPTION_SETS))
@pytest.mark.parametrize("conversation", sorted(CONVERSATIONS))
@pytest.mark.parametrize("codec", sorted(CODECS))
def test_every_body_fits_the_vendors_request_type(
    codec: str, conversation: str, options: str, stream: bool
) -> None:
    body = CODECS[codec].body(
        "some-model", CONVERSATIONS[conversation], OPTION_SETS[options], stream
    )
    check(codec.split("-")[0], stream, body)


@pytest.mark.parametrize(
    ("api", "spoil"),
    [
        ("anthropic", lambda b: b["messages"][0]["content"][0].update(type="txt")),
        ("anthropic", lambda b: b.update(unknown_field=True)),
        ("anthropic", lambda b: b["messages"][0]["content"][0].update(extra="x")),
        ("anthropic", lambda b: b.update(cache_control={"type": "forever"})),
        ("openai", lambda b: b["messages"].append({"role": "tool", "content": "no id"})),
        ("openai", lambda b: b.update(max_completion_tokens="many")),
        ("openai", lambda b: b["tools"][0]["function"].update(params={})),
    ],
)
def test_the_check_rejects_a_wrong_body(api: str, spoil: Any) -> None:
    body = CODECS[api].body("m", [Message("user", "hi")], OPTION_SETS["full"], False)
    check(api, False, body)
    spoil(body)
    with pytest.raises((ValidationError, AssertionError)):
        check(api, False, body)


def test_a_streamed_body_is_not_a_non_streamed_one() -> None:
    body = CODECS["anthropic"].body("m", [Message("user", "hi")], OPTION_SETS["bare"], True)
    with pytest.raises(ValidationError):
        check("anthropic", False, body)
