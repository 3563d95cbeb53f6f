"""The Copilot CLI contract vectors, run two ways, and the parity column.

1. Pure: ``translate`` gives the vector's calls (the wire body built by the
   core every transport uses) and ``render`` of the vector's answers gives
   the vector's stdout byte for byte.
2. For real: ``signet-sdk hook copilot <event>`` in a subprocess against a
   fake daemon replaying the vector's answers: the daemon receives the
   vector's bodies and Copilot would read exactly the vector's stdout, exit
   0, nothing on stderr. The agentStop vector's ``transcriptPath`` then names
   a real ``events.jsonl``, and the staged transcript holds the conversation
   derived from it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cp_events import assistant, conversation_bytes, events_file, hook_start, other, user
from signet_adapter_copilot import PLUGIN as SIGNET_PLUGIN
from signet_e2e.vector_set import assert_vector_set

from signet_sdk.testing import assert_parity, check_vector, check_vector_through_hook, load_vectors

if TYPE_CHECKING:
    from signet_sdk.testing import ScriptedDaemon

VECTORS = load_vectors(SIGNET_PLUGIN)


def test_vector_set_covers_every_event_and_source() -> None:
    sources, reasons = ("new", "resume"), ("user_exit", "complete")
    assert_vector_set(
        SIGNET_PLUGIN,
        VECTORS,
        sources=sources,
        reasons=reasons,
        start="sessionStart",
        end="sessionEnd",
    )
    for v in VECTORS:
        assert "hook_event_name" not in v["payload"]  # camelCase hooks name no event


def test_vector_output_is_what_copilot_reads(signet_vector: dict[str, Any]) -> None:
    """Either no stdout, or one top-level ``additionalContext`` string."""
    stdout = signet_vector["output"]["stdout"]
    if not stdout:
        return
    out = json.loads(stdout)
    assert list(out) == ["additionalContext"] and isinstance(out["additionalContext"], str)
    assert signet_vector["event"] in ("sessionStart", "userPromptSubmitted", "subagentStart")


def test_vector_translate_and_render(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


#: A session's first turn as Copilot logs it, and the conversation derived from it.
TURN = [
    other("session.start"),
    user("How do we deploy atlas?"),
    other("system.message"),
    assistant("Run make ship."),
    other("assistant.turn_end"),
]
CONVERSATION = conversation_bytes(
    ("user", "How do we deploy atlas?"), ("assistant", "Run make ship.")
)


def test_vector_through_hook_command(
    signet_vector: dict[str, Any], scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    """With the session's events.jsonl as Copilot writes it before the hook runs: the turn
    (for a checkpoint) and the hook's own ``hook.start`` line, which agentStop and
    sessionEnd wait for."""
    vector = signet_vector
    sent = dict(vector["payload"])
    event, session = vector["event"], sent.get("sessionId")
    checkpoint = event == "agentStop" and bool(vector["calls"])
    if event in ("agentStop", "sessionEnd") and isinstance(session, str):
        records = [*(TURN if checkpoint else []), hook_start(event, sent)]
        path = events_file(isolated, records, session=session)
        if "transcriptPath" in sent:
            sent["transcriptPath"] = str(path)
    check_vector_through_hook(SIGNET_PLUGIN, vector, scripted_daemon, payload=sent)
    if checkpoint:
        (request,) = scripted_daemon.requests
        assert request.staged == CONVERSATION


def test_parity_has_no_missing_row() -> None:
    assert_parity(SIGNET_PLUGIN.name)
