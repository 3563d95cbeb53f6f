"""What the real daemon (TS 0.109.15) sends that the models must accept and keep."""

from __future__ import annotations

from signet_sdk.models import HealthStatus, SessionList


def test_health_backoff_is_a_float_with_jitter() -> None:
    health = HealthStatus.model_validate(
        {
            "status": "healthy",
            "pipeline": {"extractionRunning": True, "extractionBackoffMs": 1843.2071},
        }
    )
    assert health.pipeline is not None
    assert health.pipeline.extraction_backoff_ms == 1843.2071


def test_session_listing_keeps_the_agent() -> None:
    listed = SessionList.model_validate(
        {
            "sessions": [
                {
                    "key": "s-1",
                    "agentId": "ops",
                    "runtimePath": "plugin",
                    "claimedAt": "2026-11-24T10:00:00.000Z",
                    "expiresAt": "2026-11-24T14:00:00.000Z",
                }
            ],
            "count": 1,
        }
    )
    assert listed.sessions[0].agent_id == "ops"
    assert listed.model_dump(by_alias=True, exclude_none=True)["sessions"][0]["agentId"] == "ops"


def test_list_sessions_is_scoped_to_the_clients_agent_by_query() -> None:
    """The daemon scopes /api/sessions by the agent_id query only, never by the header."""
    import respx

    from signet_sdk import AdapterClient

    with respx.mock(base_url="http://127.0.0.1:3850") as mock:
        route = mock.get("/api/sessions").respond(200, json={"sessions": [], "count": 0})
        with AdapterClient("h", "http://127.0.0.1:3850", agent_id="ops") as client:
            client.list_sessions()
    assert dict(route.calls[0].request.url.params) == {"agent_id": "ops"}
