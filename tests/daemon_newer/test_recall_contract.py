"""Upstream's cross-client recall contract, replayed through the client.

Signet-AI/signetai platform/core/contracts/recall-request-v1.json@84ef5770
lists, as vectors, how a recall intent (a query plus options) becomes the
``POST /api/memory/recall`` body, and which first-party clients must pass
each one ("sdk" is upstream's TypeScript SDK). The vectors are kept as data in
``contract/upstream/recall-request-v1.json``, so a client in any language can
replay them too; each is built with ``MemoryRecallRequest.from_intent`` and
sent through ``AdapterClient.memory_recall`` (sync and async), and the JSON
the daemon receives must be the vector's ``expected`` exactly. Every vector
passes, the ``sdk`` ones and the ``core``-only one alike; no rule is
deliberately different.

What stays strict on purpose is the plain constructor: ``MemoryRecallRequest(...)``
sends the limit it is given (TS 0.109 does not clamp, and a caller who sets
one means it) and refuses an unknown option by name, where the contract's
builder would pass it on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from pydantic import ValidationError

from signet_sdk import AdapterClient, AsyncAdapterClient
from signet_sdk.models import MemoryRecallRequest
from signet_sdk.wire.contract_data import contract_dir

BASE = "http://127.0.0.1:3997"
#: Upstream's vectors and their source, kept with the rest of the contract as data.
CONTRACT_FILE = Path(contract_dir()) / "upstream" / "recall-request-v1.json"
CONTRACT_DOC: dict[str, Any] = json.loads(CONTRACT_FILE.read_text(encoding="utf-8"))
CONTRACT: str = CONTRACT_DOC["source"]

#: Each vector: name, clients, query, options, expected; in the contract's order.
VECTORS: list[dict[str, Any]] = CONTRACT_DOC["vectors"]


@pytest.fixture(params=VECTORS, ids=[v["name"] for v in VECTORS])
def vector(request: pytest.FixtureRequest) -> dict[str, Any]:
    """One vector of the contract; a test taking it runs once per vector."""
    vector: dict[str, Any] = request.param
    return vector


@pytest.fixture
def recall_route() -> Iterator[respx.Route]:
    """The daemon's recall route, answering no hits; every test must call it."""
    with respx.mock(base_url=BASE, assert_all_called=True) as mock:
        yield mock.post("/api/memory/recall").respond(200, json={"results": []})


def _built(vector: dict[str, Any]) -> MemoryRecallRequest:
    return MemoryRecallRequest.from_intent(vector["query"], vector["options"])


def _sent(route: respx.Route) -> Any:
    return json.loads(route.calls[0].request.content)


def test_the_file_holds_every_vector_and_every_sdk_one() -> None:
    names = [v["name"] for v in VECTORS]
    assert len(names) == len(set(names)) == 9
    sdk = [v["name"] for v in VECTORS if "sdk" in v["clients"]]
    assert sdk == [
        "canonical-defaults",
        "lower-limit-bound",
        "fractional-limit",
        "upper-limit-bound",
        "huge-integer-limit",
        "canonical-options",
        "false-flags-are-omitted",
        "aggregate-save-false-is-preserved",
    ]


def test_sync_client_sends_the_contracts_body(
    vector: dict[str, Any], recall_route: respx.Route
) -> None:
    # The context agent is also the client's own: neither reaches the body over agentId.
    with AdapterClient("sdk", BASE, agent_id="context-agent") as client:
        client.memory_recall(_built(vector))
    assert _sent(recall_route) == vector["expected"], CONTRACT


@pytest.mark.anyio
async def test_async_client_sends_the_contracts_body(
    vector: dict[str, Any], recall_route: respx.Route
) -> None:
    async with (
        httpx.AsyncClient() as http,
        AsyncAdapterClient("sdk", BASE, http_client=http) as client,
    ):
        await client.memory_recall(_built(vector))
    assert _sent(recall_route) == vector["expected"], CONTRACT


def test_the_context_agent_is_sent_only_when_no_agent_was_given() -> None:
    assert MemoryRecallRequest.from_intent("q", {"contextAgentId": "ctx"}).to_wire() == {
        "query": "q",
        "limit": 10,
        "agentId": "ctx",
    }
    by_keyword = MemoryRecallRequest.from_intent("q", context_agent_id="ctx")
    assert by_keyword.agent_id == "ctx"
    explicit = MemoryRecallRequest.from_intent("q", {"agent_id": "a"}, context_agent_id="ctx")
    assert explicit.agent_id == "a"


def test_limits_that_are_no_finite_number() -> None:
    for value in (float("nan"), float("inf"), None):
        assert MemoryRecallRequest.from_intent("q", {"limit": value}).limit == 10
    assert MemoryRecallRequest.from_intent("q", {"limit": -3.7}).limit == 1
    for refused in (True, "many", [5]):
        with pytest.raises(ValidationError) as info:
            MemoryRecallRequest.from_intent("q", {"limit": refused})
        assert info.value.errors()[0]["loc"] == ("limit",), refused


def test_an_unknown_option_is_refused_by_its_name() -> None:
    with pytest.raises(ValidationError) as info:
        MemoryRecallRequest.from_intent("q", {"recallSurfce": "tool_call"})
    assert info.value.errors()[0]["loc"] == ("recallSurfce",)


def test_min_score_travels_as_given() -> None:
    built = MemoryRecallRequest.from_intent("q", {"minScore": 0.42})
    assert built.to_wire() == {"query": "q", "minScore": 0.42, "limit": 10}


def test_the_plain_constructor_stays_strict() -> None:
    # What the caller sets is what is sent: no default limit, no clamping.
    assert MemoryRecallRequest(query="q", limit=500).to_wire() == {"query": "q", "limit": 500}
    assert MemoryRecallRequest(query="q", pinned=False).to_wire() == {"query": "q", "pinned": False}
    with pytest.raises(ValidationError):
        MemoryRecallRequest(query="q", limit=12.9)
