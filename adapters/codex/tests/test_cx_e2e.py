"""End to end with the real Codex CLI, offline.

``codex`` (pinned, from the npm registry by ``e2e/install_codex.sh`` into
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
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cx_fake_openai import REPLY, SUMMARY, FakeResponses
from signet_adapter_codex.install import main as install_main

CODEX_VERSION = os.environ.get("CODEX_VERSION", "0.169.0")
INSTALLER = Path(__file__).parent / "e2e" / "install_codex.sh"
MEMORY = "Atlas deploys go through make ship, marker MEMO-CX-4242"
PROMPT = "How do atlas deploys work? MEMO-CX-4242"


@pytest.fixture(scope="session")
def codex_bin() -> str:
    """The pinned ``codex`` program, installed once per cache directory."""
    in_ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    if shutil.which("npm") is None or shutil.which("bash") is None:
        reason = "npm is needed to install Codex from the npm registry"
        if in_ci:
            pytest.fail(reason)
        pytest.skip(reason)
    proc = subprocess.run(
        ["bash", str(INSTALLER), CODEX_VERSION], capture_output=True, text=True, timeout=900
    )
    if proc.returncode != 0:
        message = f"installing Codex {CODEX_VERSION} failed:\n{proc.stderr[-2000:]}"
        if in_ci:
            pytest.fail(message)
        pytest.skip(message)
    return proc.stdout.strip().splitlines()[-1]


@dataclass
class World:
    codex: str
    project: Path
    codex_home: Path
    env: dict[str, str]
    fake: FakeResponses
    daemon: Any  # signet_sdk.testing.mock_daemon.MockDaemon
    url: str

    def hook_calls(self, name: str) -> list[Any]:
        return [r for r in self.daemon.requests if r.path == f"/api/hooks/{name}"]

    def run(self, prompt: str, *flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.codex, "exec", "--skip-git-repo-check", *flags, *prompt.split("\0")],
            cwd=self.project,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )


def _project_parent() -> str:
    for candidate in ("/var/tmp", os.path.expanduser("~/.cache")):
        if os.path.isdir(candidate) and os.access(candidate, os.W_OK):
            return candidate
    return tempfile.gettempdir()


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
    from signet_sdk.testing.mock_daemon import MockDaemon

    codex_home = isolated
    # Not under /tmp: the daemon treats /tmp projects as noise sessions.
    base = Path(tempfile.mkdtemp(prefix="signet-cx-e2e-", dir=_project_parent()))
    project = Path(os.path.realpath(base / "atlas"))
    project.mkdir()
    fake = FakeResponses(tmp_path / "responses.jsonl").start()
    (codex_home / "config.toml").write_text(PROVIDER.format(base_url=fake.base_url))
    state = tmp_path / "state"
    daemon = MockDaemon(db_path=tmp_path / "daemon.sqlite3")
    try:
        with daemon.serve() as handle:
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "LANG": "C.UTF-8",
                "HOME": os.environ["HOME"],
                "CODEX_HOME": str(codex_home),
                "XDG_STATE_HOME": str(state),
                "FAKE_OPENAI_KEY": "dummy",
                "SIGNET_DAEMON_URL": handle.url,
                "SIGNET_OUTBOX_FLUSH_SECONDS": "10",
            }
            try:
                yield World(codex_bin, project, codex_home, env, fake, daemon, handle.url)
            finally:
                shutil.rmtree(base, ignore_errors=True)
            outbox = state / "signet-sdk" / "outbox"
            end = time.monotonic() + 10
            while time.monotonic() < end and list(outbox.glob("*.json")):
                time.sleep(0.05)
    finally:
        fake.stop()


def remember(url: str, content: str) -> None:
    data = json.dumps({"content": content, "importance": 0.9}).encode()
    request = urllib.request.Request(
        f"{url}/api/memory/remember", data=data, headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


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
    (started,) = world.hook_calls("session-start")
    (prompt,) = world.hook_calls("user-prompt-submit")
    for call in (started, prompt):
        assert call.status == 200, (call.path, call.response_json)
        assert call.json["harness"] == "codex"
        assert call.json["runtimePath"] == "legacy"
        assert call.json["sessionKey"] == session
        assert call.json["project"] == str(world.project)
    assert started.json["source"] == "startup"
    assert prompt.json["userPrompt"] == PROMPT

    # Stop after the turn: a checkpoint with the rollout. The one session-end comes
    # from SessionEnd when codex exec exits (reason "other"), through the outbox.
    end = time.monotonic() + 10
    while time.monotonic() < end and not world.hook_calls("session-end"):
        time.sleep(0.05)
    (checkpoint,) = world.hook_calls("session-checkpoint-extract")
    assert checkpoint.json["sessionKey"] == session
    assert checkpoint.json["transcriptPath"].startswith("/tmp/signet/")
    (ended,) = world.hook_calls("session-end")
    assert ended.json["sessionKey"] == ended.json["sessionId"] == session
    assert ended.json["reason"] == "other"
    assert ended.json["cwd"] == str(world.project)
    assert ended.json["transcriptPath"].startswith("/tmp/signet/")
    paths = [r.path for r in world.daemon.requests if r.path.startswith("/api/hooks/")]
    assert paths.index("/api/hooks/session-checkpoint-extract") < paths.index(
        "/api/hooks/session-end"
    )

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
