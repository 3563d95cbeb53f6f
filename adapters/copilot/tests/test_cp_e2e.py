# long module: the real Copilot CLI end to end (headless, resume, terminal, failures, MCP)
"""End to end with the real GitHub Copilot CLI, offline.

``copilot`` (``@github/copilot``, pinned, from the npm registry by the kit's
``npm_binary`` into ``${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/
signet-sdk/npm}``; its native binary is an npm optional dependency, and the
runtime it unpacks on first start goes to a shared folder beside it through
``COPILOT_PKG_CACHE_HOME``) runs against a fake OpenAI-compatible model on
127.0.0.1: ``COPILOT_OFFLINE=true``, ``COPILOT_PROVIDER_BASE_URL``,
``COPILOT_PROVIDER_TYPE=openai``, ``COPILOT_MODEL``, a fake key, no GitHub
login. Its memory daemon is the SDK's mock daemon (the headless turn also
runs on the real Signet 0.109.15 and 0.145.8, behind a recording proxy).
HOME and COPILOT_HOME are temporary; the hooks run because ``signet-sdk
install copilot`` wrote ``~/.copilot/hooks/signet-sdk.json``.

What Copilot CLI 1.0.102 does, and so what is checked: ``copilot -p ... -s``
fires sessionStart (``new``) and userPromptSubmitted together, agentStop
after the turn and sessionEnd (``complete``); ``--resume <id>`` continues
the session (sessionStart ``resume``). ``/compact`` exists in the
interactive UI, driven here on a pseudo-terminal: it fires preCompact and
writes the summary to ``events.jsonl``, and no hook follows it, so the
session's next hook reports it.

Without npm the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from signet_adapter_copilot.install import main as install_main
from signet_e2e import (
    SHORT_DEADLINES,
    daemon_of,
    down_daemon_url,
    get_json,
    harness_world,
    long_prompt,
    npm_binary,
    npm_cache,
    on_every_daemon,
    remember,
    silent_daemon,
    summary_or_reply,
    unavailable,
)
from signet_e2e.terminal import Terminal
from signet_e2e.world import TURN_COMPACT_END, ProgramWorld

from signet_sdk.testing import outbox_entries, outbox_left
from signet_sdk.testing.fake_openai import FakeOpenAI

COPILOT_VERSION = os.environ.get("COPILOT_CLI_VERSION", "1.0.102")
# Resolved now, before the tests' private HOME is in place: the install is shared, and so
# is the runtime the binary unpacks on its first start (235 MB: once, not once per test).
RUNTIME = Path(npm_cache()) / "@github" / f"copilot@{COPILOT_VERSION}-runtime"
REPLY = "FAKE-COPILOT-REPLY: atlas deploys through make ship."
SUMMARY = "<overview>Atlas deploys go through make ship (decided in session one).</overview>"
MEMORY = "Atlas deploys go through make ship, marker MEMO-CP-4242"
PROMPT = long_prompt("How do atlas deploys work? MEMO-CP-4242")
STORED = "Atlas staging runs on pg-staging-2, marker CP-TOOL-5150"
#: The user message Copilot CLI sends when it compacts (1.0.102).
COMPACT_ASK = "Please create a detailed summary of the conversation so far"


#: The fake model's text: the summary for a compaction request, else the reply.
_answer = summary_or_reply(COMPACT_ASK, SUMMARY, REPLY)


@pytest.fixture(scope="session")
def copilot_bin() -> str:
    """The pinned ``copilot`` program, installed once per cache directory.

    Copilot prints its version as ``GitHub Copilot CLI 1.0.102.``, which the
    kit's word check does not read, so the program is checked here.
    """
    program = npm_binary("@github/copilot", COPILOT_VERSION, "copilot", probe=None)
    probe = subprocess.run(
        [str(program), "--version"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COPILOT_PKG_CACHE_HOME": str(RUNTIME)},
    )
    if f"GitHub Copilot CLI {COPILOT_VERSION}" not in probe.stdout:
        unavailable(f"{program} is not Copilot CLI {COPILOT_VERSION}: {probe.stdout[-500:]}")
    return str(program)


@dataclass(kw_only=True)
class World(ProgramWorld[FakeOpenAI]):
    """``copilot`` is the program (it starts the MCP server as a child)."""

    copilot_home: Path

    def ask(self, prompt: str, *flags: str, env: dict[str, str] | None = None) -> str:
        """``copilot -p <prompt> -s``: the answer it printed (the run must succeed)."""
        proc = self.run("-p", prompt, "-s", *flags, env=env)
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
        return proc.stdout

    def sessions(self) -> list[str]:
        """The session ids Copilot has written state for."""
        folder = self.copilot_home / "session-state"
        return sorted(p.name for p in folder.iterdir() if (p / "events.jsonl").exists())

    def trust(self) -> None:
        """Trust the project folder, as answering Copilot's folder-trust prompt would."""
        config = self.copilot_home / "config.json"
        config.write_text(json.dumps({"trustedFolders": [str(self.project)]}))

    def model_bodies(self) -> list[str]:
        return [
            json.dumps(r["body"])
            for r in self.fake.requests()
            if r["method"] == "POST" and r["path"] == "/v1/chat/completions"
        ]


@contextlib.contextmanager
def _world(
    copilot_bin: str, tmp_path: Path, isolated: Path, request: pytest.FixtureRequest, daemon: str
) -> Iterator[World]:
    with (
        FakeOpenAI(_answer, log_path=tmp_path / "model.jsonl") as fake,
        harness_world(
            tmp_path,
            request=request,
            daemon=daemon,
            prefix="signet-cp-e2e-",
            COPILOT_HOME=str(isolated),
            COPILOT_PKG_CACHE_HOME=str(RUNTIME),
            COPILOT_OFFLINE="true",
            COPILOT_PROVIDER_BASE_URL=fake.base_url,
            COPILOT_PROVIDER_TYPE="openai",
            COPILOT_PROVIDER_API_KEY="dummy",
            COPILOT_MODEL="fake-model",
        ) as base,
    ):
        yield World(
            **vars(base), program=copilot_bin, copilot_home=isolated, fake=fake, version=daemon
        )


@pytest.fixture
def world(
    copilot_bin: str, tmp_path: Path, isolated: Path, request: pytest.FixtureRequest
) -> Iterator[World]:
    """Copilot against the mock daemon, or each real release under ``on_every_daemon``."""
    with _world(copilot_bin, tmp_path, isolated, request, daemon_of(request)) as made:
        yield made


@on_every_daemon()
def test_a_headless_turn_reaches_the_daemon_and_memory_reaches_the_model(
    world: World,
) -> None:
    assert install_main(["install"]) == 0
    remember(world.url, MEMORY)

    out = world.ask(PROMPT)

    assert out.strip() == REPLY
    (session,) = world.sessions()
    _, prompt = world.start_and_prompt(session, "copilot", "legacy")
    assert prompt.json["userPrompt"] == PROMPT
    ended = world.checkpoint_then_end(session, "complete")
    for call in [ended, *world.hook_calls("session-checkpoint-extract")]:
        assert call.status == 200, (call.path, call.response_json)
    assert world.hook_calls("compaction-complete") == []

    # The daemon read the staged conversation (the transcript route exists from 0.110 on).
    if world.version == "0.109.15":
        assert ended.response_json.get("memoriesSaved") is not None, ended.response_json
    else:
        stored = json.dumps(get_json(f"{world.url}/api/sessions/{session}/transcript"))
        assert "MEMO-CP-4242" in stored and REPLY in stored
        assert "system_reminder" not in stored  # the conversation, not Copilot's event log

    # The stored memory reached the model as hook context; the memory tools were offered.
    bodies = world.model_bodies()
    assert any("marker MEMO-CP-4242" in b for b in bodies), bodies[-1][:2000]
    assert any('"signet-memory_search"' in b for b in bodies)


def test_a_resumed_turn_continues_the_same_session(world: World) -> None:
    assert install_main(["install"]) == 0
    world.ask("first question about atlas")
    (session,) = world.sessions()

    again = world.ask("and the staging database?", "--resume", session)

    assert again.strip() == REPLY
    assert world.sessions() == [session]
    starts = world.hook_calls("session-start")
    assert [(s.json["sessionKey"], s.json["source"]) for s in starts] == [
        (session, "startup"),
        (session, "resume"),
    ]
    prompts = world.hook_calls("user-prompt-submit")
    assert [p.json["sessionKey"] for p in prompts] == [session, session]
    # The resumed turn carries the first one to the model.
    last = world.model_bodies()[-1]
    assert "first question about atlas" in last and "and the staging database?" in last
    ends = world.wait_for("session-end", 2)
    assert [e.json["reason"] for e in ends] == ["complete", "complete"]
    assert len(world.hook_calls("session-checkpoint-extract")) == 2


def _turns(world: World) -> int:
    """Turns finished so far: each agentStop sends one checkpoint."""
    return len(world.hook_calls("session-checkpoint-extract"))


def _compacted(world: World) -> bool:
    """Whether Copilot has written a compaction's summary to the session's events.jsonl."""
    found = world.copilot_home.glob("session-state/*/events.jsonl")
    return any('"session.compaction_complete"' in p.read_text() for p in found)


def _interactive(world: World, *lines: str) -> None:
    """Type each line in the trusted project, each once the one before has done its work
    (a prompt: its turn's checkpoint; ``/compact``: its summary in events.jsonl); then
    ``/exit``. The screen is only read for the prompt box (a spinner cuts up the rest)."""
    world.trust()
    with world.terminal(set_size=True) as term:
        term.wait_for("/ commands")
        for line in lines:
            turns = _turns(world)
            term.type(line)
            if line == "/compact":
                _until(term, lambda: _compacted(world), "the compaction's summary")
            else:
                _until(term, lambda: _turns(world) > turns, f"the turn of {line!r}")  # noqa: B023
        term.type("/exit")
        term.proc.wait(timeout=60)


def _until(term: Terminal, done: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, f"no {what}; screen:\n{term.text()[-3000:]}"
        term.read(0.2)
    term.read(0.5)  # let the UI settle before the next keys


def test_compact_then_exit_sends_the_summary_once_before_the_end(world: World) -> None:
    assert install_main(["install"]) == 0

    _interactive(world, "first question about atlas", "/compact")

    session = world.started_session()
    assert world.sessions() == [session]
    world.assert_pre_compaction(session, "copilot", "Copilot CLI compaction (manual)")
    # No hook follows /compact: sessionEnd, right after, reads the summary from
    # events.jsonl and hands it and the end to the outbox.
    (ended,) = world.wait_for("session-end")
    assert outbox_left(15, world.env) == []
    (done,) = world.hook_calls("compaction-complete")
    assert done.status == 200, done.response_json
    assert done.json["summary"] == SUMMARY
    assert (done.json["sessionKey"], done.json["project"]) == (session, str(world.project))
    assert (ended.json["reason"], ended.json["sessionKey"]) == ("user_exit", session)
    assert ended.json["transcriptPath"].startswith("/tmp/signet/")
    hooks = [r.path.removeprefix("/api/hooks/") for r in world.daemon.requests]
    hooks = [h for h in hooks if not h.startswith("/")]
    # (sessionStart and the first prompt's hook run at the same time: either may come first)
    assert set(hooks[:2]) == set(TURN_COMPACT_END[:2])
    assert tuple(hooks[2:]) == TURN_COMPACT_END[2:]
    # The summary is the model's answer to Copilot's compaction request.
    assert any(COMPACT_ASK in b for b in world.model_bodies())


def test_compact_then_a_prompt_sends_the_summary_once_after_that_prompt(world: World) -> None:
    assert install_main(["install"]) == 0

    _interactive(world, "first question about atlas", "/compact", "and the staging database?")

    world.wait_for("session-end")
    assert outbox_left(15, world.env) == []
    (done,) = world.hook_calls("compaction-complete")
    assert done.json["summary"] == SUMMARY
    prompts = world.hook_calls("user-prompt-submit")
    assert [p.json["userPrompt"] for p in prompts] == [
        "first question about atlas",
        "and the staging database?",
    ]
    paths = [r.path for r in world.daemon.requests]
    assert paths.index(prompts[1].path, paths.index(prompts[0].path) + 1) < paths.index(done.path)
    assert len(world.hook_calls("session-checkpoint-extract")) == 2


def test_with_the_daemon_gone_the_answer_is_printed_and_writes_wait(world: World) -> None:
    assert install_main(["install"]) == 0
    env = {**world.env, "SIGNET_DAEMON_URL": down_daemon_url()}

    started = time.monotonic()
    proc = world.run("-p", PROMPT, "-s", env=env)
    elapsed = time.monotonic() - started

    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == REPLY
    assert "signet" not in (proc.stdout + proc.stderr).lower()
    assert elapsed < 30  # refused at once: far inside every hook's deadline
    assert world.daemon.requests == []
    actions = [e["action"] for e in outbox_entries(world.env)]
    assert "session_checkpoint_extract" in actions and "session_end" in actions


def test_with_a_daemon_that_never_answers_each_hook_gives_up_at_its_deadline(
    world: World,
) -> None:
    """A daemon that takes connections and answers nothing: every hook waits out its own
    deadline (1 s here) and the turn goes on; the answer is printed."""
    deadlines = SHORT_DEADLINES
    with silent_daemon() as url:
        env = {**world.env, **deadlines, "SIGNET_DAEMON_URL": url}
        with pytest.MonkeyPatch.context() as patch:
            for key, value in deadlines.items():
                patch.setenv(key, value)
            assert install_main(["install"]) == 0  # Copilot's timeoutSec: 1 s + 2 s

        started = time.monotonic()
        proc = world.run("-p", PROMPT, "-s", env=env)
        elapsed = time.monotonic() - started

    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == REPLY
    # Four hooks one after another at most, each cut at 1 s, well before Copilot's 3 s.
    assert elapsed < 4 * 3 + 10
    assert "signet" not in (proc.stdout + proc.stderr).lower()
    actions = [e["action"] for e in outbox_entries(world.env)]
    assert "session_end" in actions


def test_project_hooks_run_only_once_the_folder_is_trusted(world: World) -> None:
    assert install_main(["install", "--project", str(world.project)]) == 0
    assert (world.project / ".github" / "hooks" / "signet-sdk.json").exists()

    assert world.ask("first question about atlas").strip() == REPLY
    assert world.hook_calls("session-start") == []  # an untrusted folder: no repository hooks

    world.trust()
    assert world.ask("second question about atlas").strip() == REPLY
    (started,) = world.hook_calls("session-start")
    assert started.json["project"] == str(world.project)
    assert len(world.wait_for("session-end")) == 1


def test_the_model_stores_a_memory_through_the_mcp_server(world: World) -> None:
    assert install_main(["install"]) == 0
    world.fake.tool_script = [("signet-memory_store", {"content": STORED})]

    assert world.ask("note where staging runs", "--allow-all-tools").strip() == REPLY

    stored = [r for r in world.daemon.requests if r.path == "/api/memory/remember"]
    assert [r.json["content"] for r in stored] == [STORED]
    assert any("signet-memory_store" in b and "role" in b for b in world.model_bodies())
