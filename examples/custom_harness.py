"""Adapting a harness nobody packaged: write a translator, run its events on a client.

A translator is pure: native event in, lifecycle calls out; daemon answers
in, native output out. The client supplies the HTTP, retries and deadlines;
``run_event`` joins the two and fails open. To make it installable, wrap
the translator in a ``HarnessPlugin`` and register it under the
``signet_sdk.adapters`` entry point (see docs/writing-an-adapter.md).

SIGNET_DAEMON_URL=http://127.0.0.1:3850 python examples/custom_harness.py
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from signet_sdk import PayloadError, create_adapter, run_event
from signet_sdk.plugin import EventSpec, HarnessPlugin, LifecycleCall, NativeOutput


class ToyTranslator:
    """A toy harness that sends {"conversation": ..., "text": ...} events."""

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        conversation = payload.get("conversation")
        if not isinstance(conversation, str) or not conversation:
            raise PayloadError("conversation", "must be a non-empty string")
        if event == "open":
            return [LifecycleCall("session_start", {"sessionKey": conversation})]
        if event == "message":
            body = {"sessionKey": conversation, "userMessage": payload.get("text", "")}
            return [LifecycleCall("user_prompt_submit", body)]
        raise PayloadError("event", f"unknown event {event!r}")

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        inject = results[0].get("inject", "") if results and results[0] else ""
        return NativeOutput({"system": inject}) if inject else self.neutral(event)

    def neutral(self, event: str) -> NativeOutput:
        return NativeOutput({"system": None})


TOY = HarnessPlugin(
    "toy-harness",
    translator=ToyTranslator(),
    events=[EventSpec("open", "session_start"), EventSpec("message", "prompt_submit")],
    runtime_path="plugin",
)

with create_adapter("toy-harness") as client:
    opened = run_event(client, "open", {"conversation": "toy-1"}, plugin=TOY)
    print("open ->", "context injected" if opened.output.data["system"] else "nothing injected")
    bad = run_event(client, "message", {"text": "no conversation id"}, plugin=TOY)
    print("bad payload fails open ->", bad.output.data, "because", bad.degraded)
