"""Every endpoint over a real socket: ``signet-sdk serve`` with a token, the mock daemon behind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

from .server_support import serve_process

TOKEN = "socket-test-token-7c1d"
LIFECYCLE_BODIES = {
    "session-start": {"sessionKey": "sock-1", "project": "/srv/atlas"},
    "user-prompt-submit": {"sessionKey": "sock-1", "userMessage": "when do we deploy?"},
    "session-checkpoint-extract": {"sessionKey": "sock-1", "transcript": "we deploy Tuesdays"},
    "pre-compaction": {"sessionKey": "sock-1"},
    "compaction-complete": {"sessionKey": "sock-1", "summary": "deploys are on Tuesdays"},
    "remember": {"content": "deploys are on Tuesdays"},
    "recall": {"query": "deploys"},
    "session-end": {"sessionKey": "sock-1", "reason": "exit"},
}


@pytest.fixture
def served(tmp_path: Path, daemon: tuple[MockDaemon, str]) -> Iterator[httpx.Client]:
    env = {"SIGNET_ADAPTER_SERVER_TOKEN": TOKEN}
    with serve_process(daemon[1], tmp_path / "state", env=env) as (_, url):
        headers = {"authorization": f"Bearer {TOKEN}"}
        with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
            yield client


def test_health_over_the_socket(served: httpx.Client) -> None:
    url = str(served.base_url).rstrip("/")
    anon = httpx.get(f"{url}/health", timeout=10)
    assert anon.json() == {"status": "ok"}
    full = served.get("/health").json()
    assert full["daemon"]["reachable"] is True and "claude-code" in full["harnesses"]


def test_every_lifecycle_action_over_the_socket(
    served: httpx.Client, daemon: tuple[MockDaemon, str]
) -> None:
    for slug, body in LIFECYCLE_BODIES.items():
        answer = served.post(f"/v1/sock-harness/lifecycle/{slug}", json=body)
        assert answer.status_code == 200, (slug, answer.text)
        assert isinstance(answer.json(), dict)
    paths = {r.path for r in daemon[0].requests}
    assert {"/api/hooks/session-start", "/api/hooks/session-end", "/api/hooks/remember"} <= paths
    found = served.post("/v1/sock-harness/lifecycle/recall", json={"query": "Tuesdays"}).json()
    assert any("Tuesdays" in r["content"] for r in found["results"])


def test_events_tools_and_docs_over_the_socket(served: httpx.Client) -> None:
    served.post("/v1/x/lifecycle/remember", json={"content": "the release train leaves Tuesday"})
    prompt = {"session_id": "sock-cc", "cwd": "/srv/atlas", "prompt": "when is the release?"}
    event = served.post("/v1/claude-code/events/UserPromptSubmit", json=prompt).json()
    assert event["degraded"] is None
    assert "release train" in event["data"]["hookSpecificOutput"]["additionalContext"]
    tools = served.get("/v1/tools").json()["tools"]
    assert "memory_search" in [t["name"] for t in tools]
    found = served.post("/v1/tools/memory_search", json={"query": "release"})
    assert found.status_code == 200 and found.json()["results"]
    assert "/v1/{harness}/events/{event}" in served.get("/openapi.json").json()["paths"]
    assert served.get("/docs").status_code == 200


def test_the_gate_over_the_socket(served: httpx.Client) -> None:
    url = str(served.base_url).rstrip("/")
    assert httpx.post(f"{url}/v1/h/lifecycle/recall", json={"query": "q"}).status_code == 401
    wrong = httpx.post(
        f"{url}/v1/h/lifecycle/recall",
        json={"query": "q"},
        headers={"authorization": "Bearer nope"},
    )
    assert wrong.status_code == 401
    rebound = served.get("/health", headers={"host": "rebind.example:80"})
    assert rebound.status_code == 421
    big = served.post("/v1/h/lifecycle/recall", json={"query": "x" * (5 * 1024 * 1024)})
    assert big.status_code == 413
