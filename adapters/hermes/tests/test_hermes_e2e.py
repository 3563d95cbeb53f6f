"""End to end with the real Hermes Agent, offline but for the package registry.

Hermes (PyPI ``hermes-agent``, pinned) lives in its own virtual environment,
cached as ``${XDG_CACHE_HOME:-~/.cache}/signet-sdk/hermes-venv-<version>``
and created on first use. This worktree's ``signetai-sdk`` and
``signetai-adapter-hermes`` are built into a per-run folder that Hermes sees
first on its path (``PYTHONPATH``), so the cached environment never holds a
stale copy of ours. Our installer writes the provider into a temporary
``HERMES_HOME``, whose ``config.yaml`` also points Hermes's model at a fake
OpenAI-compatible server on 127.0.0.1; the memory daemon is the SDK's dev
daemon on 127.0.0.1 (for the tests marked with ``DAEMONS`` also the real
Signet 0.109.15 and 0.145.8 behind a recording proxy). Each test runs one
headless turn, ``hermes -z``; the compaction test resumes the session twice
(``hermes chat -Q -q ... --resume``) and makes Hermes compress it.

Without the cached environment and no way to build it (no registry), the
tests skip, except under CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hermes_fake_openai import REPLY, SUMMARY, is_summary_request, reply, usage
from signet_adapter_hermes.install import main as install_main
from signet_e2e import (
    daemon_of,
    hook_requests,
    on_every_daemon,
    recording_daemon,
    unavailable,
    wait_for_hook,
)

from signet_sdk.plugin import context_text
from signet_sdk.testing import free_port
from signet_sdk.testing.fake_openai import FakeOpenAI
from signet_sdk.testing.mock_daemon import MockDaemon, RecordedRequest

HERMES_VERSION = os.environ.get("HERMES_AGENT_VERSION", "0.19.0")
# Resolved now, before the tests' private HOME is in place: the environment is shared.
CACHE = Path(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "signet-sdk"
).absolute()
VENV = CACHE / f"hermes-venv-{HERMES_VERSION}"
ROOT = Path(__file__).resolve().parents[3]
MARK = "MEMO-HERMES-E2E-7731"
MEMORY = f"Atlas deploys go through make ship, marker {MARK}"
PROMPT = "How do atlas deploys work?"
AGENT = "atlas-agent"


def _unavailable(why: str) -> None:
    unavailable(f"real Hermes Agent unavailable: {why}")


def _pip(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", "-q", *args],
        capture_output=True,
        text=True,
        timeout=1800,
    )


def _ensure_venv() -> Path:
    """The cached Hermes environment (built once, under a lock); its Python."""
    python = VENV / "bin" / "python"
    stamp = VENV / ".signet-sdk-ready"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"hermes-venv-{HERMES_VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and python.exists():
            return python
        if not python.exists():
            made = subprocess.run(
                [sys.executable, "-m", "venv", str(VENV)], capture_output=True, text=True
            )
            if made.returncode != 0:
                _unavailable(f"python -m venv failed: {made.stderr.strip()[-500:]}")
        # hatchling builds our packages without build isolation; aiohttp (with
        # multidict) is the one SDK dependency Hermes does not already bring.
        got = _pip(python, "install", f"hermes-agent=={HERMES_VERSION}", "hatchling", "aiohttp")
        if got.returncode != 0:
            _unavailable(f"pip install hermes-agent=={HERMES_VERSION}: {got.stderr[-800:]}")
        stamp.write_text(HERMES_VERSION + "\n")
    return python


@pytest.fixture(scope="module")
def hermes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(the ``hermes`` command, the folder holding this worktree's packages)."""
    python = _ensure_venv()
    # Hermes puts its own site-packages first on sys.path (hermes_cli/main.py),
    # ahead of PYTHONPATH: a copy of ours in the cached environment would win.
    _pip(python, "uninstall", "-y", "signetai-sdk", "signetai-adapter-hermes")
    site = tmp_path_factory.mktemp("hermes-site")
    built = _pip(
        python,
        "install",
        "--no-deps",
        "--no-build-isolation",
        "--target",
        str(site),
        str(ROOT),
        str(ROOT / "adapters" / "hermes"),
    )
    assert built.returncode == 0, built.stderr[-2000:]
    yield VENV / "bin" / "hermes", site


#: ``@DAEMONS`` runs a test on the mock and on each real daemon release.
DAEMONS = on_every_daemon("daemon")


@pytest.fixture
def daemon(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, str]]:
    """The recording daemon and its URL: the mock (answering as 0.110, whose
    prompt recall repeats what the session start injected), or a real release."""
    kind = daemon_of(request)
    with recording_daemon(kind, request, tmp_path / "daemon.sqlite3") as (recorder, url):
        yield recorder, url


@pytest.fixture
def model() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(reply) as fake:
        yield fake


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    session_id: str | None


def _setup(
    hermes: tuple[Path, Path],
    home: Path,
    daemon_url: str,
    fake: FakeOpenAI,
    extra_env: dict[str, str] | None = None,
    model_config: str = "",
) -> dict[str, str]:
    """Install our provider in ``home/.hermes``, point its model at ``fake``; the env to run in."""
    _, site = hermes
    hermes_home = home / ".hermes"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIGNET_", "HERMES_"))}
    env.update(
        HOME=str(home),
        HERMES_HOME=str(hermes_home),
        PYTHONPATH=str(site),
        SIGNET_DAEMON_URL=daemon_url,
        SIGNET_AGENT_ID=AGENT,
        **(extra_env or {}),
    )
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(key, None)
    assert install_main(["install", "--hermes-home", str(hermes_home)]) == 0
    with (hermes_home / "config.yaml").open("a", encoding="utf-8") as fh:
        fh.write(
            "model:\n  provider: custom\n"
            f"  base_url: {fake.base_url}\n  default: fake-model\n  api_key: sk-fake-e2e\n"
            + model_config
        )
    return env


def _hermes(hermes: tuple[Path, Path], env: dict[str, str], project: Path, *args: str) -> Run:
    """One run of the ``hermes`` command in ``project``."""
    project.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(hermes[0]), *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    session = _session_id(Path(env["HERMES_HOME"]))
    return Run(proc.returncode, proc.stdout, proc.stderr, session)


def _run_hermes(
    hermes: tuple[Path, Path],
    home: Path,
    project: Path,
    daemon_url: str,
    fake: FakeOpenAI,
    extra_env: dict[str, str] | None = None,
) -> Run:
    """Install our provider into ``home/.hermes`` and run one headless turn there."""
    env = _setup(hermes, home, daemon_url, fake, extra_env)
    return _hermes(hermes, env, project, "-z", PROMPT)


def _session_id(hermes_home: Path) -> str | None:
    """The session id Hermes recorded in its own state database."""
    db = hermes_home / "state.db"
    if not db.exists():
        return None
    with sqlite3.connect(db) as conn:
        rows = list(conn.execute("select id from sessions"))
    return str(rows[0][0]) if len(rows) == 1 else None


def _after(requests: list[RecordedRequest], path: str, count: int) -> list[RecordedRequest]:
    """The requests after the ``count``-th one to ``path`` (0: all of them)."""
    seen = 0
    for i, request in enumerate(requests):
        if request.path == path:
            seen += 1
            if seen == count:
                return requests[i + 1 :]
    return [] if count else list(requests)


@pytest.fixture
def atlas(daemon: tuple[Any, str], tmp_path: Path) -> tuple[Any, str, Path]:
    """The daemon (recorder, url) holding :data:`MEMORY` for the project ``atlas``; the project."""
    from signet_sdk import create_adapter
    from signet_sdk.models import RememberParams

    mock, url = daemon
    project = tmp_path / "atlas"
    with create_adapter("hermes-agent", url, agent_id=AGENT) as client:
        stored = client.remember(RememberParams(content=MEMORY, project=str(project)))
    assert stored.id
    return mock, url, project


Turn = Callable[..., Run]


@pytest.fixture
def turn(hermes: tuple[Path, Path], model: FakeOpenAI, isolated: Path) -> Turn:
    """``turn(daemon_url, project, extra_env=None)``: :func:`_run_hermes` against ``model``,
    which must exit 0 with :data:`REPLY` as its whole output."""

    def run(daemon_url: str, project: Path, extra_env: dict[str, str] | None = None) -> Run:
        done = _run_hermes(hermes, isolated, project, daemon_url, model, extra_env)
        assert done.returncode == 0, done.stderr[-3000:]
        assert done.stdout.strip() == REPLY
        return done

    return run


@DAEMONS
def test_one_turn_of_the_real_hermes(
    turn: Turn, atlas: tuple[Any, str, Path], model: FakeOpenAI
) -> None:
    mock, url, project = atlas
    on_mock = isinstance(mock, MockDaemon)

    run = turn(url, project)

    session = run.session_id
    assert session, "Hermes recorded no session"
    (start,) = hook_requests(mock, "session-start")
    assert start.json == {
        "sessionKey": session,
        "project": str(project),
        "source": "startup",
        "harness": "hermes-agent",
        "runtimePath": "plugin",
        "agentId": AGENT,
    }
    assert start.headers["x-signet-runtime-path"] == "plugin"
    (prompt,) = hook_requests(mock, "user-prompt-submit")
    assert prompt.json == {
        "userMessage": PROMPT,
        "userPrompt": PROMPT,
        "sessionKey": session,
        "project": str(project),
        "harness": "hermes-agent",
        "runtimePath": "plugin",
        "agentId": AGENT,
    }
    # The stored memory reached the model: in the system prompt (session start,
    # fenced by us) and, when the daemon recalled it for the prompt (0.145 leaves
    # out what the session start injected), beside this turn's message (fenced
    # by Hermes).
    (request,) = model.chat_bodies()
    system = request["messages"][0]
    assert system["role"] == "system"
    assert '<signet-memory source="session-start">' in system["content"]
    assert MARK in system["content"]
    user = [m for m in request["messages"] if m["role"] == "user"][-1]
    assert user["content"].startswith(PROMPT)
    recalled = MARK in context_text(prompt.response_json, prompt=True)
    assert (MARK in user["content"]) is recalled
    if on_mock:
        assert MARK in user["content"].split("<memory-context>", 1)[1]
    assert {t["function"]["name"] for t in request["tools"]} >= {
        "memory_search",
        "memory_store",
        "memory_get",
        "memory_modify",
        "memory_forget",
    }
    # Hermes's exit ends the session, with the turn as transcript.
    (end,) = wait_for_hook(mock, "session-end")
    assert end.json == {
        "sessionKey": session,
        "sessionId": session,
        "cwd": str(project),
        "reason": "exit",
        "transcript": f"user: {PROMPT}\n\nassistant: {REPLY}",
        "harness": "hermes-agent",
        "runtimePath": "plugin",
        "agentId": AGENT,
    }
    (checkpoint,) = wait_for_hook(mock, "session-checkpoint-extract")
    assert checkpoint.json["sessionKey"] == session
    assert checkpoint.json["transcript"] == f"user: {PROMPT}\n\nassistant: {REPLY}"


def test_the_model_calls_a_memory_tool_through_hermes(
    turn: Turn, atlas: tuple[Any, str, Path], model: FakeOpenAI
) -> None:
    mock, url, project = atlas
    model.tool_script.append(("memory_search", {"query": "atlas deploys make ship"}))

    turn(url, project)

    (recall,) = mock.requests_to("/api/memory/recall", "POST")
    assert recall.json["query"] == "atlas deploys make ship"
    assert recall.headers["x-signet-agent-id"] == AGENT
    first, second = model.chat_bodies()
    assert "memory_search" in {t["function"]["name"] for t in first["tools"]}
    (tool,) = [m for m in second["messages"] if m["role"] == "tool"]
    assert tool["tool_call_id"] == "call_memory_search"
    answer = json.loads(tool["content"])
    assert [r["content"] for r in answer["result"]["results"]] == [MEMORY]


def test_a_down_daemon_leaves_the_turn_alone_and_queues_the_writes(
    turn: Turn, model: FakeOpenAI, tmp_path: Path
) -> None:
    down = f"http://127.0.0.1:{free_port()}"
    project = tmp_path / "atlas"
    state = tmp_path / "state"

    env = {"XDG_STATE_HOME": str(state), "SIGNET_OUTBOX_FLUSH_SECONDS": "0"}
    run = turn(down, project, env)

    assert "Traceback" not in run.stderr
    (request,) = model.chat_bodies()
    assert "<memory-context>" not in json.dumps(request)
    queued = [
        json.loads(p.read_text()) for p in sorted((state / "signet-sdk" / "outbox").glob("*.json"))
    ]
    actions = sorted(e["action"] for e in queued)
    assert actions == ["session_checkpoint_extract", "session_end"]
    end = next(e for e in queued if e["action"] == "session_end")
    assert end["harness"] == "hermes-agent"
    assert end["body"]["sessionKey"] == run.session_id


#: A small context window and eager compression, so one large usage report compresses.
COMPRESSING = (
    "  context_length: 200000\n"
    "compression:\n  threshold: 0.1\n  protect_last_n: 2\n  protect_first_n: 0\n"
)


def test_compaction_in_the_real_hermes(
    hermes: tuple[Path, Path],
    daemon: tuple[MockDaemon, str],
    model: FakeOpenAI,
    isolated: Path,
    tmp_path: Path,
) -> None:
    """Three turns of one session; the third reports a nearly full context, so Hermes compresses.

    Hermes 0.19 compresses in place (the session id stays): on_pre_compress,
    then on_session_end with the messages about to be summarised, then the
    summary request, then on_session_switch(reason="compression") with the
    same id; the summary is in the history the next sync_turn carries.
    """
    mock, url = daemon
    project = tmp_path / "atlas"
    # A project outside /tmp: the daemon keeps no summary of a test run's /tmp project.
    named = "/home/dev/projects/atlas"
    env = _setup(hermes, isolated, url, model, {"SIGNET_PROJECT": named}, COMPRESSING)
    prompts = ["first question about atlas", "second question about staging", "and production?"]

    model.tool_script.append(("memory_search", {"query": "atlas"}))
    first = _hermes(hermes, env, project, "-z", prompts[0])
    assert first.returncode == 0, first.stderr[-3000:]
    session = first.session_id
    assert session
    model.tool_script.append(("memory_search", {"query": "staging"}))
    second = _hermes(hermes, env, project, "chat", "-Q", "-q", prompts[1], "--resume", session)
    assert second.returncode == 0, second.stderr[-3000:]
    model.tool_script.append(("memory_search", {"query": "production"}))
    model.usage = usage(190_000)
    third = _hermes(hermes, env, project, "chat", "-Q", "-q", prompts[2], "--resume", session)
    assert third.returncode == 0, third.stderr[-3000:]
    assert REPLY in third.stdout

    wait_for_hook(mock, "compaction-complete")
    third_run = _after(mock.requests, "/api/hooks/session-end", 2)
    paths = [
        r.path.removeprefix("/api/hooks/") for r in third_run if r.path.startswith("/api/hooks/")
    ]
    assert paths[:5] == [
        "session-start",
        "user-prompt-submit",
        "pre-compaction",
        "session-checkpoint-extract",  # Hermes's extraction before compressing: not an end
        "compaction-complete",
    ], paths
    pre = next(r for r in third_run if r.path.endswith("/pre-compaction"))
    assert pre.json["sessionKey"] == session
    assert pre.json["sessionContext"] == prompts[2]
    assert next(r for r in third_run if r.path.endswith("/session-start")).json["project"] == named
    # The daemon's guidance reached Hermes's compression request.
    (summary_request,) = [b for b in model.chat_bodies() if is_summary_request(b)]
    assert "## Memory flush before compaction" in summary_request["messages"][0]["content"]
    extract = next(r for r in third_run if r.path.endswith("/session-checkpoint-extract"))
    for prompt in prompts:
        assert f"user: {prompt}" in extract.json["transcript"]
    done = next(r for r in third_run if r.path.endswith("/compaction-complete"))
    assert done.json["sessionKey"] == session
    assert SUMMARY in done.json["summary"]
    assert "CONTEXT COMPACTION" not in done.json["summary"]
    assert done.response_json["memoryId"], done.response_json
    ends = wait_for_hook(mock, "session-end", 3)
    assert len(ends) == 3  # one per Hermes exit; the compaction's extraction was a checkpoint
    end = ends[2]
    assert end.json["sessionKey"] == session
    assert "summary: " in end.json["transcript"]
    assert SUMMARY in end.json["transcript"]
