"""Odd but legal values against the real daemons: what a user sends is what is meant.

Each case was wrong on the wire before: an explicit ``None`` for the agent
went out as ``null`` (TS 0.109 stored the memory under ``default``), and a
session key of ``.`` fetched the session list.
"""

from __future__ import annotations

import uuid

import pytest

import signet_sdk as s
from signet_sdk.testing.real_daemon import RealDaemon


def test_an_agent_id_of_none_is_the_clients_agent(real_daemon: RealDaemon) -> None:
    marker = f"okapi{uuid.uuid4().hex[:10]}"
    with s.AdapterClient("real-odd", real_daemon.url, agent_id="alice") as client:
        stored = client.remember(
            s.RememberParams(content=f"alice feeds the {marker}", agent_id=None)
        )
        assert stored.id
        found = client.recall(s.RecallParams(query=marker))
    assert [hit.id for hit in found.results] == [stored.id]


def test_a_dot_segment_session_key_never_reads_another_route(real_daemon: RealDaemon) -> None:
    with s.AdapterClient("real-odd", real_daemon.url, max_retries=0) as client:
        for key in (".", ".."):
            with pytest.raises(s.ConfigError) as exc:
                client.get_session(key)
            assert exc.value.field == "key"
