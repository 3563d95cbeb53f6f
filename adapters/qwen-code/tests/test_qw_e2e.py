"""End to end with the real Qwen Code CLI, offline.

``qwen`` (pinned, ``@qwen-code/qwen-code``, on Node 22; both from the npm
registry through ``qw_support.qwen_install``, cached under
``${SIGNET_NPM_CACHE:-${XDG_CACHE_HOME:-~/.cache}/signet-sdk/npm}``) runs
headless (``qwen -p``) and, for SessionEnd, in its interactive UI on a
pseudo-terminal. Its model is the kit's fake OpenAI-compatible server on
127.0.0.1 (``OPENAI_BASE_URL``, a fake key and model); its memory daemon is
the SDK's mock daemon on 127.0.0.1 and, for the headless turn, each real
Signet release behind a recording proxy. HOME is a temporary directory
holding the user's ``~/.qwen/settings.json``, into which our installer
merges the hooks and the memory tools' MCP server.

What Qwen Code 0.24.4 does, and so what is checked here: ``qwen -p`` fires
SessionStart (``startup``, or ``resume`` with ``--resume``),
UserPromptSubmit and Stop, and no SessionEnd; ``qwen -p /compress
--resume <id>`` compacts that session headless (PreCompact ``manual``,
PostCompact, then SessionStart ``compact``), and a turn whose history
reached the context limit compacts itself (``auto``); the interactive
``/quit`` fires SessionEnd ``prompt_input_exit``.

Without npm the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from qw_support import (
    REPLY,
    SUMMARY,
    Install,
    compactions,
    fake_model,
    qwen_env,
    qwen_install,
    turns,
)
from signet_adapter_qwen_code.install import main as install_main
from signet_e2e import (
    daemon_of,
    get_json,
    harness_world,
    long_prompt,
    on_every_daemon,
    remember,
)
from signet_e2e.fixtures import installed_once
from signet_e2e.world import ProgramWorld

from signet_sdk.testing import hook_log_lines, outbox_entries, outbox_left
from signet_sdk.testing.fake_openai import FakeOpenAI, system_text, tool_results

MEMORY = "Atlas deploys go through make ship, marker MEMO-QW-3131"
PROMPT = long_prompt("How do atlas deploys work? MEMO-QW-3131")
#: The daemons the headless turn runs on: the mock, then each real release.
#: The user's own settings: comments, and Qwen Code's own background memory off.
SETTINGS = """\
{
  // the fake model answers every request; Qwen Code's own memory agent would add some
  "memory": { "enableManagedAutoMemory": false, "enableManagedAutoDream": false },
  "general": { "enableAutoUpdate": false }
}
"""
SESSION_START_TAG = "<qwen:session-start-context"
PROMPT_TAG = "<qwen:user-prompt-submit-context>"


#: Node 22 and the pinned ``qwen``, installed once per cache directory.
qwen = installed_once(qwen_install, "qwen")


@dataclass(kw_only=True)
class World(ProgramWorld[FakeOpenAI]):
    """``qwen`` is the program."""

    def turn(self, *args: str) -> tuple[str, str]:
        """A headless turn (``-o json``): its session id and its answer."""
        proc = self.run(*args, "--output-format", "json")
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
        (result,) = [e for e in json.loads(proc.stdout) if e.get("type") == "result"]
        return str(result["session_id"]), str(result["result"])

    def hooks(self) -> list[str]:
        return [
            r.path.removeprefix("/api/hooks/") for r in self.daemon.requests if "/hooks/" in r.path
        ]


@contextlib.contextmanager
def make_world(
    install: Install, tmp_path: Path, qwen_dir: Path, request: pytest.FixtureRequest, daemon: str
) -> Iterator[World]:
    with (
        fake_model(tmp_path / "model.jsonl") as fake,
        harness_world(
            tmp_path,
            request=request,
            daemon=daemon,
            version="0.110",  # the mock serves /api/sessions/:key/transcript
            prefix="signet-qw-e2e-",
            **qwen_env(install, fake),
        ) as base,
    ):
        (qwen_dir / "settings.json").write_text(SETTINGS)
        assert install_main(["install", "--trust-tools"]) == 0
        yield World(**vars(base), program=install.qwen, fake=fake, version=daemon)


@pytest.fixture
def world(
    qwen: Install, tmp_path: Path, isolated: Path, request: pytest.FixtureRequest
) -> Iterator[World]:
    with make_world(qwen, tmp_path, isolated, request, daemon_of(request)) as made:
        yield made


def tagged(text: str, tag: str) -> str:
    """The text of the first ``tag`` block (Qwen Code's marker for hook context) in ``text``."""
    start = text.find(tag)
    assert start >= 0, f"no {tag} in the request"
    end = text.find("</qwen:", start)
    return text[start:end]


# -- a headless turn, on every daemon ------------------------------------------------


@on_every_daemon()
def test_a_headless_turn_reaches_the_daemon_and_memory_reaches_the_model(
    world: World,
) -> None:
    remember(world.url, MEMORY, project=str(world.project))

    session, answer = world.turn("-p", PROMPT)

    assert answer == REPLY
    _, prompt = world.start_and_prompt(session, "qwen-code", "legacy")
    assert prompt.json["userPrompt"] == PROMPT
    (checkpoint,) = world.wait_for("session-checkpoint-extract")
    assert checkpoint.status == 200, checkpoint.response_json
    assert checkpoint.json["sessionKey"] == session
    assert checkpoint.json["transcriptPath"].startswith("/tmp/signet/")
    # The memory reached the model in the system prompt, as SessionStart's context.
    (first, *_) = turns(world.fake)
    assert "marker MEMO-QW-3131" in tagged(system_text(first), SESSION_START_TAG)
    # No SessionEnd in -p mode: the next session's start ends this one, with its record.
    assert world.hook_calls("session-end") == []
    other, _ = world.turn("-p", "A new session: what is on the list today?")
    (ended,) = world.wait_for("session-end")
    assert ended.status == 200, ended.response_json
    assert other != session
    assert ended.json["sessionKey"] == ended.json["sessionId"] == session
    assert (ended.json["reason"], ended.json["cwd"]) == ("other", str(world.project))
    assert ended.json["transcriptPath"].startswith("/tmp/signet/")
    paths = [r.path for r in world.daemon.requests if r.path.startswith("/api/hooks/")]
    assert paths.index(checkpoint.path) < paths.index(ended.path)
    if world.version == "0.109.15":
        assert ended.response_json.get("memoriesSaved") is not None, ended.response_json
    else:
        stored = get_json(f"{world.url}/api/sessions/{session}/transcript")
        assert "MEMO-QW-3131" in json.dumps(stored)
    assert outbox_left(15, world.env) == []


# -- resumed turns, compaction, the daemon gone ---------------------------------------------


def test_a_resumed_turn_continues_the_session_and_gets_the_prompts_context(world: World) -> None:
    # Installed in the project's settings this time (.qwen/settings.json in the project).
    assert install_main(["uninstall"]) == 0
    assert install_main(["install", "--project", str(world.project)]) == 0
    remember(world.url, MEMORY, project=str(world.project))
    session, _ = world.turn("-p", "first turn about the weather")
    resumed, answer = world.turn(
        "-p", "How do atlas deploys work? MEMO-QW-3131", "--resume", session
    )

    assert (resumed, answer) == (session, REPLY)
    starts = world.hook_calls("session-start")
    assert [(s.json["sessionKey"], s.json["source"]) for s in starts] == [
        (session, "startup"),
        (session, "resume"),
    ]
    prompts = world.hook_calls("user-prompt-submit")
    assert [p.json["sessionKey"] for p in prompts] == [session, session]
    assert len(world.wait_for("session-checkpoint-extract", 2)) == 2
    # The resumed turn's request holds the earlier turn, and the prompt's own context.
    last = turns(world.fake)[-1]
    assert "first turn about the weather" in json.dumps(last)
    assert "MEMO-QW-3131" in tagged(json.dumps(last["messages"][-1]), PROMPT_TAG)
    # A resume is the same session going on: no session end is owed.
    assert world.hook_calls("session-end") == []
    assert [e["action"] for e in outbox_entries(world.env)] == []


def test_compress_headless_sends_pre_compaction_guidance_and_the_summary_once(
    world: World,
) -> None:
    # A large prompt count makes the summary worth keeping (Qwen Code drops a compression
    # that would not shrink the history).
    world.fake.usage = {"prompt_tokens": 90_000, "completion_tokens": 5, "total_tokens": 90_005}
    session, _ = world.turn("-p", PROMPT)

    proc = world.run("-p", "/compress", "--resume", session)

    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Context compressed (90000 -> " in proc.stdout
    (pre,) = world.hook_calls("pre-compaction")
    assert pre.json == {
        "sessionKey": session,
        "sessionContext": "Qwen Code compaction (manual)",
        "harness": "qwen-code",
        "runtimePath": "legacy",
    }
    # The daemon's guidance went into the summariser's instructions.
    guidance = pre.response_json["summaryPrompt"].strip().splitlines()[0]
    (asked, *_) = compactions(world.fake)
    assert f"Additional Instructions:\n{guidance}" in json.dumps(asked, ensure_ascii=False).replace(
        "\\n", "\n"
    )
    (done,) = world.hook_calls("compaction-complete")
    assert done.status == 200, done.response_json
    assert done.json == {
        "sessionKey": session,
        "summary": SUMMARY,
        "project": str(world.project),
        "harness": "qwen-code",
        "runtimePath": "legacy",
    }
    sources = [s.json["source"] for s in world.hook_calls("session-start")]
    assert sources == ["startup", "resume", "compact"]
    assert world.hooks()[-3:] == ["pre-compaction", "compaction-complete", "session-start"]


def test_a_turn_at_the_context_limit_compacts_itself(world: World) -> None:
    world.fake.usage = {"prompt_tokens": 170_000, "completion_tokens": 5, "total_tokens": 170_005}
    session, _ = world.turn("-p", PROMPT)
    world.fake.usage = {"prompt_tokens": 1_200, "completion_tokens": 5, "total_tokens": 1_205}

    resumed, answer = world.turn("-p", "and the staging database?", "--resume", session)

    assert (resumed, answer) == (session, REPLY)
    (pre,) = world.hook_calls("pre-compaction")
    assert pre.json["sessionContext"] == "Qwen Code compaction (auto)"
    (done,) = world.hook_calls("compaction-complete")
    assert done.json["summary"] == SUMMARY and done.json["sessionKey"] == session
    hooks = world.hooks()
    assert hooks[:7] == [
        "session-start",
        "user-prompt-submit",
        "session-checkpoint-extract",
        "session-start",
        "user-prompt-submit",
        "pre-compaction",
        "compaction-complete",
    ]
    # Qwen Code fires SessionStart "compact" without waiting for it, as the turn goes on.
    assert sorted(hooks[7:]) == ["session-checkpoint-extract", "session-start"]
    assert world.hook_calls("session-start")[-1].json["source"] == "compact"


def test_with_the_daemon_gone_the_answer_comes_and_the_turn_waits_in_the_outbox(
    world: World,
) -> None:
    gone = {
        **world.env,
        "SIGNET_DAEMON_URL": "http://127.0.0.1:9",  # nothing listens on the discard port
        "SIGNET_OUTBOX_FLUSH_SECONDS": "0",
        "SIGNET_BREAKER_FAILURES": "0",
    }
    proc = world.run("-p", PROMPT, "--output-format", "json", env=gone)

    assert proc.returncode == 0, proc.stderr[-3000:]
    (result,) = [e for e in json.loads(proc.stdout) if e.get("type") == "result"]
    assert result["result"] == REPLY
    # Each hook failed open at once; none ran into its deadline (SessionStart's alone is 15 s).
    log = hook_log_lines(world.env)
    assert any("qwen-code SessionStart" in line and "failed open" in line for line in log)
    assert any("qwen-code UserPromptSubmit" in line and "failed open" in line for line in log)
    assert not any("deadline" in line for line in log)
    assert world.daemon.requests == []
    (kept,) = outbox_entries(world.env)
    assert (kept["action"], kept["body"]["sessionKey"]) == (
        "session_checkpoint_extract",
        result["session_id"],
    )

    # The daemon is back: the next session's start sends the turn and the owed end.
    world.turn("-p", "back again")
    ended = world.wait_for("session-end")
    assert [e.json["sessionKey"] for e in ended] == [result["session_id"]]
    keys = [c.json["sessionKey"] for c in world.wait_for("session-checkpoint-extract", 2)]
    assert result["session_id"] in keys
    assert outbox_left(15, world.env) == []


# -- the memory tools through MCP ------------------------------------------------------


def test_memory_search_through_mcp_returns_a_stored_memory(world: World) -> None:
    remember(world.url, MEMORY, project=str(world.project))
    # Qwen Code offers MCP tools through its deferred-tool bridge: look one up, then call it.
    world.fake.tool_script = [
        ("tool_search", {"query": "select:mcp__signet__memory_search"}),
        ("tool_call", {"name": "mcp__signet__memory_search", "arguments": {"query": "atlas"}}),
    ]
    world.turn("-p", "What do you remember about atlas?")

    results = [r for body in world.fake.chat_bodies() for r in tool_results(body)]
    assert any("MEMO-QW-3131" in r for r in results), results
    recalls = [r for r in world.daemon.requests if r.path == "/api/memory/recall"]
    assert recalls and recalls[-1].json["query"] == "atlas"


# -- SessionEnd, in the interactive UI ---------------------------------------------------


def test_quitting_the_interactive_ui_ends_the_session_once(world: World) -> None:
    with world.terminal(key_delay=0.01) as term:
        term.wait_for("Type your message")
        term.read(2.0)  # the input box takes keys once the UI has settled
        term.answer("first question about atlas MEMO-QW-3131", REPLY)
        term.type("/quit")
        assert term.proc.wait(timeout=60) == 0

    session = world.started_session()
    ended = world.checkpoint_then_end(session, "prompt_input_exit")
    assert ended.status == 200, ended.response_json
    # Its own SessionEnd was sent: the next session owes it no second one.
    world.turn("-p", "A new session.")
    assert outbox_left(15, world.env) == []
    assert [e.json["sessionKey"] for e in world.hook_calls("session-end")] == [session]
