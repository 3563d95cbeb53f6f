"""Hermes's side of the fake OpenAI-compatible model the end-to-end tests run it against.

The server is the kit's :class:`~signet_sdk.testing.fake_openai.FakeOpenAI`
answering with :func:`reply`: :data:`SUMMARY` to Hermes's compression
request (recognised by :func:`is_summary_request`), :data:`REPLY` to
everything else. Tests script tool calls through its ``tool_script``, read
what reached the model from ``chat_bodies()`` and make Hermes compress by
setting its ``usage`` to a large :func:`usage`.
"""

from __future__ import annotations

from typing import Any

REPLY = "FAKE-HERMES-REPLY: noted."
#: The answer to Hermes's compression request (recognised by its opening words).
SUMMARY = "SIGNET-HERMES-SUMMARY-5150: atlas deploys go through make ship."
_SUMMARY_REQUEST = "You are a summarization agent"


def is_summary_request(body: dict[str, Any]) -> bool:
    """Whether a request body is Hermes's compression (summary) request."""
    messages = body.get("messages") or []
    first = messages[0] if messages and isinstance(messages[0], dict) else {}
    content = first.get("content")
    return isinstance(content, str) and content.startswith(_SUMMARY_REQUEST)


def reply(body: dict[str, Any]) -> str:
    """The model's text for one request: the summary to a compression request, else the reply."""
    return SUMMARY if is_summary_request(body) else REPLY


def usage(prompt_tokens: int) -> dict[str, int]:
    """The usage each answer reports, with ``prompt_tokens`` input tokens."""
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": 5,
        "total_tokens": prompt_tokens + 5,
    }
