"""The Cursor contract vectors, run three ways, and the parity column.

1. Pure: ``translate`` gives the vector's calls (the wire body built by the
   core every transport uses) and ``render`` of the vector's answers gives
   the vector's stdout byte for byte.
2. For real: ``signet-sdk hook cursor <event>`` in a subprocess against a
   fake daemon replaying the vector's answers: the daemon receives the
   vector's bodies (a named transcript staged under /tmp/signet) and Cursor
   would read exactly the vector's stdout, exit 0, nothing on stderr.
3. ``signet-sdk parity cursor``'s column against the bundled mock daemon:
   no MISSING row.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from signet_adapter_cursor import PLUGIN as SIGNET_PLUGIN
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
#: What each event may print: the output fields Cursor's hooks reference lists for it.
ALLOWED_KEYS = {
    "sessionStart": {"additional_context"},
    "beforeSubmitPrompt": {"continue"},
    "stop": set(),
    "preCompact": set(),
    "sessionEnd": set(),
}


def test_vector_set_covers_every_event() -> None:
    assert_vector_set(SIGNET_PLUGIN, VECTORS)
    # Both shapes the sources show: the CLI capture (null transcript_path) and the editor's.
    paths = {v["payload"].get("transcript_path") is None for v in VECTORS}
    assert paths == {True, False}


def test_vector_output_is_json_cursor_reads(signet_vector: dict[str, Any]) -> None:
    """Always one JSON object with only the fields Cursor takes for that event; never a block."""
    vector = signet_vector
    out = json.loads(vector["output"]["stdout"])
    assert isinstance(out, dict) and out == vector["output"]["data"]
    assert set(out) <= ALLOWED_KEYS[vector["event"]]
    if vector["event"] == "beforeSubmitPrompt":
        assert out == {"continue": True}


def test_vector_translate_and_render(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


def _transcript(cursor: Path) -> Path:
    """A transcript under Cursor's projects folder, in the agent's line format.

    Not where Cursor would write this conversation's: a vector whose payload
    names no transcript must find none (the hook looks there).
    """
    folder = cursor / "projects" / "Users-dev-projects-elsewhere" / "agent-transcripts"
    return write_jsonl(
        folder / "c-1" / "c-1.jsonl",
        [
            {"role": "user", "message": {"content": [{"type": "text", "text": "deploy?"}]}},
            {"role": "assistant", "message": {"content": [{"type": "text", "text": "Tuesday"}]}},
        ],
    )


def test_vector_through_hook_command(
    signet_vector: dict[str, Any], scripted_daemon: ScriptedDaemon, isolated: Path
) -> None:
    check_vector_through_hook(
        SIGNET_PLUGIN, signet_vector, scripted_daemon, transcript=_transcript(isolated)
    )


def test_parity_column_has_no_missing_row() -> None:
    assert_parity(SIGNET_PLUGIN.name)
