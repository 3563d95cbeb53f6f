"""End to end with the real Codex CLI, offline.

``codex`` (pinned, from the npm registry by the kit's ``npm_binary`` into
``${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}``; its
native binary is an npm optional dependency) runs one headless
``codex exec`` turn. Its model is a fake OpenAI Responses server on
127.0.0.1, configured as a custom model provider in ``config.toml``; its
memory daemon is the SDK's mock daemon on 127.0.0.1. CODEX_HOME and HOME are
temporary directories. The hooks run because ``signet-sdk install codex``
wrote them and their trust hashes, not because trust was bypassed: the same
run with one hash altered runs no hook of ours.

``codex exec`` fires SessionStart, UserPromptSubmit, Stop and, on exit,
SessionEnd (reason ``other``). Compaction is driven headless too: the fake
reports usage above ``model_auto_compact_token_limit``, so ``codex exec
resume`` compacts before its turn (PreCompact, PostCompact, SessionStart
with source ``compact``). Subagents need a model that spawns one through
Codex's tools; they are covered by the vectors.

Without npm the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cx_fake_openai import REPLY, SUMMARY, FakeResponses
from signet_adapter_codex.install import main as install_main
from signet_e2e import HarnessWorld, harness_world, npm_binary, remember

CODEX_VERSION = os.environ.get("CODEX_VERSION", "0.169.0")
MEMORY = "Atlas deploys go through make ship, marker MEMO-CX-4242"
PROMPT = "How do atlas deploys work? MEMO-CX-4242"


@pytest.fixture(scope="session")
def codex_bin() -> str:
    """The pinned ``codex`` program, installed once per cache directory."""
    return str(npm_binary("@openai/codex", CODEX_VERSION, "codex"))


@dataclass(kw_only=True)
class World(HarnessWorld):
    codex: str
    codex_home: Path
    fake: FakeResponses

    def run(self, prompt: str, *flags: str) -> subprocess.CompletedProcess[str]:
        argv = [self.codex, "exec", "--skip-git-repo-check", *flags, *prompt.split("\0")]
        return self.run_in_project(argv, timeout=120)


PROVIDER = """\
# written by the test: the model is a fake Responses server
model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "Fake Responses"
base_url = "{base_url}"
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"
"""


@pytest.fixture
def world(codex_bin: str, tmp_path: Path, isolated: Path) -> Iterator[World]:
    codex_home = isolated
    with (
        FakeResponses(tmp_path / "responses.jsonl") as fake,
        harness_world(
            tmp_path,
            prefix="signet-cx-e2e-",
            CODEX_HOME=str(codex_home),
            FAKE_OPENAI_KEY="dummy",
        ) as base,
    ):
        (codex_home / "config.toml").write_text(PROVIDER.format(base_url=fake.base_url))
        yield World(**vars(base), codex=codex_bin, codex_home=codex_home, fake=fake)


def _session_id(output: str) -> str:
    found = re.search(r"session id: ([0-9a-f-]{36})", output)
    assert found, output[-2000:]
    return found.group(1)


def test_one_exec_turn_reaches_the_daemon_and_memory_reaches_the_model(world: World) -> None:
    assert install_main(["install"]) == 0
    remember(world.url, MEMORY)

    proc = world.run(PROMPT)

    assert proc.returncode == 0, proc.stderr[-3000:]
    assert REPLY in proc.stdout
    session = _session_id(proc.stdout + proc.stderr)
    _, prompt = world.start_and_prompt(session, "codex", "legacy")
    assert prompt.json["userPrompt"] == PROMPT

    # Stop after the turn: a checkpoint with the rollout. The one session-end comes
    # from SessionEnd when codex exec exits (reason "other"), through the outbox.
    world.checkpoint_then_end(session, "other", timeout=10)

    # The stored memory reached the model through additionalContext.
    bodies = [json.dumps(r["body"]) for r in world.fake.requests() if r["method"] == "POST"]
    assert any("marker MEMO-CX-4242" in b for b in bodies), bodies[-1][:2000]


def test_hooks_run_only_because_the_installer_trusted_them(world: World) -> None:
    assert install_main(["install"]) == 0
    config = world.codex_home / "config.toml"
    text = config.read_text()
    key = f'[hooks.state."{world.codex_home / "hooks.json"}:user_prompt_submit:0:0"]'
    assert key in text
    head, _, tail = text.partition(key)
    tampered = tail.replace('trusted_hash = "sha256:', 'trusted_hash = "sha256:0', 1)
    config.write_text(head + key + tampered)

    proc = world.run(PROMPT)

    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(world.hook_calls("session-start")) == 1  # still trusted
    assert world.hook_calls("user-prompt-submit") == []  # its hash no longer matches


def test_project_scope_hooks_run_once_the_user_trusts_the_project(world: World) -> None:
    """Codex loads a project's .codex only for a trusted project: that stays the user's call."""
    assert install_main(["install", "--project", str(world.project)]) == 0
    assert (world.project / ".codex" / "hooks.json").exists()

    untrusted = world.run(PROMPT)
    assert untrusted.returncode == 0, untrusted.stderr[-3000:]
    assert world.hook_calls("session-start") == []

    trusted = world.run(PROMPT, "--trust")  # the user trusts the project (a real choice)
    assert trusted.returncode == 0, trusted.stderr[-3000:]
    session = _session_id(trusted.stdout + trusted.stderr)
    (started,) = world.hook_calls("session-start")
    assert started.json["sessionKey"] == session
    assert started.json["project"] == str(world.project)


def test_auto_compaction_sends_the_summary_from_the_rollout(world: World) -> None:
    config = world.codex_home / "config.toml"
    config.write_text(
        config.read_text().replace(
            'model_provider = "fake"\n',
            'model_provider = "fake"\nmodel_auto_compact_token_limit = 1000\n',
        )
    )
    assert install_main(["install"]) == 0
    world.fake.total_tokens = 50_000  # over the limit: the next turn compacts first
    first = world.run(PROMPT)
    assert first.returncode == 0, first.stderr[-3000:]
    session = _session_id(first.stdout + first.stderr)

    again = world.run("resume\0--last\0and the staging database?")

    assert again.returncode == 0, again.stderr[-3000:]
    (pre,) = world.hook_calls("pre-compaction")
    assert pre.json["sessionKey"] == session
    assert pre.json["sessionContext"] == "Codex compaction (auto)"
    (done,) = world.hook_calls("compaction-complete")
    assert done.status == 200, done.response_json
    assert done.json["sessionKey"] == session
    assert done.json["summary"] == SUMMARY  # read from the rollout, handoff line removed
    assert done.json["project"] == str(world.project)
    sources = [c.json.get("source") for c in world.hook_calls("session-start")]
    assert sources == ["startup", "resume", "compact"]
