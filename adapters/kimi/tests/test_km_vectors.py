"""The Kimi Code contract vectors, run two ways.

1. Pure: ``translate`` gives the vector's calls (the wire body built by the
   core every transport uses) and ``render`` of the vector's answers gives
   the vector's stdout byte for byte.
2. For real: ``signet-sdk hook kimi <Event>`` in a subprocess against a fake
   daemon replaying the vector's answers, in a private HOME with no Kimi
   session on disk: the daemon receives the vector's bodies and Kimi would
   read exactly the vector's stdout, exit 0, nothing on stderr.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from signet_adapter_kimi import PLUGIN as SIGNET_PLUGIN
from signet_e2e.vector_set import assert_vector_set

from signet_sdk.testing import check_vector, check_vector_through_hook, load_vectors

if TYPE_CHECKING:
    from signet_sdk.testing import ScriptedDaemon

VECTORS = load_vectors(SIGNET_PLUGIN)


def test_vector_set_covers_every_event_source_and_reason() -> None:
    assert list(SIGNET_PLUGIN.events) == [
        "SessionStart",
        "UserPromptSubmit",
        "Stop",
        "PreCompact",
        "PostCompact",
        "SessionEnd",
    ]
    sources, reasons = ("startup", "resume"), ("exit", "archive")
    assert_vector_set(SIGNET_PLUGIN, VECTORS, sources=sources, reasons=reasons)
    assert SIGNET_PLUGIN.runtime_path == "legacy"
    for v in VECTORS:
        assert v["output"]["data"] is None  # Kimi reads plain text, never JSON


def test_only_context_is_ever_printed(signet_vector: dict[str, Any]) -> None:
    """stdout is empty or the daemon's context as it came: never JSON Kimi would parse."""
    vector = signet_vector
    stdout = vector["output"]["stdout"]
    if not stdout:
        return
    assert vector["event"] in ("SessionStart", "UserPromptSubmit")
    assert not stdout.lstrip().startswith("{")
    answer = vector["answers"][-1]["body"]
    assert stdout in (answer.get("inject"), answer.get("dynamicContext")) or stdout == "\n\n".join(
        [answer["stableSystemPrompt"], answer["dynamicContext"]]
    )


def test_vector_translate_and_render(signet_vector: dict[str, Any]) -> None:
    check_vector(SIGNET_PLUGIN, signet_vector)


def test_vector_through_hook_command(
    signet_vector: dict[str, Any], scripted_daemon: ScriptedDaemon
) -> None:
    check_vector_through_hook(SIGNET_PLUGIN, signet_vector, scripted_daemon)
