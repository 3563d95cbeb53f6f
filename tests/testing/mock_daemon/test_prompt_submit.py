"""User-prompt-submit (§2.2): matching memories, sessionKnown, the no-match inject, dedupe."""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.anyio

PLUGIN = {"x-signet-runtime-path": "plugin"}
HEADER = "# Current Date & Time\nThursday, April 30, 2026, 12:00 UTC\n\n"


async def prompt(client: httpx.AsyncClient, message: str, **extra: object) -> httpx.Response:
    body = {"harness": "claude-code", "sessionKey": "s1", "userMessage": message, **extra}
    return await client.post("/api/hooks/user-prompt-submit", json=body, headers=PLUGIN)


async def remember(client: httpx.AsyncClient, content: str, **extra: object) -> str:
    r = await client.post("/api/memory/remember", json={"content": content, **extra})
    return str(r.json()["id"])


async def test_message_or_prompt_and_harness_are_required(client: httpx.AsyncClient) -> None:
    error = {"error": "harness and userMessage or userPrompt are required"}
    for body in (
        {"harness": "h"},
        {"harness": "h", "userMessage": "   "},
        {"harness": "h", "userPrompt": 5},
        {"userMessage": "hi"},
    ):
        r = await client.post("/api/hooks/user-prompt-submit", json=body)
        assert (r.status_code, r.json()) == (400, error)
    r = await client.post(
        "/api/hooks/user-prompt-submit",
        json={"harness": "h", "userMessage": " ", "userPrompt": "x"},
    )
    assert r.status_code == 200


async def test_matching_memories_are_injected(client: httpx.AsyncClient) -> None:
    await remember(client, "The billing service stores invoices in Postgres")
    await remember(client, "Deploys happen on Fridays")
    r = await prompt(client, "Where does the billing service keep invoices?")
    body = r.json()
    assert body["memoryCount"] == 1
    assert body["engine"] == "hybrid"
    assert body["queryTerms"] == "billing service keep invoices"
    assert body["sessionKnown"] is False
    assert body["inject"].startswith(HEADER + "# Relevant Memories (1)\n")
    assert "The billing service stores invoices in Postgres" in body["inject"]
    assert "Fridays" not in body["inject"]


async def test_session_known_reflects_a_live_claim_before_the_call(
    client: httpx.AsyncClient,
) -> None:
    assert (await prompt(client, "first")).json()["sessionKnown"] is False
    assert (await prompt(client, "second")).json()["sessionKnown"] is True


async def test_no_match_inject_is_a_date_header_and_memory_check(client: httpx.AsyncClient) -> None:
    body = (await prompt(client, "zebra quantum")).json()
    assert body["memoryCount"] == 0
    assert "engine" not in body
    assert body["inject"].startswith(HEADER + "# Memory Check\n")
    assert body["inject"] != ""


async def test_memories_of_other_agents_are_not_injected(client: httpx.AsyncClient) -> None:
    await remember(client, "Alice keeps her notes in Obsidian", agentId="alice")
    assert (await prompt(client, "obsidian notes")).json()["memoryCount"] == 0
    assert (await prompt(client, "obsidian notes", agentId="alice")).json()["memoryCount"] == 1


async def test_injected_ids_are_not_repeated_within_five_turns(client: httpx.AsyncClient) -> None:
    await remember(client, "Kafka topic names use kebab case")
    assert (await prompt(client, "kafka topic naming")).json()["memoryCount"] == 1
    for _ in range(5):  # turns 2-6 still see turn 1 in their five-turn window
        assert (await prompt(client, "kafka topic naming")).json()["memoryCount"] == 0
    # Turn 7: the injection of turn 1 has left the window.
    assert (await prompt(client, "kafka topic naming")).json()["memoryCount"] == 1


async def test_compaction_complete_resets_the_dedupe_window(client: httpx.AsyncClient) -> None:
    await remember(client, "Kafka topic names use kebab case")
    assert (await prompt(client, "kafka topic naming")).json()["memoryCount"] == 1
    assert (await prompt(client, "kafka topic naming")).json()["memoryCount"] == 0
    await client.post(
        "/api/hooks/compaction-complete",
        json={"harness": "claude-code", "sessionKey": "s1", "summary": "compacted"},
        headers=PLUGIN,
    )
    assert (await prompt(client, "kafka topic naming")).json()["memoryCount"] == 1


async def test_dedupe_is_per_session(client: httpx.AsyncClient) -> None:
    await remember(client, "Kafka topic names use kebab case")
    assert (await prompt(client, "kafka topic")).json()["memoryCount"] == 1
    assert (await prompt(client, "kafka topic", sessionKey="s2")).json()["memoryCount"] == 1


async def test_inject_respects_the_character_budget(client: httpx.AsyncClient) -> None:
    for i in range(6):
        await remember(client, f"Widget fact number {i}: " + "lorem ipsum " * 15)
    body = (await prompt(client, "widget fact")).json()
    assert 1 <= body["memoryCount"] < 6
    assert body["inject"].count("\n- ") == body["memoryCount"]


async def test_user_prompt_is_used_when_user_message_is_blank(client: httpx.AsyncClient) -> None:
    await remember(client, "Grafana dashboards live in the ops repo")
    r = await client.post(
        "/api/hooks/user-prompt-submit",
        json={"harness": "h", "userMessage": "", "userPrompt": "grafana dashboards"},
    )
    assert r.json()["memoryCount"] == 1
    assert r.json()["sessionKnown"] is False
