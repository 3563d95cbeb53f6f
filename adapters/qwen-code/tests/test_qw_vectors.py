"""The Qwen Code vectors, run two ways.

1. Pure: ``translate`` gives the vector's calls (wire bodies built by the same
   core every transport uses), and ``render`` of the vector's answers gives
   the vector's stdout byte for byte.
2. For real: the installed hook command, in a subprocess, against a fake
   daemon replaying the vector's answers. The daemon must receive the
   vector's bodies (the record file staged under /tmp/signet) and the command
   must print exactly the vector's stdout and exit 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from signet_adapter_qwen_code import PLUGIN as SIGNET_PLUGIN
from signet_e2e.vector_set import assert_vector_set

from signet_sdk.testing import (
    assert_parity,
    check_vector,
    check_vector_through_hook,
    load_vectors,
    write_jsonl,
)

if TYPE_CHECKING:
    from signet_sdk.testing import ScriptedDaemon

VECTORS = load_vectors(SIGNET_PLUGIN)


def test_vector_set_covers_every_event_source_and_reason() -> None:
    sources = ("startup", "resume", "clear", "compact")
    reasons = ("clear", "logout", "prompt_input_exit", "bypass_permissions_disabled", "other")
    assert_vector_set(SIGNET_PLUGIN, VECTORS, sources=sources, reasons=reasons)
    triggers = {v["payload"].get("trigger") for v in VECTORS if v["event"] == "PreCompact"}
    assert triggers == {"manual", "auto"}
    assert SIGNET_PLUGIN.runtime_path == "legacy"
    assert all("agentId" not in call["body"] for v in VECTORS for call in v["calls"])


def test_vector_translate_and_render(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


def _record_file(qwen: Path) -> Path:
    """A session record as Qwen Code 0.24 writes one (abridged)."""
    chats = qwen / "projects" / "-home-dev-projects-atlas" / "chats"
    return write_jsonl(
        chats / "3b6e1f0a-7c24-4d5e-9a81-0f2c6d4e8b17.jsonl",
        [
            {
                "type": "user",
                "message": {"role": "user", "parts": [{"text": "How do we deploy atlas?"}]},
            },
            {
                "type": "assistant",
                "message": {"role": "model", "parts": [{"text": "With make ship."}]},
            },
        ],
    )


def test_vector_through_hook_command(
    signet_vector: dict[str, Any], scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    record = _record_file(isolated)
    check_vector_through_hook(SIGNET_PLUGIN, signet_vector, scripted_daemon, transcript=record)


def test_parity_column_has_no_missing_row() -> None:
    assert_parity(SIGNET_PLUGIN.name)
