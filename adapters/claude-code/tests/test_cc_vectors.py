"""The contract vectors under contract/vectors/claude-code, run two ways.

1. Pure: ``translate`` gives the vector's calls (wire body built by the same
   sans-I/O core every transport uses), and ``render`` of the vector's
   answers gives the vector's stdout byte for byte.
2. For real: the installed hook command, in a subprocess, against a fake
   daemon that replays the vector's answers. The daemon must receive the
   vector's bodies (with the transcript staged under /tmp/signet) and the
   command must print exactly the vector's stdout and exit 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from signet_adapter_claude_code import PLUGIN as SIGNET_PLUGIN
from signet_e2e.vector_set import assert_vector_set

from signet_sdk.testing import check_vector, check_vector_through_hook, load_vectors, write_jsonl

if TYPE_CHECKING:
    from signet_sdk.testing import ScriptedDaemon

VECTORS = load_vectors(SIGNET_PLUGIN)


def test_vector_set_covers_every_event_source_and_reason() -> None:
    sources = ("startup", "resume", "clear", "compact", "fork")
    reasons = {"clear", "resume", "logout", "prompt_input_exit", "other"}
    reasons.add("bypass_permissions_disabled")
    assert_vector_set(SIGNET_PLUGIN, VECTORS, sources=sources, reasons=reasons)
    assert SIGNET_PLUGIN.runtime_path == "legacy"
    assert all("agentId" not in call["body"] for v in VECTORS for call in v["calls"])


def test_vector_translate_and_render(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


def _real_transcript(home: Path) -> Path:
    return write_jsonl(
        home / ".claude" / "projects" / "-home-dev-projects-atlas" / "session.jsonl",
        [
            {"type": "user", "message": {"role": "user", "content": "How do we deploy atlas?"}},
            {"type": "assistant", "message": {"role": "assistant", "content": "With make ship."}},
        ],
    )


def test_vector_through_hook_command(
    signet_vector: dict[str, Any], scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    transcript = _real_transcript(isolated)
    check_vector_through_hook(SIGNET_PLUGIN, signet_vector, scripted_daemon, transcript=transcript)
