"""Adapting a harness nobody packaged: write a translator, get a full adapter.

A translator is pure: native event in, lifecycle calls out; daemon answers
in, native output out. HarnessAdapter supplies the HTTP, retries, deadlines
and fail-open behaviour.

SIGNET_DAEMON_URL=http://127.0.0.1:3850 python examples/custom_harness.py
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from signet_sdk import HarnessAdapter, LifecycleCall, NativeOutput, PayloadError


class ToyTranslator:
    """A toy harness that sends {"type": "...", "conversation": ..., "text": ...} events."""

    harness = "toy-harness"
    runtime_path = "plugin"
    events = ("open", "message")
    not_applicable = {"health": "the toy harness has no health probe"}

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        conversation = payload.get("conversation")
        if not isinstance(conversation, str) or not conversation:
            raise PayloadError("conversation", "must be a non-empty string")
        if event == "open":
            return [LifecycleCall("session_start", {"sessionKey": conversation})]
        if event == "message":
            body = {"sessionKey": conversation, "userMessage": payload.get("text", "")}
            return [LifecycleCall("user_prompt_submit", body)]
        raise PayloadError("type", f"unknown event {event!r}")

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        inject = results[0].get("inject", "") if results else ""
        return NativeOutput(stdout=json.dumps({"system": inject}) if inject else "")

    def neutral(self, event: str) -> NativeOutput:
        return NativeOutput()


with HarnessAdapter(translator=ToyTranslator()) as adapter:
    opened = adapter.handle("open", {"conversation": "toy-1"})
    print("open ->", "context injected" if opened.stdout else "nothing injected")
    bad = adapter.handle("message", {"text": "no conversation id"})
    print("bad payload fails open ->", repr(bad.stdout), "exit", bad.exit_code)
