"""The Codex contract vectors, run two ways.

1. Pure: ``translate`` gives the vector's calls (the wire body built by the
   core every transport uses) and ``render`` of the vector's answers gives
   the vector's stdout byte for byte.
2. For real: ``signet-sdk hook codex <Event>`` in a subprocess against a fake
   daemon replaying the vector's answers: the daemon receives the vector's
   bodies (the transcript staged under /tmp/signet) and Codex would read
   exactly the vector's stdout, exit 0, nothing on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from signet_adapter_codex import PLUGIN as SIGNET_PLUGIN
from signet_e2e.vector_set import assert_vector_set

from signet_sdk.testing import check_vector, check_vector_through_hook, load_vectors, write_jsonl

if TYPE_CHECKING:
    from signet_sdk.testing import ScriptedDaemon

VECTORS = load_vectors(SIGNET_PLUGIN)
#: The only keys Codex's hook output schema accepts (deny_unknown_fields).
CODEX_TOP_KEYS = {"continue", "stopReason", "suppressOutput", "systemMessage", "decision",
                  "reason", "hookSpecificOutput"}  # fmt: skip


def test_vector_set_covers_every_event_and_source() -> None:
    sources = ("startup", "resume", "clear", "compact")
    assert_vector_set(SIGNET_PLUGIN, VECTORS, sources=sources)
    assert SIGNET_PLUGIN.runtime_path == "legacy"


def test_vector_output_is_what_codex_accepts(signet_vector: dict[str, Any]) -> None:
    """Either no stdout, or the one context envelope with exactly the accepted keys."""
    vector = signet_vector
    stdout = vector["output"]["stdout"]
    if not stdout:
        return
    out = json.loads(stdout)
    assert set(out) <= CODEX_TOP_KEYS
    assert set(out) == {"hookSpecificOutput"}
    assert set(out["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert out["hookSpecificOutput"]["hookEventName"] == vector["event"]
    assert vector["event"] in ("SessionStart", "UserPromptSubmit", "SubagentStart")


def test_vector_translate_and_render(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


#: A rollout file's first records, as Codex writes them.
ROLLOUT = [
    {"type": "session_meta", "payload": {"id": "019a2f0b", "cwd": "/home/dev/projects/atlas"}},
    {"type": "response_item", "payload": {"type": "message", "role": "user", "content": []}},
]


def _rollout(codex_home: Path) -> Path:
    folder = codex_home / "sessions" / "2026" / "11" / "24"
    return write_jsonl(folder / "rollout-2026-11-24T09-12-29-019a2f0b.jsonl", ROLLOUT)


def test_vector_through_hook_command(
    signet_vector: dict[str, Any], scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    transcript = _rollout(isolated)
    check_vector_through_hook(SIGNET_PLUGIN, signet_vector, scripted_daemon, transcript=transcript)
