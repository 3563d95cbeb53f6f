"""Codex's hook trust hash, computed the way Codex checks it.

Codex runs a non-managed hook only when ``config.toml`` holds
``[hooks.state."<source>:<event_label>:<group>:<handler>"]`` with a
``trusted_hash`` equal to the hook's current hash. That hash is over a
normalized identity, not the file's text: the event's snake_case label, the
group's matcher (dropped for events that ignore matchers) and the one
handler as ``{"type":"command","command":…,"timeout":<seconds, default 600,
at least 1>,"async":false}`` plus ``statusMessage`` when set; the identity
is turned into JSON with object keys sorted, serialized compactly, and
hashed with SHA-256, written ``sha256:<hex>`` (openai/codex
codex-rs/hooks/src/engine/discovery.rs ``command_hook_hash`` and
``hook_trust_status``; codex-rs/config/src/fingerprint.rs
``version_for_toml``). The real Codex 0.169.0 runs hooks trusted this way
(the end-to-end test proves it).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping

__all__ = ["MATCHERLESS", "event_label", "state_key", "trusted_hash"]

#: Events whose matcher Codex ignores (it is left out of the identity).
MATCHERLESS = frozenset({"UserPromptSubmit", "Stop"})


def event_label(event: str) -> str:
    """``SessionStart`` -> ``session_start``: the label used in keys and hashes."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def state_key(source: str, event: str, group: int, handler: int) -> str:
    """The ``hooks.state`` key of one handler in one hooks file."""
    return f"{source}:{event_label(event)}:{group}:{handler}"


def trusted_hash(event: str, handler: Mapping[str, object], matcher: str | None = None) -> str:
    """The ``trusted_hash`` Codex computes for ``handler`` (a hooks.json command entry)."""
    timeout = handler.get("timeout", handler.get("timeoutSec"))
    seconds = max(int(timeout), 1) if isinstance(timeout, int) else 600
    hook: dict[str, object] = {
        "type": "command",
        "command": handler["command"],
        "timeout": seconds,
        "async": bool(handler.get("async", False)),
    }
    if isinstance(handler.get("statusMessage"), str):
        hook["statusMessage"] = handler["statusMessage"]
    identity: dict[str, object] = {"event_name": event_label(event), "hooks": [hook]}
    if matcher is not None and event not in MATCHERLESS:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
