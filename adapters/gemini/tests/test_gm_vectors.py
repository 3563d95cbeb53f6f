"""The Gemini CLI contract vectors, run two ways.

1. Pure: ``translate`` gives the vector's calls (the wire body built by the
   core every transport uses) and ``render`` of the vector's answers gives
   the vector's stdout byte for byte.
2. For real: ``signet-sdk hook gemini <Event>`` in a subprocess against a
   fake daemon replaying the vector's answers: the daemon receives the
   vector's bodies (the chat file staged under /tmp/signet) and Gemini would
   read exactly the vector's stdout, exit 0, nothing on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gm_support import chat_file, message
from signet_adapter_gemini import PLUGIN as SIGNET_PLUGIN
from signet_adapter_gemini import TRANSLATOR
from signet_e2e.vector_set import assert_vector_set

from signet_sdk.testing import ScriptedDaemon, check_vector, check_vector_through_hook, load_vectors

VECTORS = load_vectors(SIGNET_PLUGIN)
#: Top-level keys Gemini's hook output reads (its docs' common output fields).
GEMINI_TOP_KEYS = {"systemMessage", "suppressOutput", "continue", "stopReason", "decision",
                   "reason", "hookSpecificOutput"}  # fmt: skip


def test_vector_set_covers_every_event_source_and_reason() -> None:
    sources = ("startup", "resume", "clear")
    reasons = ("exit", "clear", "logout", "prompt_input_exit")
    assert_vector_set(SIGNET_PLUGIN, VECTORS, sources=sources, reasons=reasons)
    triggers = {v["payload"].get("trigger") for v in VECTORS if v["event"] == "PreCompress"}
    assert triggers == {"manual", "auto"}
    assert SIGNET_PLUGIN.runtime_path == "legacy"


def test_vector_output_is_json_gemini_reads(signet_vector: dict[str, Any]) -> None:
    """Always one JSON object: ``{}`` or the context envelope; never a decision."""
    vector = signet_vector
    out = json.loads(vector["output"]["stdout"])
    assert isinstance(out, dict)
    assert set(out) <= GEMINI_TOP_KEYS
    assert "decision" not in out and "continue" not in out
    if out:
        assert set(out) == {"hookSpecificOutput"}
        assert set(out["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
        assert out["hookSpecificOutput"]["hookEventName"] == vector["event"]
        assert vector["event"] in ("SessionStart", "BeforeAgent")


def test_vector_translate_and_render(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)
    if "error" in signet_vector:  # refused: Gemini still reads the neutral answer
        neutral = TRANSLATOR.neutral(signet_vector["event"]).text
        assert neutral == signet_vector["output"]["stdout"]


def _chat(gemini_dir: Path) -> Path:
    return chat_file(
        gemini_dir,
        [
            {"sessionId": "7f3c2a91", "projectHash": "abc", "kind": "main"},
            message(1, "user", "how do we deploy atlas?", 10),
            message(2, "gemini", "Run make ship.", 11, tokens=1200),
        ],
    )


def test_vector_through_hook_command(
    signet_vector: dict[str, Any], scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    transcript = _chat(isolated)
    check_vector_through_hook(SIGNET_PLUGIN, signet_vector, scripted_daemon, transcript=transcript)
