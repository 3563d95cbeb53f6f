"""End to end with the real Gemini CLI, offline.

``gemini`` (pinned, from the npm registry by the kit's ``npm_binary`` into
``${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}``, without
its optional dependencies, a keychain binding and node-pty, which headless
runs do not use) runs headless (``gemini -p ... -o json``). Its model is a
fake Gemini API on 127.0.0.1 (``GOOGLE_GEMINI_BASE_URL``, a fake key, the
API-key auth type selected in the user's settings); its memory daemon is
the SDK's mock daemon on 127.0.0.1. HOME is a temporary directory holding
the user's ``.gemini`` (settings, the project in ``trustedFolders.json``:
Gemini runs no hooks at all in a folder it does not trust).

What Gemini 0.61 does headless, and so what is checked here: every run
fires SessionStart (``startup``, or ``resume`` with ``--resume``),
BeforeAgent, AfterAgent and, on exit, SessionEnd (reason ``exit``);
PreCompress ``auto`` fires before every model request. A compression is
driven by the fake: it reports a prompt token count above half the window
with a tool call, so Gemini compresses before the next model request of the
turn (the history needs an earlier prompt to split at, hence a resumed
session). ``/compress`` exists only in the interactive UI (headless, ``-p
/compress`` is sent to the model as text), so one test drives the UI on a
pseudo-terminal: a prompt, ``/compress``, ``/quit``.

Without npm the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gm_fake_gemini import REPLY, STORED, SUMMARY, TOOLS_MARK, FakeGemini
from signet_adapter_gemini.install import main as install_main
from signet_e2e import down_daemon_url, harness_world, npm_binary, remember
from signet_e2e.world import TURN_COMPACT_END, ProgramWorld

from signet_sdk.testing import outbox_entries, outbox_left

GEMINI_VERSION = os.environ.get("GEMINI_CLI_VERSION", "0.61.0")
MEMORY = "Atlas deploys go through make ship, marker MEMO-GM-4242"
PROMPT = "How do atlas deploys work? MEMO-GM-4242"
SETTINGS = """\
{
  // the fake Gemini API takes any key
  "security": { "auth": { "selectedType": "gemini-api-key" } }
}
"""


@pytest.fixture(scope="session")
def gemini_bin() -> str:
    """The pinned ``gemini`` program (no optional dependencies), installed once per cache."""
    return str(npm_binary("@google/gemini-cli", GEMINI_VERSION, "gemini", omit_optional=True))


@dataclass(kw_only=True)
class World(ProgramWorld[FakeGemini]):
    """``gemini`` is the program (it relaunches itself as a child node process, which
    starts the MCP server)."""

    gemini_dir: Path

    def run(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """One headless run, its output as JSON."""
        return super().run(*args, "--output-format", "json", env=env)


@pytest.fixture
def world(gemini_bin: str, tmp_path: Path, isolated: Path) -> Iterator[World]:
    gemini_dir = isolated
    with (
        FakeGemini(tmp_path / "gemini-api.jsonl") as fake,
        harness_world(
            tmp_path,
            prefix="signet-gm-e2e-",
            TERM="dumb",
            GOOGLE_GEMINI_BASE_URL=fake.base_url,
            GEMINI_API_KEY="fake-key",
        ) as base,
    ):
        (gemini_dir / "settings.json").write_text(SETTINGS)
        trusted = {str(base.project): "TRUST_FOLDER"}
        (gemini_dir / "trustedFolders.json").write_text(json.dumps(trusted))
        yield World(**vars(base), program=gemini_bin, gemini_dir=gemini_dir, fake=fake)


def _result(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
    data = json.loads(proc.stdout)
    assert isinstance(data, dict)
    return data


def _model_bodies(world: World) -> list[str]:
    return [
        json.dumps(r["body"])
        for r in world.fake.requests()
        if r["path"].split("?")[0].endswith(":streamGenerateContent")
    ]


def test_a_headless_turn_reaches_the_daemon_and_memory_reaches_the_model(world: World) -> None:
    assert install_main(["install"]) == 0
    remember(world.url, MEMORY, project=str(world.project))

    out = _result(world.run("-p", PROMPT))

    assert REPLY in out["response"]
    session = out["session_id"]
    _, prompt = world.start_and_prompt(session, "gemini", "legacy")
    # Gemini hands BeforeAgent the prompt with SessionStart's context in front: cut off.
    assert prompt.json["userPrompt"] == PROMPT

    world.checkpoint_then_end(session, "exit")
    assert world.hook_calls("pre-compaction") == []  # PreCompress fired, nothing was due

    # The stored memory reached the model's request, as hook context.
    bodies = _model_bodies(world)
    assert any("marker MEMO-GM-4242" in b and "hook_context" in b for b in bodies), bodies[-1][
        :2000
    ]


def test_resume_is_the_same_session(world: World) -> None:
    assert install_main(["install"]) == 0
    first = _result(world.run("-p", "first question about atlas"))
    again = _result(world.run("--resume", "latest", "-p", "and the staging database?"))
    assert again["session_id"] == first["session_id"]
    sources = [c.json.get("source") for c in world.hook_calls("session-start")]
    assert sources == ["startup", "resume"]
    keys = {c.json["sessionKey"] for c in world.hook_calls("user-prompt-submit")}
    assert keys == {first["session_id"]}


def test_the_model_uses_the_memory_tools_and_a_compression_sends_its_summary(
    world: World,
) -> None:
    # Trusted: headless, Gemini offers an MCP server's tools in the default
    # approval mode only when the server is trusted (else they need --yolo).
    assert install_main(["install", "--trust-tools"]) == 0
    first = _result(world.run("-p", "first question about atlas"))
    session = first["session_id"]
    # The store call reports a prompt past half the window: Gemini compresses
    # before the model call that follows, within the same turn.
    world.fake.tool_call_prompt_tokens = 900_000

    out = _result(world.run("--resume", "latest", "-p", f"{TOOLS_MARK}: note it"))

    assert REPLY in out["response"]
    stored = [r for r in world.daemon.requests if r.path == "/api/memory/remember"]
    assert [r.json["content"] for r in stored] == [STORED]
    searched = [r for r in world.daemon.requests if r.path == "/api/memory/recall"]
    assert [r.json["query"] for r in searched] == ["atlas staging"]
    bodies = _model_bodies(world)
    assert any("marker GM-TOOL-5150" in b and "functionResponse" in b for b in bodies)

    (pre,) = world.hook_calls("pre-compaction")
    assert pre.json["sessionKey"] == session
    assert pre.json["sessionContext"] == "Gemini CLI compression (auto)"
    summarised = [r for r in world.fake.requests() if "<state_snapshot>" in json.dumps(r["body"])]
    assert summarised, "Gemini did not compress"
    (done,) = world.wait_for("compaction-complete")
    assert done.status == 200, done.response_json
    assert done.json["sessionKey"] == session
    assert done.json["summary"] == SUMMARY
    assert done.json["project"] == str(world.project)
    hooks = [r.path for r in world.daemon.requests if r.path.startswith("/api/hooks/")]
    assert hooks.index("/api/hooks/pre-compaction") < hooks.index("/api/hooks/compaction-complete")


def test_with_the_daemon_gone_the_turn_completes_and_writes_wait(world: World) -> None:
    assert install_main(["install"]) == 0
    env = {**world.env, "SIGNET_DAEMON_URL": down_daemon_url()}

    proc = world.run("-p", PROMPT, env=env)

    out = _result(proc)
    assert REPLY in out["response"]
    assert "signet" not in proc.stdout.lower()
    assert "signet" not in proc.stderr.lower()
    assert world.daemon.requests == []
    text = json.dumps(outbox_entries(world.env))
    assert "session-checkpoint-extract" in text or "session_checkpoint_extract" in text
    assert "session-end" in text or "session_end" in text


def test_project_scope_hooks_run_in_the_trusted_project(world: World) -> None:
    assert install_main(["install", "--project", str(world.project)]) == 0
    assert (world.project / ".gemini" / "settings.json").exists()
    assert "hooks" not in (world.gemini_dir / "settings.json").read_text()

    out = _result(world.run("-p", PROMPT))

    (started,) = world.hook_calls("session-start")
    assert started.json["sessionKey"] == out["session_id"]
    assert started.json["project"] == str(world.project)
    assert len(world.wait_for("session-end")) == 1


def test_untrusted_tools_are_not_offered_headless(world: World) -> None:
    """Without --trust-tools, headless Gemini leaves out tools that would need a confirmation."""
    assert install_main(["install"]) == 0
    _result(world.run("-p", f"{TOOLS_MARK}: note it"))
    assert [r for r in world.daemon.requests if r.path.startswith("/api/memory/")] == []
    declared = [
        f["name"]
        for r in world.fake.requests()
        if r["path"].split("?")[0].endswith(":streamGenerateContent")
        for t in r["body"].get("tools") or []
        for f in t.get("functionDeclarations") or []
    ]
    assert declared and not [n for n in declared if "memory" in n]


def test_installed_in_both_scopes_each_hook_runs_once(world: World) -> None:
    """Gemini concatenates the scopes' hook lists, then drops repeats (same name and command)."""
    assert install_main(["install"]) == 0
    assert install_main(["install", "--project", str(world.project)]) == 0

    _result(world.run("-p", PROMPT))

    assert len(world.hook_calls("session-start")) == 1
    assert len(world.hook_calls("user-prompt-submit")) == 1
    assert len(world.wait_for("session-end")) == 1


def test_interactive_compress_brings_pre_compaction_and_its_summary(world: World) -> None:
    assert install_main(["install"]) == 0
    # The answer reports a large prompt, so /compress shrinks the history (Gemini keeps
    # a compression only when it makes the history smaller).
    world.fake.prompt_tokens = 600_000
    with world.terminal(key_delay=0.01) as term:
        term.wait_for("Tips for getting started")
        term.read(3.0)  # the input box takes keys once the UI has settled
        term.answer("first question about atlas", REPLY)
        term.answer("/compress", "compressed from")
        term.type("/quit")
        term.proc.wait(timeout=60)

    session = world.started_session()
    world.assert_pre_compaction(session, "gemini", "Gemini CLI compression (manual)")
    # No hook follows a /compress until the session ends: SessionEnd finds the summary.
    # Gemini fires SessionEnd more than once on /quit (its exit cleanup runs from
    # several places): the summary is still sent once, the repeated session-ends are
    # the daemon's duplicateSessionEnd no-ops.
    (ended, *repeats) = world.wait_for("session-end")
    outbox_left(15, world.env)
    (done,) = world.hook_calls("compaction-complete")
    assert done.status == 200, done.response_json
    assert done.json["summary"] == SUMMARY and done.json["sessionKey"] == session
    assert ended.json["reason"] == "exit" and ended.json["sessionKey"] == session
    assert all(r.response_json.get("duplicateSessionEnd") for r in repeats)
    hooks = [r.path.removeprefix("/api/hooks/") for r in world.daemon.requests]
    assert tuple(hooks[: hooks.index("session-end") + 1]) == TURN_COMPACT_END
    assert set(hooks[hooks.index("session-end") :]) == {"session-end"}


def test_interactive_clear_ends_one_session_and_starts_another(world: World) -> None:
    assert install_main(["install"]) == 0
    with world.terminal(key_delay=0.01) as term:
        term.wait_for("Tips for getting started")
        term.read(3.0)
        term.answer("first question about atlas", REPLY)
        term.type("/clear")
        term.read(3.0)
        term.type("second question about atlas")
        end = time.monotonic() + 60
        while len(world.hook_calls("user-prompt-submit")) < 2:
            assert time.monotonic() < end, term.text()[-3000:]
            term.read(0.2)
        term.wait_for(REPLY)
        term.type("/quit")
        term.proc.wait(timeout=60)

    starts = world.hook_calls("session-start")
    assert [s.json["source"] for s in starts] == ["startup", "clear"]
    first, second = (s.json["sessionKey"] for s in starts)
    assert first != second
    prompts = world.hook_calls("user-prompt-submit")
    assert [p.json["sessionKey"] for p in prompts] == [first, second]
    ends = world.wait_for("session-end", 2)
    cleared = [e for e in ends if e.json["reason"] == "clear"]
    assert [e.json["sessionKey"] for e in cleared] == [first]
    assert {e.json["sessionKey"] for e in ends if e.json["reason"] == "exit"} == {second}
