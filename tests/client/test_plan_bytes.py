"""The clients' one-pass body serialisation sends what the general path sends.

Calls whose body is a model and whose route has no path or query parameters
are planned from a per-client route cache, with pydantic writing the JSON
and the hook members spliced in (``BaseAdapterClient._plan``). Every other
call goes the general way (``to_wire()``, ``hook_body``, compact JSON).
These tests hold the two to the same bytes, for every body in every
contract vector and for generated text, under each configuration that
changes the hook members.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

import signet_sdk.models as models
from signet_sdk import AdapterClient
from signet_sdk.wire.lifecycle import LIFECYCLE

ROOT = Path(__file__).resolve().parents[2]
#: Body members the client adds from its configuration, not from the params.
CLIENT_MEMBERS = ("harness", "runtimePath")
CONFIGS: list[dict[str, Any]] = [
    {},
    {"agent_id": "agent-7"},
    {"runtime_path": "plugin", "agent_id": "agent-9"},
]


def _vector_bodies() -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    files = sorted(ROOT.glob("contract/vectors/**/*.json"))
    files += sorted(ROOT.glob("adapters/*/signet_adapter_*/vectors/*.json"))
    for path in files:
        vector = json.loads(path.read_text(encoding="utf-8"))
        for call in vector.get("calls") or []:
            if call.get("action") in LIFECYCLE and isinstance(call.get("body"), dict):
                found.append((call["action"], call["body"]))
    return found


BODIES = _vector_bodies()


def _both(client: AdapterClient, action: str, params: BaseModel) -> tuple[Any, Any]:
    result: type[BaseModel] = getattr(models, LIFECYCLE[action].result_model)
    fast = client._plan(action, result, params).request
    slow = client._slow_plan(action, result, params, None, None).request
    return fast, slow


def test_the_vectors_hold_bodies_for_every_lifecycle_action() -> None:
    assert {action for action, _ in BODIES} == set(LIFECYCLE)


@pytest.mark.parametrize("options", CONFIGS, ids=["plain", "agent", "path+agent"])
def test_every_vector_body_plans_to_the_same_request(options: dict[str, Any]) -> None:
    client = AdapterClient("h", "http://127.0.0.1:9", **options)
    planned = 0
    for action, body in BODIES:
        model: type[BaseModel] = getattr(models, LIFECYCLE[action].params_model)
        # The members the client supplies itself are not params; everything else
        # a vector expects the daemon to receive must be a params field.
        params_body = {k: v for k, v in body.items() if k not in CLIENT_MEMBERS}
        without_agent = {k: v for k, v in params_body.items() if k != "agentId"}
        for trimmed in (params_body, without_agent):
            try:
                params = model.model_validate(trimmed)
            except ValidationError as exc:
                pytest.fail(f"{action}: a vector body the params model rejects: {exc}")
            planned += 1
            fast, slow = _both(client, action, params)
            assert fast.content == slow.content, (action, trimmed)
            assert (fast.method, fast.url, fast.headers, fast.timeout) == (
                slow.method,
                slow.url,
                slow.headers,
                slow.timeout,
            )
    assert planned == 2 * len(BODIES) > 200


@settings(max_examples=150, deadline=None)
@given(
    message=st.text(),
    key=st.text(min_size=1, max_size=40),
    project=st.none() | st.text(max_size=40),
    harness=st.none() | st.text(min_size=1, max_size=20),
)
def test_generated_text_plans_to_the_same_bytes(
    message: str, key: str, project: str | None, harness: str | None
) -> None:
    client = AdapterClient("h\u00fcb", "http://127.0.0.1:9", agent_id="x", runtime_path="legacy")
    values: dict[str, Any] = {"session_key": key, "user_message": message}
    if project is not None:
        values["project"] = project
    if harness is not None:
        values["harness"] = harness
    try:
        params = models.UserPromptSubmitParams(**values)
    except ValidationError:
        assume(False)
    fast, slow = _both(client, "user_prompt_submit", params)
    assert fast.content == slow.content
    assert json.loads(fast.content)["harness"] == (harness or "h\u00fcb")


def test_an_empty_body_gets_only_the_hook_members() -> None:
    client = AdapterClient("h", "http://127.0.0.1:9")
    fast, slow = _both(client, "recall", models.RecallParams.model_construct())
    assert fast.content == slow.content
