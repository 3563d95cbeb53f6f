"""What the OpenCode end-to-end tests share: the pinned binary, its offline seed, a world.

``opencode`` (pinned, installed from the npm registry by the kit's
``npm_binary`` into ``${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}``)
runs headless in a temporary project with our plugin installed there by our
installer (``--project``). On its first start OpenCode npm-installs
``@opencode-ai/plugin`` into every config directory it uses; the seed (made
once, cached beside the binary) is copied there first, and the npm registry
is pointed at a closed loopback port, so no test waits on, or talks to, the
registry.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from signet_e2e import (
    HarnessWorld,
    base_env,
    new_project,
    npm_binary,
    npm_cache,
    unavailable,
)

from signet_sdk.testing.fake_openai import FakeOpenAI, has_tools, system_text

VERSION = os.environ.get("OPENCODE_VERSION", "1.18.33")
# Resolved at import, before a test's private HOME is in place: the install is shared.
NPM_CACHE = npm_cache()
REPLY = "FAKE-OPENCODE-REPLY: noted."
SUMMARY = "SIGNET-OPENCODE-SUMMARY-5c1e: atlas deploys go through make ship."
TITLE = "Atlas deploys"


def reply(body: dict[str, Any]) -> str:
    """The fake model's answer: a summary for compaction, a title without tools, else REPLY."""
    if "context summarization" in system_text(body):
        return SUMMARY
    return REPLY if has_tools(body) else TITLE


def install_opencode() -> str:
    """The pinned ``opencode`` program (skips without npm, fails under CI)."""
    return str(npm_binary("opencode-ai", VERSION, "opencode"))


def plugin_seed() -> Path:
    """A directory holding what OpenCode's runtime install of ``@opencode-ai/plugin`` makes."""
    seed = Path(NPM_CACHE) / f"opencode-plugin-seed@{VERSION}"
    if (seed / "node_modules" / "@opencode-ai" / "plugin" / "package.json").is_file():
        return seed
    work = Path(tempfile.mkdtemp(prefix="opencode-seed-", dir=NPM_CACHE))
    (work / "package.json").write_text(
        json.dumps({"dependencies": {"@opencode-ai/plugin": VERSION}}, indent=2) + "\n"
    )
    proc = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        unavailable(f"seeding @opencode-ai/plugin {VERSION} failed:\n{proc.stderr[-2000:]}")
    try:
        work.rename(seed)
    except OSError:  # another run made it first
        shutil.rmtree(work, ignore_errors=True)
    return seed


def seed_into(folder: Path, seed: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        if (seed / name).exists():
            shutil.copy2(seed / name, folder / name)
    if not (folder / "node_modules").exists():
        shutil.copytree(seed / "node_modules", folder / "node_modules", symlinks=True)


@dataclass(kw_only=True)
class World(HarnessWorld):
    """A project, OpenCode pointed at the fake model, our plugin installed, the daemon given
    (the kit's world: project, daemon, its URL, the environment; and OpenCode's parts)."""

    opencode: str
    config: Path
    fake: FakeOpenAI
    version: str = "mock"  # "mock", or the real daemon's release
    procs: list[subprocess.Popen[str]] = field(default_factory=list)

    def wait_for(self, name: str, count: int = 1, timeout: float = 20.0) -> list[Any]:
        return super().wait_for(name, count, timeout)

    def run(
        self, prompt: str, *extra: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return self.run_in_project([self.opencode, "run", *extra, prompt], env=env, timeout=180)

    def turns(self) -> list[dict[str, Any]]:
        """Model requests of main turns (with tools)."""
        return [b for b in self.fake.chat_bodies() if has_tools(b)]


@contextmanager
def make_world(
    opencode: str, seed: Path, home: Path, fake: FakeOpenAI, url: str, daemon: Any
) -> Iterator[World]:
    from signet_adapter_opencode.install import main as install_main

    with new_project("signet-opencode-e2e-") as project:
        config = home / ".config" / "opencode"
        seed_into(config, seed)
        seed_into(project / ".opencode", seed)
        (project / "opencode.json").write_text(
            json.dumps(
                {
                    "autoupdate": False,
                    "share": "disabled",
                    "model": "fake/fake-model",
                    "small_model": "fake/fake-small",
                    "provider": {
                        "fake": {
                            "npm": "@ai-sdk/openai-compatible",
                            "options": {"baseURL": fake.base_url, "apiKey": "sk-fake"},
                            "models": {"fake-model": {}, "fake-small": {}},
                        }
                    },
                },
                indent=2,
            )
        )
        # Our installer, as a user runs it for one project: the plugin goes into
        # the project's .opencode/plugins and mcp.signet into its opencode.json.
        assert install_main(["install", "--project", str(project)]) == 0
        env = {
            **base_env(HOME=str(home)),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_CLAUDE_CODE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            # The runtime plugin install finds the seed; nothing may reach a registry.
            "npm_config_registry": "http://127.0.0.1:9/",
            "npm_config_fetch_retries": "0",
            "SIGNET_DAEMON_URL": url,
            "SIGNET_AGENT_ID": "atlas-agent",
            "SIGNET_OUTBOX_FLUSH_SECONDS": "5",
            "SIGNET_ADAPTER_AUTOSTART": "0",
        }
        world = World(project, daemon, url, env, opencode=opencode, config=config, fake=fake)
        try:
            yield world
        finally:
            for proc in world.procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(timeout=10)
