"""End to end with the real Kimi Code, offline.

``kimi`` (``@moonshot-ai/kimi-code``, pinned, from the npm registry by the
kit's ``npm_binary``, on Node 22 from the registry too: see
:mod:`km_support`) runs against a fake OpenAI-compatible model on
127.0.0.1: ``~/.kimi-code/config.toml`` names a ``kimi``-type provider
with that ``base_url`` and a fake key, so no login is needed. Its memory
daemon is the SDK's mock daemon (the headless turn also runs on the real
Signet 0.109.15 and 0.145.8, behind a recording proxy). HOME and
KIMI_CODE_HOME are temporary; the hooks and the MCP server are there
because ``signet-sdk install kimi`` wrote them, and ``kimi doctor``
accepts the file it wrote.

What Kimi Code 2.1.0 does, and so what is checked: ``kimi -p`` fires
SessionStart (``startup``), UserPromptSubmit and Stop, and no SessionEnd;
UserPromptSubmit's output reaches the model as a user message before the
prompt. ``-r <id>``, ``--session <id>`` and ``--continue`` resume a session
(SessionStart ``resume``). A reported token count near the model's window
makes the next turn compact first (PreCompact and PostCompact ``auto``).
The interactive UI, driven on a pseudo-terminal, compacts on ``/compact``
and fires SessionEnd (``exit``) on ``/exit``.

Without npm the tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from km_support import COMPACT_ASK, REPLY, SUMMARY, Install, answer, kimi_install, provider_config
from signet_adapter_kimi.install import main as install_main
from signet_e2e import (
    SHORT_DEADLINES,
    daemon_of,
    down_daemon_url,
    get_json,
    harness_world,
    long_prompt,
    on_every_daemon,
    remember,
    silent_daemon,
)
from signet_e2e.fixtures import installed_once
from signet_e2e.world import TURN_COMPACT_END, ProgramWorld

from signet_sdk.testing import hook_log_lines, outbox_entries, outbox_left
from signet_sdk.testing.fake_openai import FakeOpenAI
from signet_sdk.testing.hook_process import SIGNET_SDK

MEMORY = "Atlas deploys go through make ship, marker MEMO-KM-4242"
PROMPT = long_prompt("How do atlas deploys work? MEMO-KM-4242")
STORED = "Atlas staging runs on pg-staging-2, marker KM-TOOL-5150"
#: How Kimi hands UserPromptSubmit's output to the model.
HOOK_RESULT = '<hook_result hook_event="UserPromptSubmit">\n'


#: Node 22 and the pinned ``kimi``, installed once per cache directory.
install = installed_once(kimi_install, "install")


@dataclass(kw_only=True)
class World(ProgramWorld[FakeOpenAI]):
    """``kimi`` is the program (it starts the MCP server as a child)."""

    kimi_home: Path

    def ask(self, prompt: str, *flags: str, env: dict[str, str] | None = None) -> tuple[str, str]:
        """``kimi [flags] -p <prompt>``: what it printed, and the session it ran in."""
        proc = self.run(*flags, "-p", prompt, env=env)
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
        found = re.search(r"To resume this session: kimi -r (session_[0-9a-f-]+)", proc.stderr)
        assert found, proc.stderr[-2000:]
        return proc.stdout, found.group(1)

    def chat_bodies(self) -> list[dict[str, Any]]:
        return self.fake.chat_bodies()

    def hook_paths(self) -> list[str]:
        return [
            r.path.removeprefix("/api/hooks/")
            for r in self.daemon.requests
            if r.path.startswith("/api/hooks/")
        ]


@contextlib.contextmanager
def _world(
    install: Install, tmp_path: Path, isolated: Path, request: pytest.FixtureRequest, daemon: str
) -> Iterator[World]:
    with (
        FakeOpenAI(answer, log_path=tmp_path / "model.jsonl") as fake,
        harness_world(
            tmp_path,
            request=request,
            daemon=daemon,
            prefix="signet-km-e2e-",
            PATH=install.path(str(Path(SIGNET_SDK).parent)),
            KIMI_CODE_HOME=str(isolated),
        ) as base,
    ):
        (isolated / "config.toml").write_text(provider_config(fake.base_url))
        yield World(
            **vars(base), program=install.kimi, kimi_home=isolated, fake=fake, version=daemon
        )


@pytest.fixture
def world(
    install: Install, tmp_path: Path, isolated: Path, request: pytest.FixtureRequest
) -> Iterator[World]:
    """Kimi Code against the mock daemon, or each real release under ``on_every_daemon``."""
    with _world(install, tmp_path, isolated, request, daemon_of(request)) as made:
        yield made


def _installed(world: World) -> None:
    assert install_main(["install"]) == 0
    doctor = world.run("doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "OK config.toml" in doctor.stdout


def _messages(body: dict[str, Any]) -> list[tuple[str, str]]:
    """``(role, text)`` of each message of a request (content parts joined)."""
    out = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        out.append((str(message.get("role")), str(content or "")))
    return out


def _context_before(body: dict[str, Any], prompt: str) -> str:
    """The hook context Kimi put right before the user's ``prompt`` in a request."""
    messages = _messages(body)
    at = max(i for i, (role, text) in enumerate(messages) if role == "user" and text == prompt)
    role, text = messages[at - 1]
    assert role == "user" and text.startswith(HOOK_RESULT), messages[at - 1]
    return text


@on_every_daemon()
def test_a_headless_turn_reaches_the_daemon_and_memory_reaches_the_model(
    world: World,
) -> None:
    _installed(world)
    remember(world.url, MEMORY)

    out, session = world.ask(PROMPT)

    assert REPLY in out
    _, prompt = world.start_and_prompt(session, "kimi", "legacy")
    assert prompt.json["userPrompt"] == PROMPT
    # The session's start context and the prompt's recall reached the model, in one
    # user message right before the prompt; the memory tools were offered.
    (body,) = world.chat_bodies()
    assert "marker MEMO-KM-4242" in _context_before(body, PROMPT)
    assert any(t["function"]["name"] == "mcp__signet__memory_search" for t in body["tools"])
    (checkpoint,) = world.wait_for("session-checkpoint-extract")
    assert checkpoint.status == 200, checkpoint.response_json
    assert checkpoint.json["transcriptPath"].startswith("/tmp/signet/")
    assert world.hook_calls("session-end") == []  # kimi -p fires no SessionEnd

    # The next Kimi process ends the first session (its process is gone), then starts.
    _, second = world.ask("Which database does staging use?")

    (ended,) = world.wait_for("session-end")
    assert ended.status == 200, ended.response_json
    assert (ended.json["sessionKey"], ended.json["sessionId"]) == (session, session)
    assert (ended.json["reason"], ended.json["cwd"]) == ("exit", str(world.project))
    assert ended.json["transcriptPath"].startswith("/tmp/signet/")
    starts = [s.json["sessionKey"] for s in world.hook_calls("session-start")]
    assert starts == [session, second]
    paths = world.hook_paths()
    assert paths.index("session-end") < len(paths) - 1 - paths[::-1].index("session-start")
    if world.version == "0.109.15":
        assert ended.response_json.get("memoriesSaved") is not None, ended.response_json
    else:
        stored = json.dumps(get_json(f"{world.url}/api/sessions/{session}/transcript"))
        assert "MEMO-KM-4242" in stored and REPLY in stored
        assert "hook_result" not in stored  # the conversation, not Kimi's log or our context


def test_resumed_runs_continue_the_session_and_each_run_ends_before_the_next(
    world: World,
) -> None:
    _installed(world)
    remember(world.url, MEMORY)
    _, session = world.ask("first question about atlas")

    _, again = world.ask("and the staging database?", "-r", session)
    _, third = world.ask("and the release day?", "--session", session)
    _, fourth = world.ask("anything else?", "--continue")

    assert again == third == fourth == session
    starts = world.hook_calls("session-start")
    assert [(s.json["sessionKey"], s.json["source"]) for s in starts] == [
        (session, "startup"),
        (session, "resume"),
        (session, "resume"),
        (session, "resume"),
    ]
    # Each resumed run first ended the run before it: end, start, end, start, ...
    flow = [p for p in world.hook_paths() if p in ("session-start", "session-end")]
    assert flow == ["session-start"] + ["session-end", "session-start"] * 3
    assert [e.json["reason"] for e in world.hook_calls("session-end")] == ["exit"] * 3
    prompts = world.hook_calls("user-prompt-submit")
    assert {p.json["sessionKey"] for p in prompts} == {session}
    # The last turn carries the earlier ones to the model, and its run's start context.
    last = world.chat_bodies()[-1]
    said = [text for role, text in _messages(last) if role in ("user", "assistant")]
    assert "first question about atlas" in said and REPLY in said
    assert "marker MEMO-KM-4242" in _context_before(last, "anything else?")


def test_an_automatic_compaction_sends_its_summary_once(world: World, isolated: Path) -> None:
    (isolated / "config.toml").write_text(provider_config(world.fake.base_url, 60000))
    _installed(world)
    world.fake.usage = {"prompt_tokens": 30000, "completion_tokens": 5, "total_tokens": 30005}
    _, session = world.ask(PROMPT)  # the window is now half used: the next turn compacts first

    world.ask("and the staging database?", "--continue")
    world.ask("one more question")  # a new session: ends the compacted one

    (pre,) = world.wait_for("pre-compaction")
    assert pre.json["sessionKey"] == session
    assert re.fullmatch(r"Kimi Code compaction \(auto, \d+ tokens\)", pre.json["sessionContext"])
    world.wait_for("session-end", 2)
    assert outbox_left(15, world.env) == []
    (done,) = world.hook_calls("compaction-complete")
    assert done.status == 200, done.response_json
    assert (done.json["sessionKey"], done.json["summary"]) == (session, SUMMARY)
    assert done.json["project"] == str(world.project)
    paths = world.hook_paths()
    assert paths.index("pre-compaction") < paths.index("compaction-complete")
    assert any(COMPACT_ASK in json.dumps(b["messages"][-1]) for b in world.chat_bodies())


def test_interactive_compact_then_exit_sends_the_summary_and_the_end(world: World) -> None:
    _installed(world)
    with world.terminal(set_size=True) as term:
        term.wait_for("Trust this folder?")
        term.answer("", "Send /help")  # the first choice: trust
        term.answer(PROMPT, "FAKE-KIMI-REPLY")
        term.answer("/compact", "Compaction complete")
        term.type("/exit")
        term.proc.wait(timeout=60)

    session = world.started_session()
    (ended,) = world.wait_for("session-end")
    assert outbox_left(15, world.env) == []
    assert (ended.json["sessionKey"], ended.json["reason"]) == (session, "exit")
    assert ended.json["transcriptPath"].startswith("/tmp/signet/")
    (pre,) = world.hook_calls("pre-compaction")
    assert pre.json["sessionContext"].startswith("Kimi Code compaction (manual, ")
    (done,) = world.hook_calls("compaction-complete")
    assert (done.json["sessionKey"], done.json["summary"]) == (session, SUMMARY)
    assert tuple(world.hook_paths()) == TURN_COMPACT_END


def test_with_the_daemon_gone_the_answer_is_printed_and_writes_wait(world: World) -> None:
    _installed(world)
    # The hooks' circuit breaker opens after three refusals (1 s here instead of 30), and
    # the outbox sender they start gives up at once (instead of retrying a dead URL).
    gone = down_daemon_url()
    quick = {"SIGNET_BREAKER_COOLDOWN": "1", "SIGNET_OUTBOX_FLUSH_SECONDS": "0"}
    env = {**world.env, "SIGNET_DAEMON_URL": gone, **quick}

    started = time.monotonic()
    out, session = world.ask(PROMPT, env=env)
    elapsed = time.monotonic() - started

    assert REPLY in out
    assert elapsed < 30  # refused at once: far inside every hook's deadline
    assert "<hook_result" not in json.dumps(world.chat_bodies())  # no context, no noise
    assert [e["action"] for e in outbox_entries(world.env)] == ["session_checkpoint_extract"]

    # With the daemon back, the next run sends what waited, and ends the first session.
    time.sleep(1.5)
    _, second = world.ask("and now?")
    checkpoints = world.wait_for("session-checkpoint-extract", 2)
    (ended,) = world.wait_for("session-end")
    assert sorted(c.json["sessionKey"] for c in checkpoints) == sorted([session, second])
    assert ended.json["sessionKey"] == session
    assert outbox_left(15, world.env) == []


def test_with_a_daemon_that_never_answers_each_hook_gives_up_at_its_deadline(
    world: World,
) -> None:
    """A daemon that takes the connection and never answers: every hook gives up at its own
    deadline (1 s here), far inside Kimi's hook timeouts (7 to 17 s), and the turn goes on."""
    _installed(world)
    deadlines = SHORT_DEADLINES
    with silent_daemon() as url:
        env = {**world.env, "SIGNET_DAEMON_URL": url, **deadlines}
        started = time.monotonic()
        out, _ = world.ask(PROMPT, env=env)
        elapsed = time.monotonic() - started

    assert REPLY in out
    assert elapsed < 30  # the hooks' own 1 s each; Kimi would have waited 17 + 7 + 12 s
    log = hook_log_lines(world.env)
    assert any("UserPromptSubmit" in line and "failed open" in line for line in log), log
    assert "<hook_result" not in json.dumps(world.chat_bodies())


def test_the_model_stores_a_memory_through_the_mcp_server(world: World) -> None:
    _installed(world)
    world.fake.tool_script = [("mcp__signet__memory_store", {"content": STORED})]

    out, _ = world.ask("Remember where atlas staging runs.")

    assert REPLY in out
    (stored,) = [r for r in world.daemon.requests if r.path == "/api/memory/remember"]
    assert stored.json["content"] == STORED
    results = [m for b in world.chat_bodies() for m in b["messages"] if m["role"] == "tool"]
    assert results and all("error" not in json.dumps(m).lower() for m in results)
