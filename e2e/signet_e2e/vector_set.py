"""What every command-hook adapter asserts of its whole vector set: :func:`assert_vector_set`.

A harness's contract vectors must cover each event it declares, the session
start sources and end reasons its docs name, and each must be what the hook
command does on a clean run: exit 0 and calls with exactly the wire's keys.
The harness-specific rules (what its output may hold) stay in its tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from signet_sdk.plugin import HarnessPlugin

__all__ = ["CALL_KEYS", "assert_vector_set"]

#: The keys of each call a vector expects: nothing else may be in it.
CALL_KEYS = frozenset({"action", "method", "path", "body"})


def assert_vector_set(
    plugin: HarnessPlugin,
    vectors: Sequence[dict[str, Any]],
    *,
    sources: Iterable[str] = (),
    reasons: Iterable[str] = (),
    start: str = "SessionStart",
    end: str = "SessionEnd",
) -> None:
    """``vectors`` cover exactly ``plugin``'s events, each of ``sources`` (a ``start`` payload's
    ``source``, no ``reason``) and ``reasons`` (an ``end`` payload's ``reason``, no ``source``);
    each vector is ``plugin``'s, exits 0, and its calls have exactly :data:`CALL_KEYS`."""
    seen = {(v["event"], v["payload"].get("source"), v["payload"].get("reason")) for v in vectors}
    assert {event for event, _, _ in seen} == set(plugin.events)
    for source in sources:
        assert (start, source, None) in seen, source
    for reason in reasons:
        assert (end, None, reason) in seen, reason
    for vector in vectors:
        assert vector["harness"] == plugin.name, vector["name"]
        assert vector["output"]["exit_code"] == 0, vector["name"]
        for call in vector["calls"]:
            assert set(call) == CALL_KEYS, vector["name"]
